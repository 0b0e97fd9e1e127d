/**
 * Tenants and their members (Axebow §5, §5.6–5.8) over the tenant service:
 * the same rules as the console (owners and admins invite and change
 * roles, nobody above their own role, the last owner stays).
 */
import { z } from 'zod';
import {
  answerOutput,
  changeRoleOutput,
  createTenantOutput,
  inviteOutput,
  listTenantsOutput,
  okOutput,
  tenantOutput,
  tenantRole,
  tenantRulesInput,
} from '../../services/tenants.types';
import { route } from '../route';
import { pathName, pathUser, queryFlag } from './common';

const tenantParam = z.object({ tenant: pathName });
const memberParams = z.object({ tenant: pathName, user: pathUser });
const roleQuery = z.object({ role: tenantRole.optional() });
const roleRequired = z.object({ role: tenantRole });

export const tenantRoutes = [
  route({
    method: 'GET',
    path: '/tenant',
    tag: 'tenants',
    summary: 'Tenants of the caller (with strict=false, a domain admin sees every tenant) and their pending invitations',
    auth: 'user',
    access: 'any signed-in user (their tenants; domain admins all)',
    query: z.object({ strict: queryFlag }),
    response: listTenantsOutput,
    async handler({ actor, services }, { query }) {
      const list = await services.tenants.list(actor);
      // strict: only tenants the caller is a member of (a domain admin otherwise sees all).
      return { data: query.strict ? { ...list, tenants: list.tenants.filter((t) => t.role !== null) } : list };
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant',
    tag: 'tenants',
    summary: 'Create a tenant; the caller becomes its owner',
    auth: 'user',
    access: 'any signed-in user; namespaces already in use by others need a domain admin',
    params: tenantParam,
    body: z.object({ namespaces: z.array(pathName).max(100).default([]), rules: tenantRulesInput.optional() }).default({ namespaces: [] }),
    response: createTenantOutput,
    status: 201,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.tenants.create(actor, { name: params.tenant, namespaces: body.namespaces, rules: body.rules }) };
    },
  }),
  route({
    method: 'PATCH',
    path: '/tenant/:tenant',
    tag: 'tenants',
    summary: 'Update a tenant: replace its selector rules and/or add policy namespaces to it',
    auth: 'user',
    access: 'rules: tenant owners and admins; namespaces: as the namespace decides (a used one is granted by a domain admin)',
    params: tenantParam,
    body: z
      .object({ namespaces: z.array(pathName).min(1).max(100).optional(), rules: tenantRulesInput.optional() })
      .refine((b) => b.namespaces !== undefined || b.rules !== undefined, { message: 'name namespaces to add or rules to set' }),
    response: tenantOutput,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.tenants.update(actor, { tenant: params.tenant, namespaces: body.namespaces, rules: body.rules }) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant',
    tag: 'tenants',
    summary: 'Remove a tenant (its members and invitations; the policy in its namespaces stays)',
    auth: 'user',
    access: 'tenant owners and domain admins',
    params: tenantParam,
    response: okOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.tenants.remove(actor, { tenant: params.tenant }) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant',
    tag: 'tenants',
    summary: 'A tenant: members with roles, pending invitations, namespaces',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: tenantParam,
    response: tenantOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.tenants.get(actor, params.tenant) };
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/user/:user',
    tag: 'tenants',
    summary: 'Invite a user to the tenant with a role (owner, admin or plain; default plain)',
    auth: 'user',
    access: 'tenant owners and admins (only owners invite owners)',
    params: memberParams,
    query: roleQuery,
    response: inviteOutput,
    status: 201,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.tenants.invite(actor, { tenant: params.tenant, user: params.user, role: query.role ?? 'plain' }) };
    },
  }),
  route({
    method: 'PUT',
    path: '/tenant/:tenant/user',
    tag: 'tenants',
    summary: 'Confirm the caller’s invitation to the tenant, naming the role offered',
    auth: 'user',
    access: 'the invited user',
    params: tenantParam,
    query: roleRequired,
    response: answerOutput,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.tenants.answerForTenant(actor, { tenant: params.tenant, accept: true, role: query.role }) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/user',
    tag: 'tenants',
    summary: 'Reject the caller’s invitation to the tenant',
    auth: 'user',
    access: 'the invited user',
    params: tenantParam,
    response: answerOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.tenants.answerForTenant(actor, { tenant: params.tenant, accept: false }) };
    },
  }),
  route({
    method: 'PUT',
    path: '/tenant/:tenant/user/:user',
    tag: 'tenants',
    summary: 'Change a member’s role',
    auth: 'user',
    access: 'tenant owners and admins, never above their own role; the last owner stays',
    params: memberParams,
    query: roleRequired,
    response: changeRoleOutput,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.tenants.changeRole(actor, { tenant: params.tenant, user: params.user, role: query.role }) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/user/:user',
    tag: 'tenants',
    summary: 'Exclude a member from the tenant (or leave it, naming oneself)',
    auth: 'user',
    access: 'tenant owners and admins (not above their role); any member for themselves',
    params: memberParams,
    response: okOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.tenants.removeMember(actor, { tenant: params.tenant, user: params.user }) };
    },
  }),
];
