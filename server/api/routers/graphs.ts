import {
  desiredBucketInput,
  desiredBucketOutput,
  desiredGraphInput,
  desiredGraphOutput,
  desiredViewInput,
  desiredViewOutput,
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
  /** What the console draws: `desired`, budgeted and compact (≤ 2 MB whatever the size). */
  desiredView: protectedProcedure
    .input(desiredViewInput)
    .output(desiredViewOutput)
    .query(({ ctx, input }) => ctx.services.graphs.desiredView(ctx.actor, input)),
  /** One counted bucket of `desiredView` opened (a second, bounded request). */
  desiredBucket: protectedProcedure
    .input(desiredBucketInput)
    .output(desiredBucketOutput)
    .query(({ ctx, input }) => ctx.services.graphs.desiredBucket(ctx.actor, input)),
  instance: protectedProcedure
    .input(graphInstanceInput)
    .output(graphInstanceOutput)
    .query(({ ctx, input }) => ctx.services.graphs.instance(ctx.actor, input)),
});
