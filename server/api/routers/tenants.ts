import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { Services } from '../../services';
import { createTRPCRouter, protectedProcedure } from '../trpc';

const name = z.string().min(1).max(64);
const role = z.enum(['owner', 'admin', 'plain']);

function svc(s: Services) {
  if (!s.tenants) throw new TRPCError({ code: 'NOT_IMPLEMENTED', message: 'Tenants need the database.' });
  return s.tenants;
}

export const tenantsRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => svc(ctx.services).list(ctx.actor)),
  get: protectedProcedure.input(z.object({ name })).query(({ ctx, input }) => svc(ctx.services).get(ctx.actor, input.name)),
  create: protectedProcedure
    .input(z.object({ name, namespaces: z.array(name).max(100) }))
    .mutation(({ ctx, input }) => svc(ctx.services).create(ctx.actor, input)),
  addNamespace: protectedProcedure
    .input(z.object({ tenant: name, namespace: name }))
    .mutation(({ ctx, input }) => svc(ctx.services).addNamespace(ctx.actor, input)),
  invite: protectedProcedure
    .input(z.object({ tenant: name, user: z.string().min(1).max(200), role: role.default('plain') }))
    .mutation(({ ctx, input }) => svc(ctx.services).invite(ctx.actor, input)),
  myInvitations: protectedProcedure.query(({ ctx }) => svc(ctx.services).myInvitations(ctx.actor)),
  answer: protectedProcedure
    .input(z.object({ invitationId: z.number().int().min(1), accept: z.boolean(), role: role.optional() }))
    .mutation(({ ctx, input }) => svc(ctx.services).answer(ctx.actor, input)),
  changeRole: protectedProcedure
    .input(z.object({ tenant: name, user: z.string().min(1).max(200), role }))
    .mutation(({ ctx, input }) => svc(ctx.services).changeRole(ctx.actor, input)),
  removeMember: protectedProcedure
    .input(z.object({ tenant: name, user: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => svc(ctx.services).removeMember(ctx.actor, input)),
  remove: protectedProcedure.input(z.object({ tenant: name })).mutation(({ ctx, input }) => svc(ctx.services).remove(ctx.actor, input)),
  roleMap: protectedProcedure.query(({ ctx }) => svc(ctx.services).roleMap(ctx.actor)),
  myRoles: protectedProcedure.query(({ ctx }) => svc(ctx.services).myRoles(ctx.actor)),
});
