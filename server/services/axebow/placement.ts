/**
 * Where a new service goes. A tenant without environments places nothing
 * (the policy's rules choose clusters, as for any claim). Otherwise every
 * environment in scope — the one named, or all of the tenant's — is
 * resolved with the service placed there, checked against its marks and
 * the tenant's selector rules, and one is chosen
 * (server/engine/axebow/select.ts).
 */
import type { Claim } from '../../engine/model/kinds';
import type { AnyLoadedObject } from '../../engine/model/validate';
import type { Candidate, NeededResource, Selection } from '../../engine/axebow/stage';
import { millisToVcpu } from '../../engine/plan';
import { isResolverFailure } from '../../resolver';
import type { Actor } from '../actor';
import { AppError, notFound } from '../../errors';
import { units, type Usage } from '../estate';
import type { EnvironmentRow, Marks } from '../../repo/estate.types';
import type { ResourceRow } from '../../repo/resources.types';
import type { Axebow, TenantRef } from './context';
import type { Admission } from './marks';
import { builtObject, claimDocument, policyInputs, targetLabel } from './objects';
import type { CreateServiceInput } from './types';

/** Environments weighed when a service names none (each costs a resolution). */
const MAX_CANDIDATES = 32;

/** A new service's objects: its claim in the caller's name first, then a bundle's own objects as they were admitted. */
export async function newServiceObjects(cx: Axebow, who: Actor, t: TenantRef, name: string, input: CreateServiceInput): Promise<AnyLoadedObject[]> {
  const namespace = input.namespace ?? t.namespaces[0];
  if (!namespace) throw new AppError('CONFLICT', `Tenant ${t.name} has no policy namespace yet: an operator grants one first.`);
  if (!t.namespaces.includes(namespace)) throw new AppError('FORBIDDEN', `Namespace ${namespace} does not belong to tenant ${t.name} (its namespaces: ${t.namespaces.join(', ')}).`);
  const labels: Record<string, string> = { ...input.labels };
  if (input.environment) {
    labels.target = await targetLabel(cx, t, input.environment);
    // Several environments may share a cluster: the claim names its own.
    labels.environment = input.environment;
  }
  return [builtObject(claimDocument({ namespace, name, user: who.name, service: input.service, labels })), ...(input.extra?.objects ?? [])];
}

/** The placement of a new service: its objects (for the chosen environment), the selection, and the admission by marks. */
export async function place(cx: Axebow, who: Actor, t: TenantRef, input: { name: string } & CreateServiceInput): Promise<{ objects: AnyLoadedObject[]; selection?: Selection; admission?: Admission }> {
  let scope = await cx.estate.environmentsOf(t.id);
  if (input.environment) {
    scope = scope.filter((e) => e.ref === input.environment);
    if (scope.length === 0) throw notFound(`Environment ${input.environment} of tenant ${t.name}`);
  }
  if (scope.length === 0) return { objects: await newServiceObjects(cx, who, t, input.name, input) };
  // Each candidate is a resolution of the whole policy: a bounded number, so one request cannot queue hundreds.
  if (scope.length > MAX_CANDIDATES) {
    throw new AppError('INVALID_INPUT', `Tenant ${t.name} has ${scope.length} environments; name one (account/environment): at most ${MAX_CANDIDATES} are weighed for a service.`);
  }

  // Independent reads side by side: on a shared database each is a wait for the server.
  const [tenantRow, members, resources] = await Promise.all([cx.repos.tenants.byName(t.name), cx.repos.tenants.members(t.id), neededResources(cx, t, input)]);
  // Deleted since the membership check: as if it had never been there.
  if (!tenantRow) throw notFound(`Tenant ${t.name}`);
  const role = members.find((m) => m.user === who.name.toLowerCase())?.role ?? null;

  const placed = new Map<number, { objects: AnyLoadedObject[]; admission: Admission; cost: Usage }>();
  const candidates: Candidate[] = [];
  for (const { ref: name, account, env } of scope) {
    const [objects, ask] = await Promise.all([newServiceObjects(cx, who, t, input.name, { ...input, environment: name }), cx.estate.usageAsk(t.id, env)]);
    // The policy as it is plus this claim: from the warm session, so the cost is the claim's, not the policy's.
    const claimRef = `${objects[0]!.namespace}/${input.name}`;
    const measured = await cx.resolution.measureWithNewClaims(policyInputs(objects), { usage: [ask], claims: [claimRef] });
    const usage: Usage = measured.usage[0]!;
    const marks = await cx.estate.marksOf(account, env);
    const over = cx.estate.over(marks, usage);
    const cost: Usage = measured.claims[0]!;
    placed.set(env.id, { objects, admission: { environment: name, ok: over.length === 0, usage, over }, cost });
    candidates.push(environmentCandidate(t, { ref: name, account, env }, marks, usage, over));
  }
  // `$.service` as each candidate sees it (its cost depends on where it lands).
  const services: Record<number, Record<string, unknown>> = {};
  for (const c of candidates) {
    const cost = placed.get(c.id)!.cost;
    services[c.id] = {
      name: input.name,
      revision: 1,
      service: input.service,
      labels: input.labels,
      cost: { vcpu: millisToVcpu(cost.vcpu), memory: cost.memory, storage: cost.storage, instances: cost.instances },
      meta: input.meta ?? {},
      resources: resources.map((r) => `${r.kind}:${r.name}`),
      links: [],
    };
  }
  // The tenant's selector rules run on a resolver thread, like every evaluation of policy users wrote.
  const placement = { rules: tenantRow.rules, tenant: { name: t.name, namespaces: t.namespaces }, user: { id: who.id, name: who.name, role, labels: who.labels }, services, resources, candidates };
  let selection: Selection;
  try {
    selection = await cx.resolver.run({ op: 'placement', input: placement });
  } catch (e) {
    if (isResolverFailure(e)) throw new AppError('LIMIT_EXCEEDED', `Tenant ${t.name}'s rules could not be run for service ${input.name}: ${e.reason}.`);
    throw e;
  }
  // A named environment keeps its admission even when refused: the client asked about that one.
  const chosen = selection.chosen ? placed.get(selection.chosen.id)! : input.environment ? placed.values().next().value : undefined;
  return { objects: chosen?.objects ?? [], selection, ...(chosen ? { admission: chosen.admission } : {}) };
}

/**
 * An environment as selectors see it (`$.environment`) with the service in
 * it: `usage` what the tenant's services would use there, against `marks`.
 */
export function environmentCandidate(
  t: TenantRef,
  at: { ref: string; account: { name: string }; env: EnvironmentRow },
  marks: Marks,
  usage: Usage,
  over: readonly { dimension: string; mark: number; usage: number }[],
): Candidate {
  const { env } = at;
  const cap = units('vcpu', marks.vcpu);
  return {
    id: env.id,
    name: at.ref,
    info: {
      id: env.id,
      name: env.name,
      account: at.account.name,
      tenant: t.name,
      cluster: env.cluster,
      marks: env.marks,
      labels: env.labels,
      meta: env.meta ?? {},
      usage: { ...usage, vcpu: millisToVcpu(usage.vcpu) },
      free: cap === undefined ? null : { vcpu: millisToVcpu(cap - usage.vcpu) },
    },
    // People read vCPU in cores (marks are written so), not millicores.
    over: over.map((o) => (o.dimension === 'vcpu' ? { ...o, mark: millisToVcpu(o.mark), usage: millisToVcpu(o.usage) } : o)),
    freeVcpuMillisAfter: cap === undefined ? null : cap - usage.vcpu,
  };
}

/** The `<kind>:<name>` values of a claim's labels that name a registered resource's kind. */
export function resourceRefs(labels: Record<string, string>): { kind: string; name: string }[] {
  return [...new Set(Object.values(labels))].filter((v) => /^(ca|certificate|domain|port|secret|volume):./.test(v)).map((v) => ({ kind: v.slice(0, v.indexOf(':')), name: v.slice(v.indexOf(':') + 1) }));
}

/**
 * A registered resource as selectors see it, whatever its kind: `$.resource`
 * for the tenant's rules (`meta` its metadata) and `$.this` for its own
 * selector, which comes beside it. The public part only: sealed material
 * never leaves the resource service.
 */
export function resourceNeeded(t: { name: string }, kind: string, name: string, row: ResourceRow | undefined, heldBy: string[]): NeededResource {
  if (!row) return { kind, name, info: null, heldBy };
  const { selector, meta } = row.spec as { selector?: unknown[]; meta?: Record<string, string> };
  return { kind, name, info: { kind, name, spec: row.spec, meta: meta ?? {}, tenant: t.name }, heldBy, ...(selector ? { selector } : {}) };
}

/** Registered resources the service names by label (`<kind>:<name>`), with the other services holding them. */
async function neededResources(cx: Axebow, t: TenantRef, input: { name: string; labels: Record<string, string> }): Promise<NeededResource[]> {
  const out: NeededResource[] = [];
  const refs = resourceRefs(input.labels);
  if (refs.length === 0) return out;
  // The tenant's other claims, read once for every resource the service names.
  const others: { name: string; labels: Record<string, string> }[] = [];
  for (const namespace of t.namespaces) {
    for (const o of await cx.repos.policy.listObjects({ kind: 'claim', namespace })) if (o.name !== input.name) others.push({ name: o.name, labels: (o.spec as Claim).labels ?? {} });
  }
  for (const { kind, name } of refs) {
    const row = await cx.repos.resources.get(t.id, kind, name);
    const heldBy = others.filter((c) => Object.values(c.labels).includes(`${kind}:${name}`)).map((c) => c.name);
    out.push(resourceNeeded(t, kind, name, row, heldBy.sort()));
  }
  return out;
}
