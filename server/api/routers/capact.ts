import { noInput } from '../../services/common.types';
import { interfacesOutput, tryItInput, tryItOutput } from '../../services/capact.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

/** Capact on the stored Hub: the Interfaces there, and which Implementation one resolves to (optionally under a draft policy). */
export const capactRouter = createTRPCRouter({
  interfaces: protectedProcedure.input(noInput).output(interfacesOutput).query(({ ctx }) => ctx.services.capact.interfaces(ctx.actor)),
  tryIt: protectedProcedure.input(tryItInput).output(tryItOutput).query(({ ctx, input }) => ctx.services.capact.tryIt(ctx.actor, input)),
});
