/**
 * Local users: an Aptomi-format users file (`name`, bcrypt `passwordhash`,
 * `labels`). Without KEELSON_USERS_FILE the demo users from Aptomi's
 * examples are used, so a newcomer can sign in as alice/alice.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { formatDiagnostic, hasErrors } from '../engine/diagnostics';
import { findUser, parseUsers, type PolicyUser } from '../engine/model/users';

export const DEMO_USERS_FILE = join(process.cwd(), 'corpus/aptomi/examples/common/users.yaml');

interface Cache {
  file: string;
  mtimeMs: number;
  checkedAt: number;
  users: PolicyUser[];
}
let cache: Cache | undefined;

/**
 * How long a read of the users file is trusted before its modification time
 * is checked again. Every API token request asks for the users; a stat per
 * request was 4% of a busy API process's time.
 */
const RECHECK_MS = 1000;

/** Users from the file; re-read when the file changes (noticed within a second; Aptomi cached for a minute). */
export function loadLocalUsers(file: string = DEMO_USERS_FILE): PolicyUser[] {
  const now = Date.now();
  if (cache && cache.file === file && now - cache.checkedAt < RECHECK_MS) return cache.users;
  const mtimeMs = statSync(/*turbopackIgnore: true*/ file).mtimeMs;
  if (cache && cache.file === file && cache.mtimeMs === mtimeMs) {
    cache.checkedAt = now;
    return cache.users;
  }
  const r = parseUsers(readFileSync(/*turbopackIgnore: true*/ file, 'utf8'), file);
  if (hasErrors(r.diagnostics)) {
    throw new Error(`Users file ${file} is invalid:\n${r.diagnostics.map(formatDiagnostic).join('\n')}`);
  }
  cache = { file, mtimeMs, checkedAt: now, users: r.users };
  return r.users;
}

/**
 * The account a typed user name signs in to: white space around it dropped,
 * case ignored (users-file names have neither); null for anything but a
 * non-empty string (a JSON body may send a number or a list). The password
 * check and the sign-in limiter both key on this, so no other spelling of a
 * name (" frank", "FRANK") starts a fresh count.
 */
export function signInAccount(typed: unknown): string | null {
  if (typeof typed !== 'string') return null;
  const account = typed.trim().toLowerCase();
  return account === '' ? null : account;
}

/** Check a name/password pair; names match as `signInAccount` reads them. */
export async function verifyLocalUser(users: readonly PolicyUser[], name: unknown, password: unknown): Promise<PolicyUser | null> {
  const account = signInAccount(name);
  const u = account === null ? undefined : findUser(users, account);
  // Compare against a fixed hash when the user is unknown, so timing does not tell who exists.
  const hash = u?.passwordHash ?? '$2a$10$CwTycUXWue0Thq9StjUM0uJ8.bTOLQvpWFQH7wvWv3tAG6zGwSEFa';
  const ok = await bcrypt.compare(typeof password === 'string' ? password : '', hash);
  return ok && u?.passwordHash ? u : null;
}

/**
 * What a password sign-in proved, kept with its session: a digest of the
 * users file's hash it was checked against. A new password (another hash)
 * gives another digest, which ends the sessions signed in with the old one.
 * Null for a user who has no password.
 */
export function passwordCredential(user: Pick<PolicyUser, 'passwordHash'>): string | null {
  return user.passwordHash ? createHash('sha256').update(user.passwordHash).digest('base64url') : null;
}
