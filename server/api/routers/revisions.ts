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
  PLAN_FIRST_PAGE,
  planPageInput,
  planPageOutput,
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
    // The first page of the plan only: a revision may change 20,000 instances (the rest: planPage).
    .query(({ ctx, input }) => ctx.services.revisions.get(ctx.actor, input.id, { limit: PLAN_FIRST_PAGE })),

  /** One page of a revision's actions or steps, redacted as `get` redacts. */
  planPage: protectedProcedure
    .input(planPageInput)
    .output(planPageOutput)
    .query(({ ctx, input }) => ctx.services.revisions.planPage(ctx.actor, input)),

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
