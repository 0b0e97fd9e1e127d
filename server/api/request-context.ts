/**
 * Who a tRPC request acts for: a bearer API token (`Authorization: Bearer
 * kst_…`, the CLI after `keelson login`, scripts) or, without that header,
 * the console's session. A header that is present but wrong — malformed, an
 * unknown, revoked or expired token — is 401 UNAUTHORIZED, never a silent
 * fall-back to anonymous; a write through the session from another origin
 * is 403 FORBIDDEN (http/same-origin.ts). The same rules as the REST API
 * (`bearerOrSession`).
 */
import { TRPCError } from '@trpc/server';
import { bearerOrSession } from '../auth/bearer';
import { APP_ERROR_TO_TRPC } from './errors';
import type { MaybeActor } from '../services/actor';
import type { Services } from '../services';
import type { TrpcContext } from './trpc';

export async function contextForRequest(
  req: Request | undefined,
  services: Services,
  session: () => Promise<MaybeActor>,
  consoleUrl?: () => string,
): Promise<TrpcContext> {
  if (!req) return { actor: await session(), services };
  const who = await bearerOrSession((raw) => services.tokens.authenticate(raw), session, { consoleUrl })(req);
  if ('refuse' in who) throw new TRPCError({ code: APP_ERROR_TO_TRPC[who.code ?? 'UNAUTHORIZED'].trpc, message: who.refuse });
  return { actor: who.actor, services };
}
