/**
 * Sign-in as the console runs it: next-auth's options (auth/options.ts)
 * over the process's runtime, and the acting user of a request's session.
 * Here, beside runtime.ts, because it needs the services the runtime
 * builds; auth/ sits below the services and is handed them.
 */
import type { NextAuthOptions } from 'next-auth';
import { buildAuthOptions, sessionActor } from './auth/options';
import { env } from './env';
import { getRuntime } from './runtime';
import type { Actor } from './services/actor';

let cached: NextAuthOptions | undefined;

/** The console's next-auth options, over the process's runtime. */
export function authOptions(): NextAuthOptions {
  cached ??= buildAuthOptions(env(), async () => (await getRuntime()).services);
  return cached;
}

/** The acting user of a session, with current labels; null when anonymous or when the session has ended. */
export async function actorFromSession(session: unknown): Promise<Actor | null> {
  if (!session) return null;
  return sessionActor((await getRuntime()).services, session);
}
