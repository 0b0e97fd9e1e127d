/**
 * `keelson login --server URL` and `keelson logout`: trade a local user's
 * name and password for an API token (POST /api/1.0-beta/auth/token) and
 * keep it in the credentials file, so later commands need no password;
 * logout revokes that token on the server when it can and forgets it.
 *
 * Exit codes: 0 success, 1 refused or unreachable (one line says why), 2 usage.
 */
import { createInterface } from 'node:readline';
import { API_PREFIX } from '../rest/dispatch';
import { parse, UsageError } from './args';
import { credentialsPath, findCredential, normaliseServer, readCredentials, removeCredential, saveCredential, type Env } from './credentials';
import type { Io } from './main';

export const LOGIN_HELP = `Usage: keelson login --server URL [--user NAME]

Sign in to a console as a local user and save an API token for it (30 days)
in $KEELSON_CONFIG_DIR/credentials.json (default ~/.config/keelson/, mode 0600).
Later commands against that console use the token when KEELSON_USER and
KEELSON_PASSWORD are not set.
  --server URL   the console (default: KEELSON_SERVER)
  --user NAME    the user name (default: KEELSON_USER, else asked)
The password comes from KEELSON_PASSWORD, else it is asked without echo.
`;

export const LOGOUT_HELP = `Usage: keelson logout [--server URL]

Revoke the saved token on the console (when it answers) and remove it from
the credentials file. Without --server: KEELSON_SERVER, or the only console
you are logged in to.
`;

/** Where prompts read and write; tests pass their own. */
export interface Terminal {
  isTTY: boolean;
  ask(question: string): Promise<string>;
  askHidden(question: string): Promise<string>;
}

class Interrupted extends Error {}

export const processTerminal: Terminal = {
  get isTTY() {
    return Boolean(process.stdin.isTTY);
  },
  ask(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    return new Promise((resolve, reject) => {
      rl.on('SIGINT', () => {
        rl.close();
        reject(new Interrupted());
      });
      rl.question(question, (answer) => {
        rl.close();
        resolve(answer);
      });
    });
  },
  askHidden(question) {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.resume();
    return new Promise((resolve, reject) => {
      let value = '';
      const done = () => {
        stdin.off('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
        process.stderr.write('\n');
      };
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            done();
            resolve(value);
            return;
          }
          if (ch === '\u0003') {
            done();
            reject(new Interrupted());
            return;
          }
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
      };
      stdin.on('data', onData);
    });
  },
};

const TIMEOUT_MS = 30_000;

/** Why a request did not reach the server, in a few words (ECONNREFUSED, a DNS failure, a timeout). */
function unreachable(base: string, e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const why = err.name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS / 1000} s` : (err.cause?.code ?? err.cause?.message ?? err.message);
  return `cannot reach ${base}: ${why}`;
}

async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { content?: { message?: string } };
    return body.content?.message ?? res.statusText;
  } catch {
    return res.statusText;
  }
}

/** The console to talk to: --server, else KEELSON_SERVER, else (for logout) the only one with a saved token. */
function serverOf(given: string | undefined, env: Env, allowSaved: boolean): string {
  const raw = given ?? env.KEELSON_SERVER;
  if (raw) {
    try {
      return normaliseServer(raw);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  if (allowSaved) {
    const saved = readCredentials(env);
    if (saved.length === 1) return saved[0]!.server;
    if (saved.length > 1) throw new UsageError(`you are logged in to ${saved.length} consoles (${saved.map((c) => c.server).join(', ')}): name one with --server URL`);
    throw new UsageError('you are not logged in to any console');
  }
  throw new UsageError('name the console with --server URL (or KEELSON_SERVER)');
}

export async function loginCommand(argv: string[], io: Io, env: Env = process.env, term: Terminal = processTerminal): Promise<number> {
  let base: string;
  let userOpt: string | undefined;
  try {
    const p = parse(argv, { server: { type: 'string' }, user: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
    if (p.values.help) {
      io.out(LOGIN_HELP);
      return 0;
    }
    if (p.positionals.length > 0) throw new UsageError(`unexpected argument "${p.positionals[0]}"`);
    base = serverOf(p.values.server, env, false);
    userOpt = p.values.user;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson: ${e.message}\n\n${LOGIN_HELP}`);
      return 2;
    }
    throw e;
  }

  let user = userOpt ?? env.KEELSON_USER;
  let password = env.KEELSON_PASSWORD;
  try {
    if (!user) {
      if (!term.isTTY) return usageLine(io, 'no user name: pass --user NAME or set KEELSON_USER (stdin is not a terminal to ask on)');
      user = (await term.ask('User name: ')).trim();
      if (!user) return usageLine(io, 'no user name given');
    }
    if (!password) {
      if (!term.isTTY) return usageLine(io, 'no password: set KEELSON_PASSWORD (stdin is not a terminal to ask on)');
      password = await term.askHidden(`Password for ${user}: `);
      if (!password) return usageLine(io, 'no password given');
    }
  } catch (e) {
    if (e instanceof Interrupted) {
      io.err('keelson: login cancelled\n');
      return 1;
    }
    throw e;
  }

  let res: Response;
  try {
    res = await fetch(`${base}${API_PREFIX}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: user, password }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (e) {
    io.err(`keelson: ${unreachable(base, e)}\n`);
    return 1;
  }
  if (res.status === 401) {
    io.err(`keelson: sign-in as ${user} failed: wrong user name or password\n`);
    return 1;
  }
  if (res.status === 429) {
    const wait = res.headers.get('retry-after');
    io.err(`keelson: sign-in as ${user} refused: too many failed attempts; try again in ${wait ?? 'a while'}${wait ? ' s' : ''}\n`);
    return 1;
  }
  if (res.status === 404) {
    io.err(`keelson: ${base} has no ${API_PREFIX}/auth/token endpoint (is it a Keelson console?)\n`);
    return 1;
  }
  if (!res.ok) {
    io.err(`keelson: sign-in as ${user} failed: ${base} answered ${res.status}: ${await errorText(res)}\n`);
    return 1;
  }
  let data: { token?: unknown; expiresAt?: unknown };
  try {
    data = ((await res.json()) as { data?: typeof data }).data ?? {};
  } catch {
    data = {};
  }
  if (typeof data.token !== 'string') {
    io.err(`keelson: ${base} answered without a token (is it a Keelson console?)\n`);
    return 1;
  }
  const expiresAt = typeof data.expiresAt === 'string' ? data.expiresAt : null;
  const file = saveCredential({ server: base, token: data.token, expiresAt, user }, env);
  io.out(`Logged in to ${base} as ${user}. Token saved in ${file}${expiresAt ? `; it expires on ${expiresAt.slice(0, 10)}` : ''}.\n`);
  return 0;
}

function usageLine(io: Io, msg: string): number {
  io.err(`keelson: ${msg}\n\n${LOGIN_HELP}`);
  return 2;
}

/** Revoke `token` on the server: find its id by prefix among the caller's tokens, then DELETE it. Returns why not, or null when done. */
async function revokeOnServer(base: string, token: string): Promise<string | null> {
  const auth = { authorization: `Bearer ${token}`, accept: 'application/json' };
  try {
    const list = await fetch(`${base}${API_PREFIX}/user/token`, { headers: auth, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (list.status === 401) return 'the server no longer accepts it (revoked or expired)';
    if (!list.ok) return `${base} answered ${list.status}: ${await errorText(list)}`;
    const prefix = token.slice('kst_'.length, 'kst_'.length + 8);
    const tokens = ((await list.json()) as { data: { id: number; prefix: string; revokedAt: string | null }[] }).data;
    const mine = tokens.find((t) => t.prefix === prefix && !t.revokedAt);
    if (!mine) return 'it is not among your tokens there';
    const del = await fetch(`${base}${API_PREFIX}/user/token/${mine.id}`, { method: 'DELETE', headers: auth, signal: AbortSignal.timeout(TIMEOUT_MS) });
    return del.ok ? null : `${base} answered ${del.status}: ${await errorText(del)}`;
  } catch (e) {
    return unreachable(base, e);
  }
}

export async function logoutCommand(argv: string[], io: Io, env: Env = process.env): Promise<number> {
  let base: string;
  try {
    const p = parse(argv, { server: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
    if (p.values.help) {
      io.out(LOGOUT_HELP);
      return 0;
    }
    if (p.positionals.length > 0) throw new UsageError(`unexpected argument "${p.positionals[0]}"`);
    base = serverOf(p.values.server, env, true);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson: ${e.message}\n\n${LOGOUT_HELP}`);
      return 2;
    }
    throw e;
  }
  const saved = findCredential(base, env);
  if (!saved) {
    io.out(`Not logged in to ${base}; nothing to do.\n`);
    return 0;
  }
  const notRevoked = await revokeOnServer(base, saved.token);
  removeCredential(base, env);
  const file = credentialsPath(env);
  if (notRevoked === null) io.out(`Logged out of ${base}: the token was revoked there and removed from ${file}.\n`);
  else io.out(`Logged out of ${base}: the token was removed from ${file}, but not revoked there (${notRevoked}).\n`);
  return 0;
}
