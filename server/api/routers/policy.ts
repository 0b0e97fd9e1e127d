import {
  applyTextInput,
  deleteInput,
  deleteTextInput,
  diffInput,
  diffOutput,
  generationOutput,
  getGenerationInput,
  getObjectInput,
  headOutput,
  listGenerationsInput,
  listGenerationsOutput,
  listObjectsInput,
  objectListingOutput,
  objectOutput,
  saveObjectInput,
  saveObjectOutput,
  schemasOutput,
  writeOutput,
} from '../../services/policy.types';
import { noInput } from '../../services/common.types';
import { createTRPCRouter, protectedProcedure, publicProcedure } from '../trpc';

export const policyRouter = createTRPCRouter({
  head: protectedProcedure.input(noInput).output(headOutput).query(({ ctx }) => ctx.services.policy.head(ctx.actor)),

  list: protectedProcedure
    .input(listObjectsInput)
    .output(objectListingOutput)
    .query(({ ctx, input }) => ctx.services.policy.listObjects(ctx.actor, input)),

  get: protectedProcedure
    .input(getObjectInput)
    .output(objectOutput)
    .query(({ ctx, input }) => ctx.services.policy.getObject(ctx.actor, input, input.generation)),

  applyText: protectedProcedure
    .input(applyTextInput)
    .output(writeOutput)
    .mutation(({ ctx, input }) => ctx.services.policy.apply(ctx.actor, input)),

  save: protectedProcedure
    .input(saveObjectInput)
    .output(saveObjectOutput)
    .mutation(({ ctx, input }) => ctx.services.policy.saveObject(ctx.actor, input)),

  delete: protectedProcedure
    .input(deleteInput)
    .output(writeOutput)
    .mutation(({ ctx, input }) => ctx.services.policy.delete(ctx.actor, input)),

  deleteText: protectedProcedure
    .input(deleteTextInput)
    .output(writeOutput)
    .mutation(({ ctx, input }) => ctx.services.policy.deleteText(ctx.actor, input)),

  generations: protectedProcedure
    .input(listGenerationsInput)
    .output(listGenerationsOutput)
    .query(({ ctx, input }) => ctx.services.policy.listGenerations(ctx.actor, input)),

  generation: protectedProcedure
    .input(getGenerationInput)
    .output(generationOutput)
    .query(({ ctx, input }) => ctx.services.policy.getGeneration(ctx.actor, input.generation)),

  diff: protectedProcedure
    .input(diffInput)
    .output(diffOutput)
    .query(({ ctx, input }) => ctx.services.policy.diff(ctx.actor, input.from, input.to)),

  /** JSON Schemas describe the language, not anyone's data: no sign-in needed. */
  schemas: publicProcedure.input(noInput).output(schemasOutput).query(({ ctx }) => ctx.services.policy.schemas()),
});
