/**
 * Where a service may use a registered resource, for a change of an
 * existing service. Every resource its claim names (a label
 * `<kind>:<name>`), whatever its kind, is weighed in the environment the
 * claim names, as placement weighs a new service's
 * (engine/axebow/stage.ts): the tenant's `validateEnvironmentResource`
 * rules, which read the resource's `meta`, then the resource's own
 * selector. A service created in an environment is checked by placement;
 * this keeps an update, a scale or a rollback from bringing a resource
 * where its selector or metadata keeps it out.
 */
import type { Claim } from '../../engine/model/kinds';
import type { DesiredState } from '../../engine/state';
import { isResolverFailure } from '../../resolver';
import type { Actor } from '../actor';
import { AppError } from '../../errors';
import type { Axebow, TenantRef } from './context';
import { environmentOfClaim } from './marks';
import { environmentCandidate, resourceNeeded, resourceRefs } from './placement';

/**
 * Refuses (422 ResourceNotAllowed, naming each resource and the selector or
 * rule that keeps it out) a claim whose environment may not use a resource
 * it names. `state`: the policy with the claim changed (marks.ts's draft),
 * for what `$.environment.usage` reads. Resources the tenant has not
 * registered are not this check's to refuse (as before it).
 */
export async function admitResources(cx: Axebow, who: Actor, t: TenantRef, service: string, claim: { namespace: string; name: string; spec: unknown }, state: DesiredState | undefined): Promise<void> {
  const labels = (claim.spec as Claim).labels ?? {};
  const refs = resourceRefs(labels);
  if (refs.length === 0 || !state) return;
  const placed = await environmentOfClaim(cx, t, labels);
  if (!placed) return;
  const [tenantRow, members, rows] = await Promise.all([
    cx.repos.tenants.byName(t.name),
    cx.repos.tenants.members(t.id),
    Promise.all(refs.map((r) => cx.repos.resources.get(t.id, r.kind, r.name))),
  ]);
  // Whether another service holds it is checked where it is registered and when it is first placed, not here.
  const resources = refs.flatMap((r, i) => (rows[i] ? [resourceNeeded(t, r.kind, r.name, rows[i], [])] : []));
  const rules = tenantRow?.rules.validateEnvironmentResource;
  if (resources.length === 0 || (!rules?.length && resources.every((r) => r.selector === undefined))) return;
  const [marks, usage] = await Promise.all([cx.estate.marksOf(placed.account, placed.env), cx.estate.usageIn(state, t.id, placed.env, `${claim.namespace}/${claim.name}`)]);
  const candidate = environmentCandidate(t, placed, marks, usage, []);
  const role = members.find((m) => m.user === who.name.toLowerCase())?.role ?? null;
  let chosen: boolean;
  let reasons: string[];
  try {
    const selection = await cx.resolver.run({
      op: 'placement',
      input: {
        // Only the resource checks: where the service runs was chosen when it was created.
        rules: rules ? { validateEnvironmentResource: rules } : {},
        tenant: { name: t.name, namespaces: t.namespaces },
        user: { id: who.id, name: who.name, role, labels: who.labels },
        services: {},
        resources,
        candidates: [candidate],
      },
    });
    chosen = selection.chosen !== null;
    reasons = selection.table[0]?.reasons ?? [];
  } catch (e) {
    if (isResolverFailure(e)) throw new AppError('LIMIT_EXCEEDED', `Tenant ${t.name}'s resource rules could not be run for service ${service}: ${e.reason}.`);
    throw e;
  }
  if (chosen) return;
  throw new AppError('INVALID_INPUT', `Service ${service} may not use these resources in environment ${placed.ref}: ${reasons.join('; ')}. Nothing was saved.`, {
    details: { restCode: 'ResourceNotAllowed', restStatus: 422, environment: placed.ref, reasons },
  });
}
