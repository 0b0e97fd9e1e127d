/** Builds the tRPC context of an HTTP request from a bearer API token or its next-auth session. */
import { getServerSession } from 'next-auth';
import { actorFromSession, authOptions } from '../auth/options';
import { getRuntime } from '../runtime';
import { contextForRequest } from './request-context';
import type { TrpcContext } from './trpc';

export async function createRequestContext(opts?: { req: Request }): Promise<TrpcContext> {
  const rt = await getRuntime();
  return contextForRequest(opts?.req, rt.services, async () => actorFromSession(await getServerSession(authOptions())));
}
