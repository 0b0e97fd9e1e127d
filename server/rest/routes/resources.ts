/**
 * Registered resources (Axebow §5.10): `ca certificate domain port secret
 * volume`, each addressed as `/tenant/<tenant>/<kind>/<name>`.
 */
import { z } from 'zod';
import { okOutput } from '../../services/common.types';
import { RESOURCE_DOCUMENT_BODIES, RESOURCE_SPECS, resourceKind, resourceOutput, resourcesByKindOutput, usedPortsOutput } from '../../services/resources.types';
import { route } from '../route';
import { pathName, queryFlag } from './common';

const kindParams = z.object({ tenant: pathName, kind: resourceKind });
const resourceParams = kindParams.extend({ name: pathName });
/**
 * Any kind's body, as the Axebow document gives it (`{data, meta?, selector?}`,
 * §5.10.5) or in Keelson's flat shape. Documented as the union; a body that
 * fits none is passed on as sent, for the service to check against the kind
 * in the path and name the field ("port data: …"), not "body: Invalid input".
 */
const resourceBody = z
  .union([...Object.values(RESOURCE_DOCUMENT_BODIES), ...Object.values(RESOURCE_SPECS)] as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]])
  .catch((ctx: { value: unknown }) => ctx.value);

const tenantParams = z.object({ tenant: pathName });

export const resourceRoutes = [
  route({
    method: 'GET',
    path: '/tenant/:tenant/resource',
    tag: 'resources',
    summary: 'Every resource of the tenant whatever its kind, by kind, each with the services that use it (used in) and their environments; no data',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: tenantParams,
    response: resourcesByKindOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.resources.listAll(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/usedports',
    tag: 'resources',
    summary: 'The ports the tenant owns (usedports), each with its resource name and the services that use it',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: tenantParams,
    response: usedPortsOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.resources.usedPorts(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/:kind',
    tag: 'resources',
    summary: 'Resources of one kind (ca, certificate, domain, port, secret, volume), without secret material',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: kindParams,
    response: z.array(resourceOutput),
    async handler({ actor, services }, { params }) {
      return { data: await services.resources.list(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/:kind/:name',
    tag: 'resources',
    summary: 'A resource; reveal=true adds its secret material (owners and admins only)',
    auth: 'user',
    access: 'members of the tenant and domain admins; reveal: owners, admins and domain admins',
    params: resourceParams,
    query: z.object({ reveal: queryFlag }),
    response: resourceOutput,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.resources.get(actor, { ...params, reveal: query.reveal ?? false }) };
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/:kind/:name',
    tag: 'resources',
    summary: 'Register a resource (ports and domains are unique across tenants: 409 ResourceTaken)',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins',
    params: resourceParams,
    body: resourceBody,
    response: resourceOutput,
    status: 201,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.resources.register(actor, { ...params, body }) };
    },
  }),
  route({
    method: 'PUT',
    path: '/tenant/:tenant/:kind/:name',
    tag: 'resources',
    summary: 'Update a resource with a whole new body',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins',
    params: resourceParams,
    body: resourceBody,
    response: resourceOutput,
    async handler({ actor, services }, { params, body }) {
      return { data: await services.resources.update(actor, { ...params, body }) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/:kind/:name',
    tag: 'resources',
    summary: 'Unregister a resource (409 ResourceInUse while a service’s claim names it as <kind>:<name>)',
    auth: 'user',
    access: 'tenant owners and admins, and domain admins',
    params: resourceParams,
    response: okOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.resources.unregister(actor, params) };
    },
  }),
];
