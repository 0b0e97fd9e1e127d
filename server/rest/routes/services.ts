/**
 * Tenants' services (Axebow §5.9): claims in the tenant's namespaces,
 * created in the caller's name, each write a Keelson revision to accept or
 * reject. `dryrun` answers the revision a write would make and writes
 * nothing; `accept` accepts at once where the caller may.
 */
import { z } from 'zod';
import { createServiceInput, noPlacementLabels, PLACEMENT_LABELS_MESSAGE, type ServiceWrite, serviceLogsOutput, serviceOutput, serviceRevisionOutput, serviceSummaryOutput, serviceWriteOutput } from '../../services/axebow/types';
import { decideOutput } from '../../services/revisions.types';
import { okOutput } from '../../services/tenants.types';
import type { Services } from '../../services';
import { route, type RestForm } from '../route';
import { pathName, queryFlag } from './common';

const tenantParam = z.object({ tenant: pathName });
const serviceParams = z.object({ tenant: pathName, name: pathName });
const instanceName = z.string().regex(/^[a-z0-9-]{1,80}$/, 'must be a deploy name');
const revisionParams = serviceParams.extend({ previous: z.coerce.number().int().min(1) });
const patchServiceInput = z.object({
  service: createServiceInput.shape.service.optional(),
  environment: createServiceInput.shape.environment,
  labels: z
    .record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'is not a valid label name'), z.string().max(1024).nullable())
    .refine(noPlacementLabels, PLACEMENT_LABELS_MESSAGE)
    .optional(),
});

const channelName = z.string().regex(/^[a-zA-Z][\w-]{0,63}$/, 'must be a channel name');
const linkParams = serviceParams.extend({ channel: channelName, serverTenant: pathName, serverName: pathName, serverChannel: channelName });
function linkInput(p: z.infer<typeof linkParams>) {
  return { tenant: p.tenant, client: { service: p.name, channel: p.channel }, server: { tenant: p.serverTenant, service: p.serverName, channel: p.serverChannel } };
}
const linkOutput = z.object({
  id: z.number().int(),
  spec: z.object({ client_tenant: z.string(), client_service: z.string(), client_channel: z.string(), server_tenant: z.string(), server_service: z.string(), server_channel: z.string() }),
  meta: z.object({ createdBy: z.string(), createdAt: z.date() }),
  status: z.object({ linked: z.boolean() }),
});

const roleOutput = z.object({
  role: z.string(),
  instances: z.array(
    z.object({
      id: z.string().describe('Deploy name'),
      key: z.string(),
      cluster: z.string(),
      namespace: z.string(),
      code: z.object({ type: z.string() }).nullable(),
      status: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});

/** What a change of an existing service may be refused with, beside the common refusals. */
const CHANGE_ERRORS = {
  '409': 'StaleRevision: previous is not the service’s current revision (content.current names it); PendingRevisionExists: a revision awaits a decision; LinkedChannelRemoved: the change drops a linked channel without remove_links=true',
  '422': 'MarkExceeded: the revision would take the service’s environment over its marks; ResourceNotAllowed: a resource its claim names may not be used in its environment (content.reasons names the resource and its selector or the tenant’s rule); ServiceError: the claim cannot run (its reasons)',
};
/** What a new service may be refused with, beside the common refusals. */
const CREATE_ERRORS = {
  '409': 'The tenant has a service of that name already',
  '422': 'MarkExceeded: the named environment would go over its marks; NoEnvironment: no environment may take it (content.selection gives each one’s reasons: marks, the tenant’s rules, a resource’s selector or metadata); ServiceError: the claim cannot run',
};

/** `?wait=<seconds>` (0: the server's cap): answer when the revision has settled. */
const waitQuery = z.coerce.number().int().min(0).max(300).optional();

/** A write's answer: 202 at once; with `wait`, 200 once settled or 201 when the wait ran out (Axebow). */
async function answerWrite(services: Services, r: ServiceWrite, wait: number | undefined) {
  if (r.dryrun) return { data: r, status: 200 };
  if (wait === undefined) return { data: r, status: 202 };
  const s = await services.deployments.settle(r.revision, wait);
  return { data: { ...r, revision: { ...r.revision, status: s.status } }, status: s.timedOut ? 201 : 200 };
}

const formFile = z.object({ filename: z.string(), type: z.string(), bytes: z.instanceof(Uint8Array) }, { error: 'must be a file part' });
/** The part `spec` of a bundle upload: Axebow's #ServiceSpec without the bundle. */
const bundleSpec = z
  .object({ environment: createServiceInput.shape.environment, meta: createServiceInput.shape.meta, comment: z.string().max(2000).optional() })
  .strict();
/** Axebow's bundle upload: the zip in part `bundle`, the rest of the spec as JSON in part `spec`. */
const bundleFormSchema = z.object({
    bundle: formFile,
    spec: z
      .string()
      .max(64 * 1024)
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be JSON' });
          return z.NEVER;
        }
      })
      .pipe(bundleSpec)
      .optional(),
});
const bundleForm: RestForm = {
  schema: bundleFormSchema,
  fields: {
    bundle: { file: true, required: true, description: 'A zip archive of YAML modules; deployment/*.yaml holds exactly one claim, named as the service and acting for the caller' },
    spec: { description: 'JSON: {"environment": "account/environment", "meta": {…selection metadata}, "comment": "…"}' },
  },
};

function fromBundleForm(f: { bundle: { bytes: Uint8Array }; spec?: z.output<typeof bundleSpec> }) {
  return { bundle: f.bundle.bytes, ...(f.spec?.environment ? { environment: f.spec.environment } : {}), ...(f.spec?.meta ? { meta: f.spec.meta } : {}) };
}

/** Axebow's simple deployment body: an artifact reference with config. */
const simpleServiceInput = z.object({
  deployment: z.object({
    artifact: z.object({
      ref: z.object({
        name: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must be an offering (service) name'),
        domain: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must be the policy namespace that offers it').optional(),
      }),
    }),
    config: z
      .object({
        parameter: z
          .record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'is not a valid parameter name'), z.union([z.string().max(1024), z.number(), z.boolean()]))
          .refine(noPlacementLabels, PLACEMENT_LABELS_MESSAGE)
          .default({}),
        scale: z.record(z.string().regex(/^[a-zA-Z][\w-]{0,40}$/), z.number().int().min(0).max(1000)).optional(),
        resilience: z.number().int().min(0).max(100).optional(),
      })
      .default({ parameter: {} }),
    environment: createServiceInput.shape.environment,
  }),
  comment: z.string().max(2000).optional(),
});

/** The simple form as a claim: parameters become labels (as strings), scale the replicas labels, resilience its label. */
function fromSimple(b: z.infer<typeof simpleServiceInput>) {
  const d = b.deployment;
  const labels: Record<string, string> = Object.fromEntries(Object.entries(d.config.parameter).map(([k, v]) => [k, String(v)]));
  for (const [role, n] of Object.entries(d.config.scale ?? {})) labels[`replicas-${role}`] = String(n);
  if (d.config.resilience !== undefined) labels.resilience = String(d.config.resilience);
  return { service: d.artifact.ref.domain ? `${d.artifact.ref.domain}/${d.artifact.ref.name}` : d.artifact.ref.name, labels, ...(d.environment ? { environment: d.environment } : {}) };
}

export const serviceRoutes = [
  route({
    method: 'GET',
    path: '/tenant/:tenant/service',
    tag: 'services',
    summary: 'Services of a tenant: each claim with its status, instance count and target',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: tenantParam,
    response: z.array(serviceSummaryOutput),
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.list(actor, params.tenant) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/service/:name',
    tag: 'services',
    summary: 'A service: its claim’s outcome with the decision trace (summary=true leaves the trace out) and its instances',
    auth: 'user',
    access: 'members of the tenant and domain admins (secret-rendered parameters only for those who may manage them)',
    params: serviceParams,
    query: z.object({ summary: queryFlag }),
    response: serviceOutput,
    async handler({ actor, services }, { params, query }) {
      // A summary has no trace, so none is computed (it costs a resolution of the claim, or of the policy).
      const view = await services.deployments.get(actor, params, { trace: !query.summary });
      return { data: query.summary ? { ...view, outcome: { ...view.outcome, trace: [] } } : view };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/service/:name/history',
    tag: 'services',
    summary: 'The service’s revisions, newest first: each generation that changed it, with its Keelson revision',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: serviceParams,
    response: z.array(serviceRevisionOutput),
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.history(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/logs/service/:name',
    tag: 'services',
    summary: 'The apply events of the service’s instances, newest first (tail: how many, default 100), with each instance’s state',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: serviceParams,
    query: z.object({ tail: z.coerce.number().int().min(1).max(1000).default(100) }),
    response: serviceLogsOutput,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.deployments.logs(actor, { ...params, tail: query.tail }) };
    },
  }),
  ...(['/tenant/:tenant/logs/service/:name/role/:role/instance/:instance', '/tenant/:tenant/logs/service/:name/role/:role/instance/:instance/container/:container'] as const).map((path) =>
    route({
      method: 'GET',
      path,
      tag: 'services',
      summary:
        'The log of one role instance: its apply events, newest first (tail: how many; delta: the last N seconds). Keelson deploys through GitOps and holds no container output: a container name is accepted and names the same events',
      auth: 'user',
      access: 'members of the tenant and domain admins',
      params: serviceParams.extend({ role: pathName, instance: instanceName, container: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a container name').optional() }),
      query: z.object({ tail: z.coerce.number().int().min(1).max(1000).default(100), delta: z.coerce.number().int().min(1).max(31 * 24 * 3600).optional() }),
      response: serviceLogsOutput,
      async handler({ actor, services }, { params, query }) {
        const { container: _container, ...where } = params;
        return { data: await services.deployments.logs(actor, { ...where, tail: query.tail, ...(query.delta ? { deltaSeconds: query.delta } : {}) }) };
      },
    }),
  ),
  route({
    method: 'POST',
    path: '/tenant/:tenant/service/:name',
    tag: 'services',
    summary: 'Create a service (a claim in the caller’s name) from JSON, or from a bundle (multipart: a zip whose deployment/*.yaml holds the claim); dryrun=true answers the revision it would make and writes nothing',
    auth: 'user',
    access: 'members of the tenant who may claim in the namespace (the policy’s rules and ACL decide, as for any save)',
    params: serviceParams,
    query: z.object({ dryrun: queryFlag, accept: queryFlag, wait: waitQuery }),
    body: createServiceInput,
    form: bundleForm,
    response: serviceWriteOutput,
    status: 202,
    errors: CREATE_ERRORS,
    async handler({ actor, services }, { params, query, body, form }) {
      const flags = { dryrun: query.dryrun ?? false, accept: query.accept ?? false };
      const r = form
        ? await services.deployments.createFromBundle(actor, { ...params, ...flags, ...fromBundleForm(form as z.output<typeof bundleFormSchema>) })
        : await services.deployments.create(actor, { ...params, ...body, ...flags });
      return answerWrite(services, r, query.wait);
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/service/:name/simple',
    tag: 'services',
    summary: 'Create a service from an artifact reference (Axebow’s simple form): the offering, its parameters as labels, scale and resilience',
    auth: 'user',
    access: 'members of the tenant who may claim in the namespace (the policy’s rules and ACL decide, as for any save)',
    params: serviceParams,
    query: z.object({ dryrun: queryFlag, accept: queryFlag, wait: waitQuery }),
    body: simpleServiceInput,
    response: serviceWriteOutput,
    status: 202,
    errors: CREATE_ERRORS,
    async handler({ actor, services }, { params, query, body }) {
      const r = await services.deployments.create(actor, { ...params, ...fromSimple(body), dryrun: query.dryrun ?? false, accept: query.accept ?? false });
      return answerWrite(services, r, query.wait);
    },
  }),
  route({
    method: 'PUT',
    path: '/tenant/:tenant/service/:name/revision/:revision',
    tag: 'services',
    summary: 'Accept (accept=true) or reject (accept=false) a revision of the service, for its namespace’s section',
    auth: 'user',
    access: 'who may decide the section: namespace admins of the service’s namespace (tenant owners and admins) and domain admins',
    params: serviceParams.extend({ revision: z.coerce.number().int().min(1) }),
    query: z.object({ accept: z.enum(['true', 'false']).transform((v) => v === 'true'), wait: waitQuery }),
    response: decideOutput,
    async handler({ actor, services }, { params, query }) {
      const d = await services.deployments.decide(actor, { tenant: params.tenant, name: params.name, revision: params.revision, accept: query.accept });
      if (query.wait === undefined) return { data: d };
      // With wait, answer once the accepted revision has run (or failed), as a create with wait does.
      const s = await services.deployments.settle({ id: d.revisionId, status: d.status }, query.wait);
      return { data: { ...d, status: s.status as typeof d.status }, status: s.timedOut ? 201 : 200 };
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/service/:name/revision/:previous',
    tag: 'services',
    summary: 'Update a service: a new revision with the whole spec, based on its current revision (409 StaleRevision or PendingRevisionExists otherwise)',
    auth: 'user',
    access: 'members who may save the claim: its author, namespace admins, domain admins',
    params: revisionParams,
    query: z.object({ accept: queryFlag, remove_links: queryFlag, dryrun: queryFlag, wait: waitQuery }),
    body: createServiceInput.omit({ namespace: true }),
    response: serviceWriteOutput,
    status: 202,
    errors: CHANGE_ERRORS,
    async handler({ actor, services }, { params, query, body }) {
      const r = await services.deployments.update(actor, { ...params, accept: query.accept ?? false, removeLinks: query.remove_links ?? false, dryrun: query.dryrun, mode: 'replace', spec: body });
      return answerWrite(services, r, query.wait);
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/service/:name/revision/:previous/simple',
    tag: 'services',
    summary:
      'Update a service from an artifact reference (Axebow’s simple form): a new revision whose claim is the offering with these parameters (as labels), scale and resilience, replacing every label; the service stays in its environment unless the body names another',
    auth: 'user',
    access: 'members who may save the claim: its author, namespace admins, domain admins',
    params: revisionParams,
    query: z.object({ accept: queryFlag, remove_links: queryFlag, dryrun: queryFlag, wait: waitQuery }),
    body: simpleServiceInput,
    response: serviceWriteOutput,
    status: 202,
    errors: CHANGE_ERRORS,
    async handler({ actor, services }, { params, query, body }) {
      const r = await services.deployments.update(actor, { ...params, accept: query.accept ?? false, removeLinks: query.remove_links ?? false, dryrun: query.dryrun, mode: 'simple', spec: fromSimple(body) });
      return answerWrite(services, r, query.wait);
    },
  }),
  route({
    method: 'PATCH',
    path: '/tenant/:tenant/service/:name/revision/:previous',
    tag: 'services',
    summary: 'Partly update a service: change the offering, the environment or some labels (null removes one)',
    auth: 'user',
    access: 'members who may save the claim: its author, namespace admins, domain admins',
    params: revisionParams,
    query: z.object({ accept: queryFlag, remove_links: queryFlag, dryrun: queryFlag, wait: waitQuery }),
    body: patchServiceInput,
    response: serviceWriteOutput,
    status: 202,
    errors: CHANGE_ERRORS,
    async handler({ actor, services }, { params, query, body }) {
      const r = await services.deployments.update(actor, { ...params, accept: query.accept ?? false, removeLinks: query.remove_links ?? false, dryrun: query.dryrun, mode: 'patch', spec: body });
      return answerWrite(services, r, query.wait);
    },
  }),
  route({
    method: 'PATCH',
    path: '/tenant/:tenant/service/:name/revision/:previous/scale',
    tag: 'services',
    summary: 'Change the scale: a new revision setting the replicas labels (replicas, or replicas-<role> per role) the bundle reads',
    auth: 'user',
    access: 'members who may save the claim: its author, namespace admins, domain admins',
    params: revisionParams,
    query: z.object({ accept: queryFlag, dryrun: queryFlag, wait: waitQuery }),
    body: z.object({ scale: z.union([z.number().int().min(0).max(1000), z.record(z.string().regex(/^[a-zA-Z][\w-]{0,40}$/), z.number().int().min(0).max(1000))]) }),
    response: serviceWriteOutput,
    status: 202,
    errors: CHANGE_ERRORS,
    async handler({ actor, services }, { params, query, body }) {
      const r = await services.deployments.scale(actor, { ...params, accept: query.accept ?? false, dryrun: query.dryrun, scale: body.scale });
      return answerWrite(services, r, query.wait);
    },
  }),
  route({
    method: 'PUT',
    path: '/tenant/:tenant/service/:name/revision/:previous/rollback/:target',
    tag: 'services',
    summary: 'Roll back: a new revision with the claim an earlier accepted revision had',
    auth: 'user',
    access: 'members who may save the claim: its author, namespace admins, domain admins',
    params: revisionParams.extend({ target: z.coerce.number().int().min(1) }),
    query: z.object({ accept: queryFlag, remove_links: queryFlag, dryrun: queryFlag, wait: waitQuery }),
    response: serviceWriteOutput,
    status: 202,
    errors: CHANGE_ERRORS,
    async handler({ actor, services }, { params, query }) {
      const r = await services.deployments.rollback(actor, { ...params, accept: query.accept ?? false, removeLinks: query.remove_links ?? false, dryrun: query.dryrun });
      return answerWrite(services, r, query.wait);
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/service/:name',
    tag: 'services',
    summary: 'Remove a service: delete its claim (a new revision)',
    auth: 'user',
    access: 'who may delete the claim: its author, namespace admins, domain admins',
    params: serviceParams,
    query: z.object({ accept: queryFlag }),
    response: serviceWriteOutput,
    status: 202,
    async handler({ actor, services }, { params, query }) {
      return { data: await services.deployments.remove(actor, { ...params, accept: query.accept ?? false }) };
    },
  }),
  route({
    method: 'POST',
    path: '/tenant/:tenant/service/:name/client/:channel/tenant/:serverTenant/service/:serverName/server/:serverChannel',
    tag: 'services',
    summary: 'Link a client channel of a service to a server channel of another in the same environment (channels are claim labels channel-<name>: client|server|duplex)',
    auth: 'user',
    access: 'members of the tenant (both services are its own)',
    params: linkParams,
    response: linkOutput,
    status: 201,
    async handler({ actor, services }, { params }) {
      return { data: await services.links.link(actor, linkInput(params)) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/service/:name/client/:channel/tenant/:serverTenant/service/:serverName/server/:serverChannel',
    tag: 'services',
    summary: 'Remove a link between two services',
    auth: 'user',
    access: 'members of the tenant',
    params: linkParams,
    response: okOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.links.unlink(actor, linkInput(params)) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/service/:name/links',
    tag: 'services',
    summary: 'The links a service is part of',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: serviceParams,
    response: z.array(linkOutput),
    async handler({ actor, services }, { params }) {
      return { data: await services.links.list(actor, { tenant: params.tenant, service: params.name }) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/service/:name/scale',
    tag: 'services',
    summary: "The replicas the service asks for, per role ('*': every role), from its replicas labels",
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: serviceParams,
    response: z.record(z.string(), z.number().int()),
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.scaleOf(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/service/:name/channels',
    tag: 'services',
    summary: 'The client and server channels the service declares (labels channel-<name>: client|server|duplex)',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: serviceParams,
    response: z.object({ client: z.record(z.string(), z.object({ duplex: z.boolean() })), server: z.record(z.string(), z.object({ duplex: z.boolean() })) }),
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.channelsOf(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/tenant/:tenant/service/:name/role/:role',
    tag: 'services',
    summary: 'A role of the service: the instances of that component, with their applied state',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: serviceParams.extend({ role: pathName }),
    response: roleOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.role(actor, params) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/service/:name/role/:role',
    tag: 'services',
    summary: 'Restart every instance of a role: a revision stamping the role’s restart label, so the apply rolls its workloads',
    auth: 'user',
    access: 'members of the tenant and domain admins; accepted at once when the caller may accept the revision',
    params: serviceParams.extend({ role: pathName }),
    response: serviceWriteOutput,
    status: 202,
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.restart(actor, params) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/tenant/:tenant/service/:name/role/:role/instance/:instance',
    tag: 'services',
    summary: 'Restart one instance of a role (by its deploy name)',
    auth: 'user',
    access: 'members of the tenant and domain admins; accepted at once when the caller may accept the revision',
    params: serviceParams.extend({ role: pathName, instance: instanceName }),
    response: serviceWriteOutput,
    status: 202,
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.restart(actor, params) };
    },
  }),
  route({
    method: 'GET',
    path: '/service/:tenant/:name/role/:role/instance/:instance',
    tag: 'services',
    summary: 'One instance of a role, by its deploy name (the path is the Axebow document’s)',
    auth: 'user',
    access: 'members of the tenant and domain admins',
    params: serviceParams.extend({ role: pathName, instance: instanceName }),
    response: roleOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.deployments.role(actor, params) };
    },
  }),
];
