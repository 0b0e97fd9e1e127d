/**
 * Users as policy sees them: a name, labels (criteria read them) and secrets
 * (templates may read them). Accepts Aptomi's users file (`passwordhash`,
 * `domainadmin`) and its secrets file (`- user: X, secrets: {...}`).
 */
import { z } from 'zod';
import type { Diagnostic } from '../diagnostics';
import { parseYamlObjects } from './source';
import type { SecretAudience } from '../state/types';

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v));

/**
 * Local user names may not contain "@", ":" or spaces: single sign-on
 * accounts are named `address@domain` or `subject@issuer-host`, so the two
 * can never name the same person.
 */
export const LOCAL_NAME_RE = /^[^@\s:]+$/;

export const userRecordSchema = z
  .object({
    name: z.string().min(1).regex(LOCAL_NAME_RE, 'a local user name may not contain "@", ":" or spaces (those name single sign-on accounts)'),
    passwordhash: z.string().nullish(),
    domainadmin: z.boolean().nullish(),
    labels: z.record(z.string(), scalar).nullish(),
    secrets: z.record(z.string(), scalar).nullish(),
  })
  .strict();

/**
 * Who may see what is rendered from a user's secrets: the admins of the
 * namespace it is deployed in (and domain admins) — the user's own
 * credentials, unlike the platform's (Hub TypeInstances, Targets,
 * clusters), which their kinds declare for domain admins only.
 */
export const USER_SECRETS_AUDIENCE: SecretAudience = 'namespace-admins';

export interface PolicyUser {
  name: string;
  labels: Record<string, string>;
  secrets: Record<string, string>;
  /** bcrypt hash from the users file; never leaves the server. */
  passwordHash?: string;
  domainAdmin?: boolean;
}

const secretRecordSchema = z.object({ user: z.string().min(1), secrets: z.record(z.string(), scalar).nullish() }).strict();

/** True when a parsed document value looks like a users or secrets file rather than policy. */
export function looksLikeUsersOrSecrets(value: unknown): boolean {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return false;
  return items.every((it) => {
    if (!it || typeof it !== 'object' || 'kind' in it) return false;
    const o = it as Record<string, unknown>;
    return (typeof o.name === 'string' && ('passwordhash' in o || 'labels' in o || 'secrets' in o)) ||
      (typeof o.user === 'string' && 'secrets' in o);
  });
}

export interface UsersResult {
  users: PolicyUser[];
  diagnostics: Diagnostic[];
}

/**
 * Parse a users file. Secrets-only records (`user:` + `secrets:`) merge into
 * the user of that name. Names are matched without regard to case, as Aptomi
 * did, but keep their spelling.
 */
export function parseUsers(text: string, file?: string): UsersResult {
  const parsed = parseYamlObjects(text, file);
  const diagnostics = [...parsed.diagnostics];
  const byName = new Map<string, PolicyUser>();
  // A users file is a list; parseYamlObjects already split it into items.
  for (const obj of parsed.objects) {
    const v = obj.value as Record<string, unknown>;
    if ('user' in v) {
      const r = secretRecordSchema.safeParse(v);
      if (!r.success) {
        diagnostics.push({ code: 'schema', severity: 'error', message: `bad secrets record: ${r.error.issues[0]?.message}`, file, ...obj.pos });
        continue;
      }
      const key = r.data.user.toLowerCase();
      const u = byName.get(key) ?? { name: r.data.user, labels: {}, secrets: {} };
      Object.assign(u.secrets, r.data.secrets ?? {});
      byName.set(key, u);
      continue;
    }
    const r = userRecordSchema.safeParse(v);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      diagnostics.push({
        code: 'schema',
        severity: 'error',
        message: `bad user record: ${issue.path.join('.') || 'user'}: ${issue.message}`,
        file,
        ...obj.locate(issue.path as PropertyKey[]),
      });
      continue;
    }
    const key = r.data.name.toLowerCase();
    if (byName.has(key) && byName.get(key)!.passwordHash !== undefined) {
      diagnostics.push({ code: 'duplicate_object', severity: 'error', message: `duplicate user "${r.data.name}"`, file, ...obj.pos });
      continue;
    }
    const prev = byName.get(key);
    byName.set(key, {
      name: r.data.name,
      labels: { ...(r.data.labels ?? {}) },
      secrets: { ...(prev?.secrets ?? {}), ...(r.data.secrets ?? {}) },
      passwordHash: r.data.passwordhash ?? undefined,
      domainAdmin: r.data.domainadmin ?? undefined,
    });
  }
  return { users: [...byName.values()], diagnostics };
}

export function findUser(users: readonly PolicyUser[], name: string): PolicyUser | undefined {
  const lower = name.toLowerCase();
  return users.find((u) => u.name.toLowerCase() === lower);
}
