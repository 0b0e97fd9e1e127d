import { noInput } from '../../services/common.types';
import { endSessionsInput, endSessionsOutput } from '../../services/sessions.types';
import { profileOutput } from '../../services/users.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

export const usersRouter = createTRPCRouter({
  me: protectedProcedure.input(noInput).output(profileOutput).query(({ ctx }) => ctx.services.users.profile(ctx.actor)),
  /** End every console session of a user (domain admins; anyone for themselves). */
  endSessions: protectedProcedure.input(endSessionsInput).output(endSessionsOutput).mutation(({ ctx, input }) => ctx.services.sessions.revoke(ctx.actor, input)),
});
