/**
 * Reading a policy document (already parsed from YAML) into a `Policy`.
 * As in Capact, a `typeRef` written under `requiredTypeInstances` or
 * `additionalTypeInstances` is ignored: the TypeRef is always resolved from
 * the TypeInstance the id names, so a policy cannot claim a TypeInstance is
 * something it is not.
 */
import { z } from 'zod';
import type { CapactError, Policy } from './types';

const revision = z.union([z.string(), z.number()]).transform(String);
const ref = z.object({ path: z.string().min(1), revision: revision.optional() });
const requiredTI = z.object({ id: z.string().min(1), description: z.string().optional() }).transform(({ id, description }) => ({ id, ...(description !== undefined ? { description } : {}) }));
const additionalTI = z.object({ name: z.string().min(1), id: z.string().min(1) }).transform(({ name, id }) => ({ name, id }));
const constraints = z.object({ path: z.string().optional(), attributes: z.array(ref).optional(), requires: z.array(ref).optional() }).strict();
const inject = z
  .object({
    requiredTypeInstances: z.array(requiredTI).optional(),
    additionalParameters: z.array(z.object({ name: z.string().min(1), value: z.record(z.string(), z.unknown()) })).optional(),
    additionalTypeInstances: z.array(additionalTI).optional(),
  })
  .strict();

const policySchema = z
  .object({
    interface: z
      .object({
        default: z.object({ inject: z.object({ requiredTypeInstances: z.array(requiredTI).optional() }).strict().optional() }).strict().optional(),
        rules: z
          .array(
            z.object({
              interface: ref,
              oneOf: z.array(z.object({ implementationConstraints: constraints.default({}), inject: inject.optional() }).strict()).nullish().transform((v) => v ?? []),
            }),
          )
          .nullish()
          .transform((v) => v ?? []),
      })
      .strict()
      .optional(),
    typeInstance: z
      .object({
        rules: z.array(z.object({ typeRef: ref, backend: z.object({ id: z.string().min(1), description: z.string().optional() }) })).nullish().transform((v) => v ?? []),
      })
      .strict()
      .optional(),
  })
  .strict();

export function parsePolicy(doc: unknown): { policy: Policy | null; errors: CapactError[] } {
  const parsed = policySchema.safeParse(doc ?? {});
  if (parsed.success) return { policy: parsed.data as Policy, errors: [] };
  return {
    policy: null,
    errors: parsed.error.issues.map((issue) => ({
      code: 'invalid_policy' as const,
      message: issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : `a policy must be a mapping with interface and typeInstance parts: ${issue.message}`,
      path: issue.path.map((p) => (typeof p === 'number' ? p : String(p))),
    })),
  };
}
