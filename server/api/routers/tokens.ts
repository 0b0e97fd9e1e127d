import { noInput } from '../../services/common.types';
import { createTokenInput, newTokenOutput, revokeTokenInput, tokenOutput } from '../../services/tokens.types';
import { z } from 'zod';
import { createTRPCRouter, protectedProcedure } from '../trpc';

/** The caller's API tokens: list (never their values), create (the value, once), revoke. */
export const tokensRouter = createTRPCRouter({
  list: protectedProcedure.input(noInput).output(z.array(tokenOutput)).query(({ ctx }) => ctx.services.tokens.list(ctx.actor)),
  create: protectedProcedure.input(createTokenInput).output(newTokenOutput).mutation(({ ctx, input }) => ctx.services.tokens.create(ctx.actor, input)),
  revoke: protectedProcedure.input(revokeTokenInput).output(tokenOutput).mutation(({ ctx, input }) => ctx.services.tokens.revoke(ctx.actor, input.id)),
});
