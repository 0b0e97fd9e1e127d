/**
 * A tenant's services as `GET /tenant/:tenant/service` lists them: each
 * claim of its namespaces with its outcome, from a generation's desired
 * state. The list is the same for every reader allowed to see it (it holds
 * names, outcomes and counts, nothing rendered from secrets), so it is
 * built once per state and namespace set and shared; who may read it is
 * checked on every request, before this is asked (DeploymentService.list).
 */
import type { DesiredState } from '../../engine/state';
import { deepFreeze } from '../../engine/values';
import type { ServiceSummary } from './types';

/** Namespace sets remembered per state: one per tenant that listed it. */
const MAX_SETS_PER_STATE = 256;

/** States are immutable once computed: a new generation is a new state, so its entry starts empty. */
const built = new WeakMap<DesiredState, Map<string, readonly ServiceSummary[]>>();

function summarise(state: DesiredState, namespaces: readonly string[]): ServiceSummary[] {
  const wanted = new Set(namespaces);
  const roots = new Map(state.instances.map((i) => [i.key, i]));
  const out: ServiceSummary[] = [];
  for (const c of state.claims) {
    // Services are claims; a Capact action or a Landscaper installation in the namespace is not one.
    if (!wanted.has(c.namespace) || c.kind !== undefined) continue;
    const root = c.instance ? roots.get(c.instance) : undefined;
    out.push({
      name: c.name,
      namespace: c.namespace,
      user: c.user,
      service: c.service,
      status: c.status,
      errors: [...c.errors],
      instances: c.instances.length,
      target: root ? { cluster: root.target.cluster, namespace: root.target.namespace } : null,
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.namespace.localeCompare(b.namespace));
}

/**
 * The claims of `namespaces` in `state`, by name then namespace: one frozen
 * list per state and namespace set, so the REST layer checks and serialises
 * it once (rest/dispatch.ts, `sharedAnswers`).
 */
export function serviceSummaries(state: DesiredState, namespaces: readonly string[]): readonly ServiceSummary[] {
  let sets = built.get(state);
  if (!sets) built.set(state, (sets = new Map()));
  const key = namespaces.join('\n');
  let list = sets.get(key);
  if (!list) {
    if (sets.size >= MAX_SETS_PER_STATE) sets.clear();
    list = deepFreeze(summarise(state, namespaces));
    sets.set(key, list);
  }
  return list;
}
