import {
  byGenerationInput,
  byGenerationOutput,
  decideInput,
  decideOutput,
  getRevisionInput,
  instanceDiffInput,
  instanceDiffOutput,
  listRevisionsInput,
  listRevisionsOutput,
  previewInput,
  previewOutput,
  restoreOutput,
  revertInput,
  revisionEventsInput,
  revisionEventsOutput,
  revisionOutput,
  rollbackInput,
} from '../../services/revisions.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

export const revisionsRouter = createTRPCRouter({
  list: protectedProcedure
    .input(listRevisionsInput)
    .output(listRevisionsOutput)
    .query(({ ctx, input }) => ctx.services.revisions.list(ctx.actor, input)),

  get: protectedProcedure
    .input(getRevisionInput)
    .output(revisionOutput)
    .query(({ ctx, input }) => ctx.services.revisions.get(ctx.actor, input.id)),

  /** Events after `afterId`, for live progress. */
  events: protectedProcedure
    .input(revisionEventsInput)
    .output(revisionEventsOutput)
    .query(({ ctx, input }) => ctx.services.revisions.events(ctx.actor, input.id, input.afterId)),

  byGeneration: protectedProcedure
    .input(byGenerationInput)
    .output(byGenerationOutput)
    .query(({ ctx, input }) => ctx.services.revisions.byGeneration(ctx.actor, input.generation, { wait: input.wait })),

  decide: protectedProcedure
    .input(decideInput)
    .output(decideOutput)
    .mutation(({ ctx, input }) => ctx.services.revisions.decide(ctx.actor, input)),

  rollback: protectedProcedure
    .input(rollbackInput)
    .output(restoreOutput)
    .mutation(({ ctx, input }) => ctx.services.revisions.rollback(ctx.actor, input)),

  revert: protectedProcedure
    .input(revertInput)
    .output(restoreOutput)
    .mutation(({ ctx, input }) => ctx.services.revisions.revert(ctx.actor, input)),

  instanceDiff: protectedProcedure
    .input(instanceDiffInput)
    .output(instanceDiffOutput)
    .query(({ ctx, input }) => ctx.services.revisions.instanceDiff(ctx.actor, input)),

  preview: protectedProcedure
    .input(previewInput)
    .output(previewOutput)
    .query(({ ctx, input }) => ctx.services.revisions.preview(ctx.actor, input)),
});
