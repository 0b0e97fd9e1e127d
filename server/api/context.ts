/** Builds the tRPC context of an HTTP request from its next-auth session. */
import { getServerSession } from 'next-auth';
import { actorFromSession, authOptions } from '../auth/options';
import { getRuntime } from '../runtime';
import type { TrpcContext } from './trpc';

export async function createRequestContext(): Promise<TrpcContext> {
  const rt = await getRuntime();
  const session = await getServerSession(authOptions());
  return { actor: await actorFromSession(session), services: rt.services };
}
