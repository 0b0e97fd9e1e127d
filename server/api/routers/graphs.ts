import { z } from 'zod';
import { createTRPCRouter, protectedProcedure } from '../trpc';

const generation = z.number().int().min(0).optional();

export const graphsRouter = createTRPCRouter({
  policy: protectedProcedure.input(z.object({ generation })).query(({ ctx, input }) => ctx.services.graphs.policy(ctx.actor, input)),
  desired: protectedProcedure
    .input(z.object({ generation, revisionId: z.number().int().min(1).optional() }))
    .query(({ ctx, input }) => ctx.services.graphs.desired(ctx.actor, input)),
  instance: protectedProcedure
    .input(z.object({ key: z.string().min(1).max(2000), generation }))
    .query(({ ctx, input }) => ctx.services.graphs.instance(ctx.actor, input)),
});
