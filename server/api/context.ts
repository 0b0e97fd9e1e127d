/** Builds the tRPC context of an HTTP request from a bearer API token or its next-auth session. */
import { TRPCError } from '@trpc/server';
import { getServerSession } from 'next-auth';
import { dbUnavailableError } from '../db/unavailable';
import { actorFromSession, authOptions } from '../console-auth';
import { getRuntime } from '../runtime';
import { APP_ERROR_TO_TRPC } from './errors';
import { contextForRequest } from './request-context';
import type { TrpcContext } from './trpc';

export async function createRequestContext(opts?: { req: Request }): Promise<TrpcContext> {
  try {
    const rt = await getRuntime();
    return await contextForRequest(opts?.req, rt.services, async () => actorFromSession(await getServerSession(authOptions())), () => rt.env.authUrl);
  } catch (e) {
    // Booting and reading API tokens need the database: down, it is a 503 (as in the procedures), not a 500.
    const down = dbUnavailableError(e);
    if (down) throw new TRPCError({ code: APP_ERROR_TO_TRPC.UNAVAILABLE.trpc, message: down.message, cause: down });
    throw e;
  }
}
