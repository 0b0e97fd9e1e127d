import {
  addNamespaceInput,
  answerInput,
  answerOutput,
  changeRoleInput,
  changeRoleOutput,
  createTenantInput,
  createTenantOutput,
  getTenantInput,
  inviteInput,
  inviteOutput,
  listTenantsOutput,
  myInvitationsOutput,
  myRolesOutput,
  okOutput,
  removeMemberInput,
  removeTenantInput,
  roleMapOutput,
  setRulesInput,
  tenantOutput,
} from '../../services/tenants.types';
import { noInput } from '../../services/common.types';
import { environmentOutput, tenantEnvironmentsInput } from '../../services/estate.types';
import { z } from 'zod';
import { createTRPCRouter, protectedProcedure } from '../trpc';

export const tenantsRouter = createTRPCRouter({
  list: protectedProcedure.input(noInput).output(listTenantsOutput).query(({ ctx }) => ctx.services.tenants.list(ctx.actor)),
  get: protectedProcedure.input(getTenantInput).output(tenantOutput).query(({ ctx, input }) => ctx.services.tenants.get(ctx.actor, input.name)),
  environments: protectedProcedure
    .input(tenantEnvironmentsInput)
    .output(z.array(environmentOutput))
    .query(({ ctx, input }) => ctx.services.estate.tenantEnvironments(ctx.actor, input)),
  create: protectedProcedure
    .input(createTenantInput)
    .output(createTenantOutput)
    .mutation(({ ctx, input }) => ctx.services.tenants.create(ctx.actor, input)),
  addNamespace: protectedProcedure
    .input(addNamespaceInput)
    .output(okOutput)
    .mutation(({ ctx, input }) => ctx.services.tenants.addNamespace(ctx.actor, input)),
  invite: protectedProcedure.input(inviteInput).output(inviteOutput).mutation(({ ctx, input }) => ctx.services.tenants.invite(ctx.actor, input)),
  myInvitations: protectedProcedure.input(noInput).output(myInvitationsOutput).query(({ ctx }) => ctx.services.tenants.myInvitations(ctx.actor)),
  answer: protectedProcedure.input(answerInput).output(answerOutput).mutation(({ ctx, input }) => ctx.services.tenants.answer(ctx.actor, input)),
  changeRole: protectedProcedure
    .input(changeRoleInput)
    .output(changeRoleOutput)
    .mutation(({ ctx, input }) => ctx.services.tenants.changeRole(ctx.actor, input)),
  removeMember: protectedProcedure
    .input(removeMemberInput)
    .output(okOutput)
    .mutation(({ ctx, input }) => ctx.services.tenants.removeMember(ctx.actor, input)),
  setRules: protectedProcedure
    .input(setRulesInput)
    .output(tenantOutput)
    .mutation(({ ctx, input }) => ctx.services.tenants.setRules(ctx.actor, input)),
  remove: protectedProcedure.input(removeTenantInput).output(okOutput).mutation(({ ctx, input }) => ctx.services.tenants.remove(ctx.actor, input)),
  roleMap: protectedProcedure.input(noInput).output(roleMapOutput).query(({ ctx }) => ctx.services.tenants.roleMap(ctx.actor)),
  myRoles: protectedProcedure.input(noInput).output(myRolesOutput).query(({ ctx }) => ctx.services.tenants.myRoles(ctx.actor)),
});
