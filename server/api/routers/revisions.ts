import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { MAX_REQUEST_BYTES } from '../../engine/model/kinds';
import type { Services } from '../../services';
import { createTRPCRouter, protectedProcedure } from '../trpc';

const id = z.number().int().min(1);
const comment = z.string().max(2000).optional();

function svc(s: Services) {
  if (!s.revisions) throw new TRPCError({ code: 'NOT_IMPLEMENTED', message: 'Revisions need the database.' });
  return s.revisions;
}

export const revisionsRouter = createTRPCRouter({
  list: protectedProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).optional(), before: id.optional() }))
    .query(({ ctx, input }) => svc(ctx.services).list(ctx.actor, input)),

  get: protectedProcedure.input(z.object({ id })).query(({ ctx, input }) => svc(ctx.services).get(ctx.actor, input.id)),

  /** Events after `afterId`, for live progress. */
  events: protectedProcedure
    .input(z.object({ id, afterId: z.number().int().min(0).optional() }))
    .query(({ ctx, input }) => svc(ctx.services).events(ctx.actor, input.id, input.afterId)),

  byGeneration: protectedProcedure
    .input(z.object({ generation: z.number().int().min(1), wait: z.boolean().optional() }))
    .query(({ ctx, input }) => svc(ctx.services).byGeneration(ctx.actor, input.generation, { wait: input.wait })),

  decide: protectedProcedure
    .input(z.object({ revisionId: id, namespace: z.string().min(1).max(64).optional(), decision: z.enum(['accept', 'reject']), comment }))
    .mutation(({ ctx, input }) => svc(ctx.services).decide(ctx.actor, input)),

  rollback: protectedProcedure.input(z.object({ revisionId: id })).mutation(({ ctx, input }) => svc(ctx.services).rollback(ctx.actor, input)),

  revert: protectedProcedure.input(z.object({ revisionId: id })).mutation(({ ctx, input }) => svc(ctx.services).revert(ctx.actor, input)),

  instanceDiff: protectedProcedure
    .input(z.object({ revisionId: id, key: z.string().min(1).max(2000) }))
    .query(({ ctx, input }) => svc(ctx.services).instanceDiff(ctx.actor, input)),

  preview: protectedProcedure
    .input(z.object({ text: z.string().max(MAX_REQUEST_BYTES) }))
    .query(({ ctx, input }) => svc(ctx.services).preview(ctx.actor, input)),
});
