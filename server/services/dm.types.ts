/** Deployment Manager's API shapes (reference dm.md §5), shared by the routes and the console. */
import { z } from 'zod';
import { MAX_REQUEST_BYTES } from '../engine/model/kinds';
import { byGenerationOutput } from './revisions.types';

const layoutResource: z.ZodType<{ name: string; type: string; properties?: unknown; resources?: unknown[]; outputs?: unknown }> = z.lazy(() =>
  z.object({ name: z.string(), type: z.string(), properties: z.unknown().optional(), resources: z.array(layoutResource).optional(), outputs: z.unknown().optional() }),
);

export const dmTemplate = z
  .object({
    name: z.string().min(1).max(253),
    content: z.string().max(MAX_REQUEST_BYTES),
    imports: z.array(z.object({ name: z.string().max(500).optional(), path: z.string().max(500).optional(), content: z.string() })).max(200).default([]),
  })
  .strict();
export type DmTemplate = z.infer<typeof dmTemplate>;

export const dmDeployment = z.object({
  name: z.string(),
  createdAt: z.date(),
  deployedAt: z.date().nullable(),
  modifiedAt: z.date(),
  deletedAt: z.date().nullable(),
  state: z.object({ status: z.enum(['Created', 'Deployed', 'Failed', 'Deleted', 'Modified']), errors: z.array(z.string()) }),
  latestManifest: z.string(),
});
export type DmDeployment = z.infer<typeof dmDeployment>;

export const dmManifest = z.object({
  deployment: z.string(),
  name: z.string(),
  inputConfig: dmTemplate.extend({ imports: z.array(z.object({ name: z.string().optional(), path: z.string().optional(), content: z.string() })) }),
  expandedConfig: z.object({ resources: z.array(z.object({ name: z.string(), type: z.string() }).loose()) }),
  layout: z.object({ resources: z.array(layoutResource) }).loose(),
  errors: z.array(z.string()).optional(),
});
export type DmManifest = z.infer<typeof dmManifest>;

export const dmTypeInstance = z.object({ name: z.string(), type: z.string(), deployment: z.string(), manifest: z.string(), path: z.string() });
export type DmTypeInstance = z.infer<typeof dmTypeInstance>;

export const dmExpandOutput = z.object({ expandedConfig: z.object({ resources: z.array(z.unknown()) }), layout: z.object({ resources: z.array(layoutResource) }).loose() });

/** Where a deployment written through DM's API goes (DM's Template has no such field): query parameters. */
export const dmWriteOptions = z.object({
  target: z.string().min(1).max(130).optional().describe('The Keelson cluster its Kubernetes primitives go to ("name" or "system/name"); required to create, kept on update unless given'),
  k8sNamespace: z.string().min(1).max(63).optional().describe("Kubernetes namespace of primitives without one; default: the cluster's"),
  message: z.string().max(2000).optional().describe("The generation's message"),
});
export type DmWriteOptions = z.infer<typeof dmWriteOptions>;

/** A write's answer: the deployment in DM's shape, and the generation and revision the write made. */
export const dmWriteResult = dmDeployment.extend({ generation: z.number().int(), revision: byGenerationOutput });
export type DmWriteResult = z.infer<typeof dmWriteResult>;
