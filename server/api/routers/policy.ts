import { z } from 'zod';
import { MAX_REQUEST_BYTES } from '../../engine/model/kinds';
import { createTRPCRouter, protectedProcedure, publicProcedure } from '../trpc';

const objectId = z.object({ kind: z.string().min(1).max(64), namespace: z.string().min(1).max(64), name: z.string().min(1).max(64) });
const generation = z.number().int().min(0);
const yamlText = z.string().max(MAX_REQUEST_BYTES, 'the request is over the limit of 10 MiB');
const message = z.string().max(2000).optional();

export const policyRouter = createTRPCRouter({
  head: protectedProcedure.query(({ ctx }) => ctx.services.policy.head(ctx.actor)),

  list: protectedProcedure
    .input(
      z.object({
        generation: generation.optional(),
        kind: z.string().max(64).optional(),
        namespace: z.string().max(64).optional(),
        search: z.string().max(200).optional(),
      }),
    )
    .query(({ ctx, input }) => ctx.services.policy.listObjects(ctx.actor, input)),

  get: protectedProcedure
    .input(objectId.extend({ generation: generation.optional() }))
    .query(({ ctx, input }) => ctx.services.policy.getObject(ctx.actor, input, input.generation)),

  applyText: protectedProcedure
    .input(z.object({ text: yamlText, baseGeneration: generation, message, accept: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.policy.apply(ctx.actor, input)),

  save: protectedProcedure
    .input(z.object({ id: objectId.optional(), text: yamlText, baseGeneration: generation, message, accept: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.policy.saveObject(ctx.actor, input)),

  delete: protectedProcedure
    .input(z.object({ ids: z.array(objectId).min(1).max(10000), baseGeneration: generation, message, accept: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.policy.delete(ctx.actor, input)),

  deleteText: protectedProcedure
    .input(z.object({ text: yamlText, baseGeneration: generation, message, accept: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.policy.deleteText(ctx.actor, input)),

  generations: protectedProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).optional(), before: generation.optional() }))
    .query(({ ctx, input }) => ctx.services.policy.listGenerations(ctx.actor, input)),

  generation: protectedProcedure
    .input(z.object({ generation }))
    .query(({ ctx, input }) => ctx.services.policy.getGeneration(ctx.actor, input.generation)),

  diff: protectedProcedure
    .input(z.object({ from: generation, to: generation }))
    .query(({ ctx, input }) => ctx.services.policy.diff(ctx.actor, input.from, input.to)),

  /** JSON Schemas describe the language, not anyone's data: no sign-in needed. */
  schemas: publicProcedure.query(({ ctx }) => ctx.services.policy.schemas()),
});
