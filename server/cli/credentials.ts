/**
 * Saved API tokens of `keelson login`: one per console, in
 * `$KEELSON_CONFIG_DIR/credentials.json` (default `~/.config/keelson/`,
 * or `$XDG_CONFIG_HOME/keelson/`). The folder is 0700 and the file 0600:
 * a token acts for its user until it expires or is revoked.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

export interface Credential {
  /** The console's URL, normalised (see `normaliseServer`). */
  server: string;
  token: string;
  /** ISO time, or null for a token that does not expire. */
  expiresAt: string | null;
  /** Who the token acts for (shown by login/logout). */
  user?: string;
}

interface CredentialsFile {
  credentials: Credential[];
}

export function configDir(env: Env = process.env): string {
  if (env.KEELSON_CONFIG_DIR) return env.KEELSON_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'keelson');
}

export function credentialsPath(env: Env = process.env): string {
  return join(configDir(env), 'credentials.json');
}

/** `http://Host:80/console/` → `http://host/console`: one key per console however its URL is typed. */
export function normaliseServer(server: string): string {
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    throw new Error(`"${server}" is not a URL (e.g. http://localhost:3000)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`"${server}" is not an http(s) URL`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

export function readCredentials(env: Env = process.env): Credential[] {
  const p = credentialsPath(env);
  if (!existsSync(p)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(p, 'utf8'));
  } catch (e) {
    throw new Error(`${p} is not valid JSON (${(e as Error).message}); delete it and run keelson login again`);
  }
  const list = (parsed as Partial<CredentialsFile> | null)?.credentials;
  if (!Array.isArray(list)) return [];
  return list.filter((c): c is Credential => typeof c?.server === 'string' && typeof c?.token === 'string');
}

function writeCredentials(list: Credential[], env: Env): string {
  const dir = configDir(env);
  const p = credentialsPath(env);
  if (list.length === 0) {
    rmSync(p, { force: true });
    return p;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // A new file, 0600 from its first byte, renamed over the old one: never a moment with the token readable by others.
  const tmp = `${p}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ credentials: list } satisfies CredentialsFile, null, 2) + '\n', { mode: 0o600, flag: 'w' });
  chmodSync(tmp, 0o600);
  renameSync(tmp, p);
  return p;
}

export function findCredential(server: string, env: Env = process.env): Credential | undefined {
  const key = normaliseServer(server);
  return readCredentials(env).find((c) => c.server === key);
}

/** Save (or replace) the token for `c.server`; returns the file's path. */
export function saveCredential(c: Credential, env: Env = process.env): string {
  const key = normaliseServer(c.server);
  const rest = readCredentials(env).filter((x) => x.server !== key);
  return writeCredentials([...rest, { ...c, server: key }], env);
}

/** Forget the token for `server`; returns it, or undefined when there was none. */
export function removeCredential(server: string, env: Env = process.env): Credential | undefined {
  const key = normaliseServer(server);
  const all = readCredentials(env);
  const found = all.find((c) => c.server === key);
  if (found) writeCredentials(all.filter((c) => c.server !== key), env);
  return found;
}
