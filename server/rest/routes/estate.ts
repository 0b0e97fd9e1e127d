/**
 * Accounts and deployment environments (Axebow §5.4–5.5) over the estate
 * service. The document lists "get account" and "list accounts" as PATCH,
 * which would make reads look like writes; they are GET here.
 */
import { z } from 'zod';
import {
  accountInput,
  accountOutput,
  accountUpdateInput,
  environmentInput,
  environmentOutput,
  environmentUpdateInput,
} from '../../services/estate.types';
import { okOutput } from '../../services/common.types';
import { route } from '../route';
import { pathName, queryFlag } from './common';

const tenantParam = z.object({ tenant: pathName });
const accountParams = z.object({ tenant: pathName, account: pathName });
const environmentParams = accountParams.extend({ environment: pathName });

export const estateRoutes = [
  route({
    method: 'GET',
    path: '/tenant/:tenant/account',
    tag: 'accounts',
    summary: 'Accounts of a tenant, with their marks and environments',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: tenantParam,
    response: z.array(accountOutput),
    async handler({ actor, services }, { params }) {
      return { data: await services.estate.listAccounts(actor, params.tenant) };
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/account/:account',
    tag: 'accounts',
    summary: 'Add an account, with marks capping its environments',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins',
    params: accountParams,
    body: accountInput.default({ marks: {}, labels: {} }),
    response: accountOutput,
    status: 201,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.estate.addAccount(actor, { ...params, ...body }) };
    },
  }),
  route({
    method: 'PATCH',
    path: '/tenant/:tenant/account/:account',
    tag: 'accounts',
    summary: 'Change an account’s marks or labels (marks may not fall below what its environments hold: 409 MarksExceedParent)',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins',
    params: accountParams,
    body: accountUpdateInput,
    response: accountOutput,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.estate.updateAccount(actor, { ...params, ...body }) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/account/:account',
    tag: 'accounts',
    summary: 'An account',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: accountParams,
    response: accountOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.estate.getAccount(actor, params) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/account/:account',
    tag: 'accounts',
    summary: 'Remove an account; with purge=true, also its environments (otherwise an account with environments is 409)',
    auth: 'user',
    access: 'tenant owners and domain admins',
    params: accountParams,
    query: z.object({ purge: queryFlag }),
    response: okOutput,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.estate.removeAccount(actor, { ...params, purge: query.purge ?? false }) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/account/:account/environment',
    tag: 'environments',
    summary: 'Environments of an account, with usage and status',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: accountParams,
    response: z.array(environmentOutput),
    async handler({ actor, services }, { params }) {
      return { data: await services.estate.listEnvironments(actor, params) };
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/account/:account/environment/:environment',
    tag: 'environments',
    summary: 'Create an environment on a Keelson cluster that admits the tenant, with marks within the account’s',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins; the cluster’s allowedNamespaces must admit the tenant',
    params: environmentParams,
    body: environmentInput,
    response: environmentOutput,
    status: 201,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.estate.createEnvironment(actor, { ...params, ...body }) };
    },
  }),
  route({
    method: 'PATCH',
    path: '/tenant/:tenant/account/:account/environment/:environment',
    tag: 'environments',
    summary: 'Change an environment’s marks, labels or metadata',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins',
    params: environmentParams,
    body: environmentUpdateInput,
    response: environmentOutput,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.estate.updateEnvironment(actor, { ...params, ...body }) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/account/:account/environment/:environment',
    tag: 'environments',
    summary: 'Remove an environment',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins',
    params: environmentParams,
    response: okOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.estate.removeEnvironment(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/account/:account/environment/:environment',
    tag: 'environments',
    summary: 'An environment: cluster, marks, labels, metadata, usage by the accepted revisions, and status',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: environmentParams,
    response: environmentOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.estate.getEnvironment(actor, params) };
    },
  }),
];
