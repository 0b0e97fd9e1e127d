/**
 * Deployment Manager's API in DM's shape (reference dm.md §5):
 * `/api/dm/deployments[/<d>[/manifests[/<m>]]]`, `/api/dm/types[/<t>/instances]`,
 * `POST /api/dm/expand` (a dry run), and the writes — `POST /deployments`,
 * `PUT` and `DELETE /deployments/<d>`. Bodies are DM's JSON, not the
 * `{data}` envelope; refusals keep Keelson's `{code, content}` with DM's
 * 400s. Deployments are named `namespace/name` — a slash, URL-escaped
 * (`shop%2Fweb`), as DM's client query-escaped names. Writes go through
 * policy (a deployment object), so they are generations and revisions like
 * any other, answered with the deployment, its generation and revision.
 */
import { z } from 'zod';
import { dmDeployment, dmExpandOutput, dmManifest, dmTemplate, dmTypeInstance, dmWriteOptions, dmWriteResult } from '../services/dm.types';
import type { Services } from '../services';
import { createRestCore, nodeHandler, webHandler, type Authenticate, type RestApi } from './dispatch';
import { answeringDbOutage } from './errors';
import type { RateLimiter } from './rate-limit';
import { route } from './route';

export const DM_PREFIX = '/api/dm';

const deploymentParam = z.object({ d: z.string().min(3).max(200) });
const READERS = 'any signed-in user (deployments are policy)';
const WRITERS = "domain admins, and namespace admins (or members with the deployment role) of the deployment's namespace";
/** A write's refusals beyond the common ones: a body over the size limit, a template that does not expand. */
const WRITE_ERRORS = { '413': 'The body is over the size limit; nothing was saved', '422': 'The template does not expand (DM: cannot expand template); content.diagnostics name the field, nothing was saved' };

const WRITE_ROUTES = [
  route({
    method: 'POST',
    path: '/deployments',
    tag: 'dm',
    summary: 'Create a deployment from a Template (name: namespace/name, content: the configuration, imports); a generation and a revision',
    auth: 'user',
    access: WRITERS,
    query: dmWriteOptions,
    body: dmTemplate,
    response: dmWriteResult,
    status: 201,
    errors: WRITE_ERRORS,
    envelope: false,
    async handler({ actor, services }, { query, body }) {
      return { data: await services.dm.create(actor, body, query) };
    },
  }),
  route({
    method: 'PUT',
    path: '/deployments/:d',
    tag: 'dm',
    summary: 'Replace its configuration and imports (resources left out are deleted; an empty configuration deletes them all)',
    auth: 'user',
    access: WRITERS,
    params: deploymentParam,
    query: dmWriteOptions,
    body: dmTemplate,
    response: dmWriteResult,
    status: 201,
    errors: WRITE_ERRORS,
    envelope: false,
    async handler({ actor, services }, { params, query, body }) {
      return { data: await services.dm.update(actor, params.d, body, query) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/deployments/:d',
    tag: 'dm',
    summary: 'Delete it: every resource goes; its newest manifest is the empty one',
    auth: 'user',
    access: WRITERS,
    params: deploymentParam,
    query: dmWriteOptions.pick({ message: true }),
    response: dmWriteResult,
    envelope: false,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.dm.remove(actor, params.d, query) };
    },
  }),
];
export const DM_ROUTES = [
  route({
    method: 'GET',
    path: '/deployments',
    tag: 'dm',
    summary: 'Deployment names (namespace/name)',
    auth: 'user',
    access: READERS,
    response: z.array(z.string()),
    envelope: false,
    async handler({ actor, services }) {
      return { data: await services.dm.deployments(actor) };
    },
  }),
  route({
    method: 'GET',
    path: '/deployments/:d',
    tag: 'dm',
    summary: 'A deployment: its times, state and newest manifest',
    auth: 'user',
    access: READERS,
    params: deploymentParam,
    response: dmDeployment,
    envelope: false,
    async handler({ actor, services }, { params }) {
      return { data: await services.dm.deployment(actor, params.d) };
    },
  }),
  route({
    method: 'GET',
    path: '/deployments/:d/manifests',
    tag: 'dm',
    summary: 'Its manifests, newest first: one per generation that changed it',
    auth: 'user',
    access: READERS,
    params: deploymentParam,
    response: z.array(z.string()),
    envelope: false,
    async handler({ actor, services }, { params }) {
      return { data: await services.dm.manifests(actor, params.d) };
    },
  }),
  route({
    method: 'GET',
    path: '/deployments/:d/manifests/:m',
    tag: 'dm',
    summary: 'A manifest: the configuration then, expanded, and its layout',
    auth: 'user',
    access: READERS,
    params: deploymentParam.extend({ m: z.string().max(40) }),
    response: dmManifest,
    envelope: false,
    async handler({ actor, services }, { params }) {
      return { data: await services.dm.manifest(actor, params.d, params.m) };
    },
  }),
  route({
    method: 'GET',
    path: '/types',
    tag: 'dm',
    summary: 'Every type in the current layouts, primitives included',
    auth: 'user',
    access: READERS,
    response: z.array(z.string()),
    envelope: false,
    async handler({ actor, services }) {
      return { data: await services.dm.types(actor) };
    },
  }),
  route({
    method: 'GET',
    path: '/types/:t/instances',
    tag: 'dm',
    summary: 'Where a type is used (all: every type): name, deployment, manifest and JSON path in the layout',
    auth: 'user',
    access: READERS,
    params: z.object({ t: z.string().min(1).max(2000) }),
    response: z.array(dmTypeInstance),
    envelope: false,
    async handler({ actor, services }, { params }) {
      return { data: await services.dm.typeInstances(actor, params.t) };
    },
  }),
  route({
    method: 'POST',
    path: '/expand',
    tag: 'dm',
    summary: 'Expand a template as a dry run: nothing is stored',
    auth: 'user',
    access: READERS,
    body: dmTemplate,
    response: dmExpandOutput,
    status: 201,
    envelope: false,
    async handler({ actor, services }, { body }) {
      return { data: await services.dm.expand(actor, body) };
    },
  }),
  ...WRITE_ROUTES,
];


export function dmApi(opts: { services: () => Promise<Services>; authenticate: Authenticate; trustedProxies?: number; rateLimit?: RateLimiter }): RestApi {
  const core = answeringDbOutage(createRestCore({ routes: DM_ROUTES, prefix: DM_PREFIX, ...opts }));
  return Object.assign(webHandler(core), { node: nodeHandler(core) });
}
