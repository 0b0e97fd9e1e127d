/**
 * Requests and responses of the estate service (Axebow accounts and
 * deployment environments), shared by the REST API and the console.
 */
import { z } from 'zod';
import { clusterMarksSchema, IDENTIFIER_RE } from '../engine/model/kinds';

const ident = z.string().regex(IDENTIFIER_RE, 'must start with a letter and hold only letters, digits, "_" or "-" (at most 64)');

/** Quotas: a cluster's marks plus how many services may run. An absent dimension is unlimited. */
export const marksInput = clusterMarksSchema.extend({
  services: z.number().int({ error: 'must be a whole number' }).nonnegative({ error: 'must not be negative' }).optional().describe('Most services that may run'),
});
const labels = z.record(z.string().max(128), z.string().max(1024));

export const accountInput = z.object({ marks: marksInput.default({}), labels: labels.default({}) });
export const accountUpdateInput = z.object({ marks: marksInput.optional(), labels: labels.optional() });
export const environmentInput = z.object({
  cluster: z.string().min(1).max(130).describe('The Keelson cluster (deployment target) it deploys to: "name" or "system/name"'),
  namespace: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a Kubernetes namespace name').optional().describe('Kubernetes namespace; default: each policy namespace its own'),
  marks: marksInput.default({}),
  labels: labels.default({}),
  meta: z.record(z.string(), z.unknown()).default({}).describe('Free-form metadata selectors read'),
});
export const environmentUpdateInput = z.object({ marks: marksInput.optional(), labels: labels.optional(), meta: z.record(z.string(), z.unknown()).optional() });

/** The console's tenant page: every environment of a tenant. */
export const tenantEnvironmentsInput = z.object({ tenant: z.string().min(1).max(64) });

export type MarksInput = z.infer<typeof marksInput>;
export type AccountInput = z.infer<typeof accountInput>;
export type AccountUpdateInput = z.infer<typeof accountUpdateInput>;
export type EnvironmentInput = z.infer<typeof environmentInput>;
export type EnvironmentUpdateInput = z.infer<typeof environmentUpdateInput>;

const marksOutput = z.record(z.string(), z.union([z.number(), z.string()]));

export const accountOutput = z.object({
  tenant: z.string(),
  name: ident,
  marks: marksOutput,
  labels: z.record(z.string(), z.string()),
  environments: z.array(z.string()),
  createdBy: z.string(),
  createdAt: z.date(),
});

/** What the environment's services use now (the newest accepted revision), against its marks. */
export const usageOutput = z.object({
  vcpu: z.number().describe('vCPU (cores)'),
  memory: z.number().describe('bytes'),
  storage: z.number().describe('bytes'),
  instances: z.number().int(),
  services: z.number().int().describe('Services (claims) of the tenant with instances there'),
});

export const environmentOutput = z.object({
  tenant: z.string(),
  account: z.string(),
  name: ident,
  cluster: z.string(),
  namespace: z.string().nullable(),
  marks: marksOutput,
  labels: z.record(z.string(), z.string()),
  meta: z.unknown(),
  /** What the services placed in this environment use. */
  usage: usageOutput,
  /** What the tenant's services use on the environment's whole cluster: all its environments there, and services placed in none. */
  clusterUsage: usageOutput,
  /** `ok`, or `over-marks` with the dimensions over their mark. */
  status: z.object({ state: z.enum(['ok', 'over-marks']), over: z.array(z.string()) }),
  createdBy: z.string(),
  createdAt: z.date(),
});

export type AccountView = z.infer<typeof accountOutput>;
export type EnvironmentView = z.infer<typeof environmentOutput>;
