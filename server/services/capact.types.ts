/** Requests and responses of the Capact service, shared by tRPC and the console. */
import { z } from 'zod';
import { MAX_REQUEST_BYTES } from '../engine/model/kinds';

const capPath = z.string().max(200).regex(/^cap(?:\.[A-Za-z0-9][A-Za-z0-9_-]*)+$/, 'must be a Capact path such as cap.interface.database.postgresql.install');
const semver = z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'must be a semantic version such as 0.1.0');

export const tryItInput = z.object({
  interface: z.object({ path: capPath, revision: semver.optional() }),
  /** The text of the policy object being edited (default: the saved Global policy). */
  draft: z.string().max(MAX_REQUEST_BYTES).optional(),
  action: z.unknown().optional(),
  order: z.array(z.enum(['ACTION', 'GLOBAL', 'WORKFLOW'])).min(1).max(3).optional(),
  mode: z.enum(['documented', 'capact-compat']).optional(),
});

export const interfacesOutput = z.array(z.object({ path: z.string(), revisions: z.array(z.string()) }));

export const tryItOutput = z.object({
  policy: z.enum(['saved', 'draft', 'none']),
  problems: z.array(z.string()),
  implementation: z.object({ path: z.string(), revision: z.string() }).nullable(),
  explanation: z
    .object({
      interface: z.string(),
      outcome: z.enum(['chosen', 'none', 'error']),
      summary: z.string(),
      rule: z.string().nullable(),
      candidates: z.array(z.object({ implementation: z.string(), status: z.enum(['chosen', 'rejected']), constraint: z.string().optional(), reason: z.string() })),
      injections: z.array(z.string()),
      backends: z.array(z.string()),
      errors: z.array(z.string()),
    })
    .nullable(),
});
