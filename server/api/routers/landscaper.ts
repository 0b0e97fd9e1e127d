import { scopeGraphOutput, scopesInput } from '../../services/landscaper.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

/** Landscaper: the scope graph of the installations in the newest policy generation. */
export const landscaperRouter = createTRPCRouter({
  scopes: protectedProcedure.input(scopesInput).output(scopeGraphOutput).query(({ ctx, input }) => ctx.services.landscaper.scopes(ctx.actor, input)),
});
