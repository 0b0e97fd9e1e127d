/**
 * Talking to a running console: sign in through next-auth's credentials
 * endpoint (KEELSON_USER / KEELSON_PASSWORD, local users) and call the same
 * tRPC procedures the browser uses with the session cookie — or, without
 * those variables, with the API token `keelson login` saved for that
 * console, as `Authorization: Bearer`.
 */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '../api/root';
import { findCredential, normaliseServer, readCredentials } from './credentials';
import { formatDiagnostic, type Diagnostic } from '../engine/diagnostics';

export type Client = ReturnType<typeof createTRPCClient<AppRouter>>;

export class RemoteError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** Cookie jar of one session (next-auth sets a CSRF and a session cookie). */
class Cookies {
  private readonly jar = new Map<string, string>();
  take(res: Response) {
    const all = (res.headers as Headers & { getSetCookie?: () => string[] }).getSetCookie?.() ?? [];
    for (const c of all) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      if (i > 0) this.jar.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
    }
  }
  header(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export async function connect(server: string | undefined, env: Record<string, string | undefined> = process.env): Promise<Client> {
  let base = (server ?? env.KEELSON_SERVER ?? '').replace(/\/$/, '');
  const user = env.KEELSON_USER;
  const password = env.KEELSON_PASSWORD;
  if (!base && !(user && password)) {
    // Logged in to exactly one console: that one.
    const saved = readCredentials(env);
    if (saved.length === 1) base = saved[0]!.server;
  }
  if (!base) throw new RemoteError('name the console with --server URL (or KEELSON_SERVER)', 2);
  if (!user || !password) return tokenClient(base, env);
  const cookies = new Cookies();
  let res: Response;
  try {
    res = await fetch(`${base}/api/auth/csrf`);
  } catch (e) {
    throw new RemoteError(`cannot reach ${base}: ${(e as Error).message}`);
  }
  cookies.take(res);
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  res = await fetch(`${base}/api/auth/callback/local`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.header() },
    body: new URLSearchParams({ csrfToken, username: user, password, json: 'true' }),
  });
  cookies.take(res);
  if (res.status >= 400 || !cookies.header().includes('session-token')) throw new RemoteError(`sign-in as ${user} failed: wrong user name or password`);
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers: () => ({ cookie: cookies.header() }) })],
  });
}

/** A client that sends the token `keelson login` saved for `base`. */
function tokenClient(base: string, env: Record<string, string | undefined>): Client {
  let key: string;
  try {
    key = normaliseServer(base);
  } catch (e) {
    throw new RemoteError((e as Error).message, 2);
  }
  const saved = findCredential(key, env);
  if (!saved) throw new RemoteError(`not logged in to ${key}: run keelson login --server ${key}, or set KEELSON_USER and KEELSON_PASSWORD`, 2);
  if (saved.expiresAt && new Date(saved.expiresAt).getTime() <= Date.now()) {
    throw new RemoteError(`the token saved for ${key} expired on ${saved.expiresAt.slice(0, 10)}: run keelson login --server ${key} again`);
  }
  const authorization = `Bearer ${saved.token}`;
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${key}/api/trpc`, transformer: superjson, headers: () => ({ authorization }) })],
  });
}

/** A tRPC error as one line for the terminal. */
export function describeError(e: unknown): string {
  if (e instanceof TRPCClientError) {
    const data = e.data as { code?: string; diagnostics?: Diagnostic[] } | undefined;
    const cause = e.cause as (Error & { cause?: { code?: string } }) | undefined;
    // The server was never reached (the token path connects on the first call).
    if (!data && cause instanceof TypeError && cause.message === 'fetch failed') return `cannot reach the console: ${cause.cause?.code ?? cause.message}`;
    if (data?.code === 'UNAUTHORIZED') return `${e.message} (run keelson login --server URL again, or set KEELSON_USER and KEELSON_PASSWORD)`;
    const lines = [e.message];
    // The text's line where the server read it from the text sent; else the object and field it found it in.
    for (const d of data?.diagnostics ?? []) {
      if (d.line) lines.push(`  line ${d.line}:${d.column}: ${d.message}`);
      else if (d.object) lines.push(`  ${formatDiagnostic(d)}`);
    }
    return lines.join('\n');
  }
  return (e as Error).message ?? String(e);
}
