import { noInput } from '../../services/common.types';
import { profileOutput } from '../../services/users.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

export const usersRouter = createTRPCRouter({
  me: protectedProcedure.input(noInput).output(profileOutput).query(({ ctx }) => ctx.services.users.profile(ctx.actor)),
});
