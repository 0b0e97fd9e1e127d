/**
 * tRPC setup: context, error formatting and procedure types.
 *
 * 1. CONTEXT — who is asking (`actor`, null when anonymous) and the services.
 * 2. ERRORS — AppError codes become tRPC codes through one table; the
 *    diagnostics of bad input travel in `error.data.diagnostics` so the
 *    editor can place markers.
 * 3. PROCEDURES — `publicProcedure`, and `protectedProcedure`, which refuses
 *    anonymous callers and narrows `ctx.actor` to non-null. Finer rights are
 *    checked inside services, which know what is being touched.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { Diagnostic } from '../engine/diagnostics';
import type { Actor } from '../services/actor';
import { dbUnavailableError } from '../db/unavailable';
import { isAppError } from '../errors';
import type { Services } from '../services';
import { APP_ERROR_TO_TRPC } from './errors';
import { wire } from './wire';

export interface TrpcContext {
  actor: Actor | null;
  services: Services;
}

const t = initTRPC.context<TrpcContext>().create({
  // superjson's form, written in one plain pass (wire.ts): clients read it with superjson.
  transformer: wire,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const app = isAppError(cause) ? cause : undefined;
    return {
      ...shape,
      data: {
        ...shape.data,
        // Stack traces stay on the server.
        stack: undefined,
        appCode: app?.code,
        diagnostics: app?.diagnostics as Diagnostic[] | undefined,
        details: app?.details,
        zodError: cause instanceof ZodError ? cause.issues.map((i) => ({ path: i.path.map(String), message: i.message })) : undefined,
      },
    };
  },
});

/** Turn domain errors into tRPC errors (one place, one table); a database outage is one (UNAVAILABLE), not an internal error. */
const appErrors = t.middleware(async ({ next }) => {
  const res = await next();
  const app = res.ok ? undefined : isAppError(res.error.cause) ? res.error.cause : dbUnavailableError(res.error.cause);
  if (app) throw new TRPCError({ code: APP_ERROR_TO_TRPC[app.code].trpc, message: app.message, cause: app });
  return res;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(appErrors);
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.actor) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first.' });
  return next({ ctx: { ...ctx, actor: ctx.actor } });
});
