/**
 * Reads that evaluate the stored policy, answered on a resolver thread
 * like a resolution: Landscaper's scope graph (its installations run —
 * spiff mappings, Go templates, schemas), the Capact Hub's Interfaces, and
 * where a service goes among its tenant's environments (Axebow selectors).
 * No request text comes with them, but the policy is what users wrote: its
 * evaluation has the languages' budgets and the host's clock per
 * installation (engine/host-clock.ts), and never the thread that answers
 * requests. The caller reads the database and keeps answers per
 * generation; these are the pure part. The same functions answer in
 * process when the resolver is inline.
 */
import type { EngineObject } from '../engine';
import { selectEnvironment, type SelectionInput, type Selection } from '../engine/axebow/stage';
import { installInputOf, installOutputOf } from '../engine/landscaper/stage';
import { installAll, type InstallationResult } from '../engine/landscaper';
import { removedInstallations, scopeGraph, type Removal, type ScopeGraph } from '../engine/landscaper/scope-graph';
import { capactInputOf } from '../engine/capact/input';

export type StoredReadRequest =
  /**
   * The scope graph of `objects` (Landscaper's kinds as stored); with
   * `applied`, the root installations that generation ran and `objects`
   * no longer has are drawn on their way out, in `removal`'s phase.
   */
  | { op: 'landscaperScopes'; objects: readonly EngineObject[]; applied?: { objects: readonly EngineObject[]; removal: Removal } }
  /** The Interfaces of the Hub that `objects` (Capact's stored kinds) make, newest revision first per path. */
  | { op: 'capactInterfaces'; objects: readonly EngineObject[] }
  /** Where a service goes: `services` is what `$.service` reads for each candidate, by its id. */
  | { op: 'placement'; input: PlacementInput };

export type PlacementInput = Omit<SelectionInput, 'service'> & { services: Record<number, Record<string, unknown>> };

/** A scope graph, and whether a root installation in it ran out of its time (a graph no one should keep). */
export type ScopesAnswer = ScopeGraph & { timedOut?: true };

export type StoredReadAnswer<R extends StoredReadRequest> = R extends { op: 'landscaperScopes' }
  ? ScopesAnswer
  : R extends { op: 'capactInterfaces' }
    ? { path: string; revisions: string[] }[]
    : Selection;

export function storedRead(req: StoredReadRequest): ScopesAnswer | { path: string; revisions: string[] }[] | Selection {
  switch (req.op) {
    case 'landscaperScopes':
      return landscaperScopes(req.objects, req.applied);
    case 'capactInterfaces': {
      const { hub } = capactInputOf(req.objects);
      return Object.entries(hub.interfaces)
        .map(([path, revs]) => ({ path, revisions: revs.map((r) => r.revision) }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    }
    case 'placement': {
      const { services, ...input } = req.input;
      return selectEnvironment({ ...input, service: (c) => services[c.id] ?? {} });
    }
  }
}

function landscaperScopes(objects: readonly EngineObject[], applied: { objects: readonly EngineObject[]; removal: Removal } | undefined): ScopesAnswer {
  const run = installAll(installInputOf(objects));
  let removed: InstallationResult[] = [];
  const then = applied && installAll(installInputOf(applied.objects));
  if (applied) removed = removedInstallations(then!, run, applied.removal);
  const timedOut = [run, ...(then ? [then] : [])].some((r) => r.installations.some((i) => i.timedOut));
  const declared = new Map<string, { namespace: string; dataObjects: Record<string, unknown>; targets: string[] }>();
  for (const o of objects) {
    if (o.kind !== 'dataobject' && o.kind !== 'target') continue;
    const d = declared.get(o.namespace) ?? { namespace: o.namespace, dataObjects: {}, targets: [] };
    if (o.kind === 'dataobject') d.dataObjects[o.name] = (o.spec as { data?: unknown }).data;
    else d.targets.push(o.name);
    declared.set(o.namespace, d);
  }
  const graph = withInstanceKeys(scopeGraph(run, [...declared.values()], removed), objects, run);
  return timedOut ? { ...graph, timedOut } : graph;
}

/**
 * Each deploy item Keelson applies, with the key of the instance it
 * becomes (as the install stage makes it, from the same run), so the
 * caller can give it the phase its revision and apply say.
 */
function withInstanceKeys(graph: ScopeGraph, objects: readonly EngineObject[], run: ReturnType<typeof installAll>): ScopeGraph {
  const keys = new Map<string, string>();
  for (const i of installOutputOf(objects, run).instances) {
    const p = i.provenance as { installation?: string[]; deployItem?: string };
    if (p.installation && p.deployItem) keys.set(`${i.namespace}/${p.installation.join('/')}\u0000${p.deployItem}`, i.key);
  }
  if (keys.size === 0) return graph;
  return {
    ...graph,
    installations: graph.installations.map((inst) => ({
      ...inst,
      deployItems: inst.deployItems.map((d) => {
        const key = keys.get(`${inst.id}\u0000${d.name}`);
        return key === undefined ? d : { ...d, key };
      }),
    })),
  };
}
