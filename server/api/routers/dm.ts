import { z } from 'zod';
import { dmDeployment, dmManifest, dmTypeInstance } from '../../services/dm.types';
import { noInput } from '../../services/common.types';
import { createTRPCRouter, protectedProcedure } from '../trpc';

const ref = z.object({ namespace: z.string().min(1).max(64), name: z.string().min(1).max(64) });

/** Deployment Manager in the console: a deployment with its manifests and layout; types and where they are used. */
export const dmRouter = createTRPCRouter({
  deployment: protectedProcedure
    .input(ref.extend({ manifest: z.string().max(40).optional() }))
    .output(z.object({ deployment: dmDeployment, manifests: z.array(z.string()), manifest: dmManifest }))
    .query(({ ctx, input }) => ctx.services.dm.view(ctx.actor, `${input.namespace}/${input.name}`, input.manifest)),
  types: protectedProcedure.input(noInput).output(z.array(dmTypeInstance)).query(({ ctx }) => ctx.services.dm.typeInstances(ctx.actor, 'all')),
});
