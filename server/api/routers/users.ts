import { createTRPCRouter, protectedProcedure } from '../trpc';

export const usersRouter = createTRPCRouter({
  me: protectedProcedure.query(({ ctx }) => ctx.services.users.profile(ctx.actor)),
});
