import { z } from 'zod';
import { createTRPCRouter, protectedProcedure } from '../trpc';

const generation = z.number().int().min(0);
const name = z.string().min(1).max(64);

export const resolutionRouter = createTRPCRouter({
  /** Claims' outcomes and counts of a generation (instances are summarised, not sent). */
  claims: protectedProcedure.input(z.object({ generation: generation.optional() })).query(async ({ ctx, input }) => {
    const r = await ctx.services.resolution.get(ctx.actor, input.generation);
    return {
      generation: r.generation,
      durationMs: r.durationMs,
      counts: { total: r.claimsTotal, resolved: r.claimsResolved, rejected: r.claimsRejected, error: r.claimsError, instances: r.instances },
      claims: r.state.claims.map(({ trace: _t, ...c }) => ({ ...c, instanceCount: c.instances.length })),
    };
  }),

  claim: protectedProcedure
    .input(z.object({ namespace: name, name, generation: generation.optional() }))
    .query(async ({ ctx, input }) => {
      const { generation: gen, outcome } = await ctx.services.resolution.claim(ctx.actor, input);
      const r = await ctx.services.resolution.get(ctx.actor, gen);
      const mine = new Set(outcome.instances);
      const instances = await ctx.services.access.redactSensitive(ctx.actor, r.state.instances.filter((i) => mine.has(i.key)));
      return { generation: gen, outcome, instances };
    }),
});
