import {
  desiredGraphInput,
  desiredGraphOutput,
  graphInstanceInput,
  graphInstanceOutput,
  policyGraphInput,
  policyGraphOutput,
} from '../../services/graphs.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

export const graphsRouter = createTRPCRouter({
  policy: protectedProcedure
    .input(policyGraphInput)
    .output(policyGraphOutput)
    .query(({ ctx, input }) => ctx.services.graphs.policy(ctx.actor, input)),
  desired: protectedProcedure
    .input(desiredGraphInput)
    .output(desiredGraphOutput)
    .query(({ ctx, input }) => ctx.services.graphs.desired(ctx.actor, input)),
  instance: protectedProcedure
    .input(graphInstanceInput)
    .output(graphInstanceOutput)
    .query(({ ctx, input }) => ctx.services.graphs.instance(ctx.actor, input)),
});
