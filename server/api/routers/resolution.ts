import { claimInput, claimOutput, claimsInput, claimsOutput } from '../../services/resolution.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

export const resolutionRouter = createTRPCRouter({
  /** Claims' outcomes and counts of a generation (instances are summarised, not sent). */
  claims: protectedProcedure
    .input(claimsInput)
    .output(claimsOutput)
    .query(({ ctx, input }) => ctx.services.claims.list(ctx.actor, input)),

  /** One claim with its decision trace and its (redacted) instances. */
  claim: protectedProcedure
    .input(claimInput)
    .output(claimOutput)
    .query(({ ctx, input }) => ctx.services.claims.get(ctx.actor, input)),
});
