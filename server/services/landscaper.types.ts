/** Requests and responses of the Landscaper service, shared by tRPC and the console. */
import { z } from 'zod';

const phase = z.enum(['Init', 'ObjectsCreated', 'Progressing', 'Completing', 'Succeeded', 'Failed', 'Pending', 'InitDelete', 'Deleting', 'DeleteFailed']);
/** Whether a phase is the install engine's offline run (deploy items by its mock deployer) or follows the revision and apply. */
const phaseFrom = z.enum(['simulated', 'applied']);
const landscaperError = z.object({
  code: z.string(),
  message: z.string(),
  installation: z.string().optional(),
  cycle: z.array(z.string()).optional(),
  exportedBy: z.object({ key: z.string(), installations: z.array(z.string()) }).optional(),
});

export const scopesInput = z.object({
  /** One policy namespace (a root scope); default: all of them. */
  namespace: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must be a policy namespace').optional(),
});

export const scopeGraphOutput = z.object({
  generation: z.number().int(),
  scopes: z.array(z.object({ id: z.string(), label: z.string(), namespace: z.string(), parent: z.string().nullable(), installation: z.string().nullable() })),
  installations: z.array(
    z.object({
      id: z.string(),
      namespace: z.string(),
      path: z.string(),
      name: z.string(),
      scope: z.string(),
      opens: z.string().nullable(),
      phase,
      phases: z.array(z.object({ phase, reason: z.string() })),
      imports: z.record(z.string(), z.unknown()),
      exports: z.record(z.string(), z.unknown()),
      errors: z.array(landscaperError),
      deployItems: z.array(z.object({ name: z.string(), type: z.string(), phase: z.string(), note: z.string().optional(), key: z.string().optional(), phaseFrom: phaseFrom.optional() })),
      phaseFrom: phaseFrom.optional(),
      removed: z.boolean().optional(),
    }),
  ),
  objects: z.array(
    z.object({
      id: z.string(),
      scope: z.string(),
      kind: z.enum(['data', 'target', 'secret', 'configmap']),
      key: z.string(),
      value: z.unknown().optional(),
      truncated: z.boolean().optional(),
      origin: z.enum(['declared', 'exported', 'parent import', 'missing']),
    }),
  ),
  edges: z.array(z.object({ id: z.string(), source: z.string(), target: z.string(), kind: z.enum(['import', 'export']), label: z.string() })),
  errors: z.array(landscaperError),
  order: z.array(z.string()),
});
export type ScopeGraphView = z.infer<typeof scopeGraphOutput>;
