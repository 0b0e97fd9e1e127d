/**
 * Talking to a running console: sign in through next-auth's credentials
 * endpoint (KEELSON_USER / KEELSON_PASSWORD, local users), then call the
 * same tRPC procedures the browser uses, with the session cookie.
 */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '../api/root';

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
  const base = (server ?? env.KEELSON_SERVER ?? '').replace(/\/$/, '');
  if (!base) throw new RemoteError('name the console with --server URL (or KEELSON_SERVER)', 2);
  const user = env.KEELSON_USER;
  const password = env.KEELSON_PASSWORD;
  if (!user || !password) throw new RemoteError('set KEELSON_USER and KEELSON_PASSWORD to sign in to the console', 2);
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

/** A tRPC error as one line for the terminal. */
export function describeError(e: unknown): string {
  if (e instanceof TRPCClientError) {
    const data = e.data as { code?: string; diagnostics?: { file?: string; line?: number; column?: number; message: string }[] } | undefined;
    const lines = [e.message];
    for (const d of data?.diagnostics ?? []) if (d.line) lines.push(`  line ${d.line}:${d.column}: ${d.message}`);
    return lines.join('\n');
  }
  return (e as Error).message ?? String(e);
}
