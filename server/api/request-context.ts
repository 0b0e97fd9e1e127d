/**
 * Who a tRPC request acts for: a bearer API token (`Authorization: Bearer
 * kst_…`, the CLI after `keelson login`, scripts) or, without that header,
 * the console's session. A header that is present but wrong — malformed, an
 * unknown, revoked or expired token — is 401 UNAUTHORIZED, never a silent
 * fall-back to anonymous. The same rule as the REST API (`bearerOrSession`).
 */
import { TRPCError } from '@trpc/server';
import { bearerOrSession } from '../rest';
import type { MaybeActor } from '../services/actor';
import type { Services } from '../services';
import type { TrpcContext } from './trpc';

export async function contextForRequest(req: Request | undefined, services: Services, session: () => Promise<MaybeActor>): Promise<TrpcContext> {
  if (!req) return { actor: await session(), services };
  const who = await bearerOrSession((raw) => services.tokens.authenticate(raw), session)(req);
  if ('refuse' in who) throw new TRPCError({ code: 'UNAUTHORIZED', message: who.refuse });
  return { actor: who.actor, services };
}
