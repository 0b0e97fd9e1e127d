/**
 * Schema pieces the services' `*.types.ts` share: identifiers, limits, and
 * the records the engine defines (diagnostics, instances, claim outcomes,
 * plans, graphs).
 *
 * Engine records are checked on the fields a client relies on and passed
 * through whole (the engine owns their shape; a field it adds must reach
 * the console without an edit here), typed as the engine declares them.
 */
import { z } from 'zod';
import { ROLE_ORDER, type Role } from '../engine/acl';
import type { Diagnostic } from '../engine/diagnostics';
import { MAX_REQUEST_BYTES } from '../engine/model/kinds';
import type { ClaimOutcome, Instance } from '../engine/state';

export const generation = z.number().int().min(0);
/** A namespace, object, tenant or section name as the API takes it. */
export const name = z.string().min(1).max(64);
/** A user name as the API takes it (policy names, e-mail-like OIDC names). */
export const userName = z.string().min(1).max(200);
/** An object's name: Aptomi names are short identifiers, Capact's are `path:revision` (longer, with dots). */
export const objectName = z.string().min(1).max(253);
export const objectId = z.object({ kind: z.string().min(1).max(64), namespace: name, name: objectName });
export const yamlText = z.string().max(MAX_REQUEST_BYTES, 'the request is over the limit of 10 MiB');
/** A commit message or a decision's comment. */
export const note = z.string().max(2000).optional();
/** An instance key (`instanceKey` in engine/state/key.ts). */
export const instanceKey = z.string().min(1).max(2000);

/** A record whose shape the engine owns: `shape` is checked, every other field passes through, the type is `T`. */
export function engineRecord<T>(shape: z.ZodRawShape): z.ZodType<T> {
  return z.looseObject(shape) as unknown as z.ZodType<T>;
}

/** A large engine value (a plan, a graph) passed through unchecked, typed as `T`. */
export function engineValue<T>(check: (v: unknown) => boolean = (v) => typeof v === 'object' && v !== null): z.ZodType<T> {
  return z.custom<T>(check);
}

export const diagnosticOutput = engineRecord<Diagnostic>({
  code: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  message: z.string(),
});

export const instanceOutput = engineRecord<Instance>({
  key: z.string(),
  deployName: z.string(),
  namespace: z.string(),
  component: z.string(),
  claims: z.array(z.string()),
});

export const claimOutcomeOutput = engineRecord<ClaimOutcome>({
  namespace: z.string(),
  name: z.string(),
  user: z.string(),
  service: z.string(),
  status: z.enum(['resolved', 'rejected', 'error']),
  errors: z.array(z.string()),
  instances: z.array(z.string()),
  trace: z.array(z.unknown()),
});

/** A role a user holds (engine/acl.ts `RoleGrant`). */
export const roleGrantOutput = z.object({
  role: z.enum(ROLE_ORDER as readonly Role[] as [Role, ...Role[]]),
  namespaces: z.union([z.literal('*'), z.array(z.string())]),
  source: z.string(),
});

/** A procedure that takes no input. */
export const noInput = z.void();

export const okOutput = z.object({ ok: z.literal(true) });
