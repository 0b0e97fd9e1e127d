/**
 * Axebow services as Keelson sees them: a service of a tenant is a claim
 * in one of the tenant's policy namespaces, and its revisions are the
 * Keelson revisions of the generations that changed that claim.
 */
import type { AnyLoadedObject } from '../../engine/model/validate';
import { z } from 'zod';
import { claimOutput } from '../resolution.types';
import { previewOutput } from '../revisions.types';

const ident = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must start with a letter and hold only letters, digits, "_" or "-" (at most 64)');

/**
 * Where a service runs is the environment's to say: a `target` or
 * `environment` label written by the client could place it beside its
 * environment's marks, so the API sets them and refuses them as input.
 */
export const PLACEMENT_LABELS = ['target', 'environment'] as const;
export const MAX_SERVICE_LABELS = 200;

export const PLACEMENT_LABELS_MESSAGE = 'labels target and environment are set from the environment field, not written directly';
export function noPlacementLabels(labels: Record<string, unknown>): boolean {
  return !PLACEMENT_LABELS.some((l) => Object.hasOwn(labels, l));
}

export const createServiceInput = z.object({
  /** The Keelson service (offering) to claim: "name" (in the chosen namespace) or "namespace/name". */
  service: z.string().regex(/^(?:[a-zA-Z][a-zA-Z0-9_-]{0,63}\/)?[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must be "name" or "namespace/name"'),
  /** Which of the tenant's policy namespaces holds the claim; default: the tenant's first. */
  namespace: ident.optional(),
  /** `account/environment`: deploy there (its cluster becomes the claim's `target` label). */
  environment: z.string().regex(/^[a-zA-Z][\w-]{0,63}\/[a-zA-Z][\w-]{0,63}$/, 'must be "account/environment"').optional(),
  labels: z
    .record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'is not a valid label name'), z.string().max(1024))
    .refine(noPlacementLabels, PLACEMENT_LABELS_MESSAGE)
    // Labels are what rules and templates match on, a handful per claim; thousands are an attack on every resolution.
    .refine((l) => Object.keys(l).length <= MAX_SERVICE_LABELS, `at most ${MAX_SERVICE_LABELS} labels`)
    .default({}),
  /** Axebow's selection metadata: free JSON the tenant's selectors read as `$.service.meta` (not passed to the service). */
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type CreateServiceInput = z.infer<typeof createServiceInput> & {
  /** More policy objects written with the claim (a bundle's inline modules), as they were read when admitted. */
  extra?: BundleObjects;
};

export interface BundleObjects {
  objects: readonly AnyLoadedObject[];
}

export const serviceSummaryOutput = z.object({
  name: z.string(),
  namespace: z.string(),
  user: z.string(),
  service: z.string(),
  status: z.enum(['resolved', 'rejected', 'error', 'unresolved']),
  errors: z.array(z.string()),
  instances: z.number().int(),
  /** The cluster its bundle instance runs on, when resolved. */
  target: z.object({ cluster: z.string(), namespace: z.string() }).nullable(),
});
export type ServiceSummary = z.infer<typeof serviceSummaryOutput>;

export const serviceRevisionOutput = z.object({
  /** The Keelson revision (null while it is being computed). */
  id: z.number().int().nullable(),
  generation: z.number().int(),
  status: z.string(),
  author: z.string(),
  message: z.string(),
  createdAt: z.date(),
  /** What the generation did to this service's claim. */
  change: z.enum(['create', 'update', 'delete']),
});
export type ServiceRevision = z.infer<typeof serviceRevisionOutput>;

/** Where a new service went: every environment in scope, with its outcome and reasons (server/engine/axebow/stage.ts). */
export const selectionOutput = z.object({
  chosen: z.object({ environment: z.string(), id: z.number().int(), outcome: z.enum(['accepted', 'requiring']) }).nullable(),
  table: z.array(
    z.object({
      environment: z.string(),
      outcome: z.enum(['accepted', 'requiring', 'excluded']),
      reasons: z.array(z.string()),
      freeVcpuAfter: z.number().nullable().describe('vCPU left free there after placement; null: unlimited'),
    }),
  ),
});

/** The answer to a write: the generation written and its revision, or (dryrun) what it would be. */
export const serviceWriteOutput = z.union([
  z.object({
    dryrun: z.literal(false),
    generation: z.number().int(),
    revision: z.object({ id: z.number().int().nullable(), status: z.string() }),
    selection: selectionOutput.optional(),
    /** With accept=true: the sections the save left pending, and why (over marks or reaching past the namespace: a domain admin accepts those explicitly, even after their own save). */
    notAccepted: z.array(z.object({ namespace: z.string(), reason: z.string() })).optional(),
  }),
  z.object({
    dryrun: z.literal(true),
    /** Absent when no environment may take the service (the selection says why). */
    preview: previewOutput.optional(),
    selection: selectionOutput.optional(),
    /** The environment's marks against what the tenant's services would use there (when an environment is named). */
    admission: z
      .object({
        environment: z.string(),
        ok: z.boolean(),
        usage: z.record(z.string(), z.number()),
        over: z.array(z.object({ dimension: z.string(), mark: z.number(), usage: z.number() })),
      })
      .optional(),
  }),
]);
export type ServiceWrite = z.infer<typeof serviceWriteOutput>;

export { claimOutput as serviceOutput };

/** What applying the service's instances reported (Axebow's logs, as far as Keelson has them: apply events). */
export const serviceLogsOutput = z.object({
  instances: z.array(z.object({ key: z.string(), deployName: z.string(), component: z.string(), status: z.string().nullable(), error: z.string().nullable() })),
  events: z.array(z.object({ at: z.date(), revisionId: z.number().int(), kind: z.string(), instance: z.string(), message: z.string() })),
});
export type ServiceLogs = z.infer<typeof serviceLogsOutput>;
