/**
 * The scope graph of a Landscaper run (seed §Scopes): a namespace is the
 * root scope; every installation with subinstallations opens a scope of its
 * own, nested in the one it lives in. DataObjects and Targets are nodes of
 * the scope they live in, and the data flow is drawn as edges: an
 * installation's export writes a key of its scope, a sibling's import reads
 * it. Pure data for the console (React Flow lays it out); no positions.
 */
import type { InstallRun } from './index';
import { installationContext } from './naming';
import type { DeletePhase, InstallationResult, LandscaperError, Phase, PhaseStep } from './types';

export interface ScopeNode {
  /** `ns:<namespace>` for a root scope, `scope:<namespace>/<installation path>` for an installation's. */
  id: string;
  label: string;
  namespace: string;
  /** The scope it is nested in; null for a namespace. */
  parent: string | null;
  /** The installation that opens it; null for a namespace. */
  installation: string | null;
}

export interface ScopeInstallation {
  /** `<namespace>/<path>`, e.g. `demo/application/database`. */
  id: string;
  namespace: string;
  /** Scope path: `application/database`. */
  path: string;
  name: string;
  /** The scope it lives in. */
  scope: string;
  /** The scope it opens for its subinstallations, if it has any. */
  opens: string | null;
  phase: Phase;
  phases: PhaseStep[];
  imports: Record<string, unknown>;
  exports: Record<string, unknown>;
  errors: LandscaperError[];
  deployItems: ScopeDeployItem[];
  /**
   * Where `phase` comes from: `simulated`, the install engine's offline run
   * (deploy items by its mock deployer: nothing of it is deployed by
   * Keelson); `applied`, the revision and apply state of the instances its
   * deploy items (or its subinstallations') became (withDelivery).
   */
  phaseFrom?: PhaseFrom;
  /** Taken out of the policy; still applied until the revision that removes it is (its phase says where it is). */
  removed?: boolean;
}

export type PhaseFrom = 'simulated' | 'applied';

export interface ScopeDeployItem {
  name: string;
  type: string;
  phase: string;
  note?: string;
  /** The Keelson instance it becomes (helm and manifest items); absent for what Keelson does not deploy (mock, container). */
  key?: string;
  phaseFrom?: PhaseFrom;
}

export interface ScopeObject {
  /** `obj:<scope id>:<kind>:<key>`. */
  id: string;
  scope: string;
  kind: 'data' | 'target' | 'secret' | 'configmap';
  key: string;
  /** A DataObject's value, when known (what was written, or the object as declared); cut at MAX_VALUE_CHARS. */
  value?: unknown;
  truncated?: boolean;
  /** Where its value comes from: declared as an object, written by an installation's export, or the scope's installation's import. */
  origin: 'declared' | 'exported' | 'parent import' | 'missing';
}

export interface ScopeEdge {
  id: string;
  source: string;
  target: string;
  kind: 'import' | 'export';
  /** The import or export name. */
  label: string;
}

export interface ScopeGraph {
  scopes: ScopeNode[];
  installations: ScopeInstallation[];
  objects: ScopeObject[];
  edges: ScopeEdge[];
  /** Run-level errors (cycles between roots, duplicate exports) and every installation's. */
  errors: LandscaperError[];
  /** Installation ids in the order they ran (started). */
  order: string[];
}

/** Where the revision that takes installations out stands. */
export type Removal = 'waiting' | 'applying' | 'failed';

/**
 * Root installations the applied state runs and the newest policy no
 * longer has, with their delete phase (Landscaper's InitDelete → Deleting →
 * gone | DeleteFailed, reference §9): waiting for the revision that removes
 * them — and, as Landscaper waits for them, for the installations that
 * still import their exports —, being deleted while it applies, or
 * DeleteFailed when its apply failed. Gone once it is applied.
 */
export function removedInstallations(applied: InstallRun, current: InstallRun, removal: Removal): InstallationResult[] {
  const now = new Set(current.installations.map((r) => `${r.namespace}/${r.name}`));
  const out: InstallationResult[] = [];
  for (const r of applied.installations) {
    if (r.name.includes('/') || now.has(`${r.namespace}/${r.name}`)) continue;
    const exported = new Set(r.wiring.exports.map((w) => `${w.kind}:${w.key}`));
    const importers = current.installations.filter((c) => c.namespace === r.namespace && !c.name.includes('/') && c.wiring.imports.some((w) => exported.has(`${w.kind}:${w.key}`)));
    const waitFor = importers.map((c) => `installation ${c.name} still imports what it exports`);
    const phase: DeletePhase = removal === 'applying' ? 'Deleting' : removal === 'failed' ? 'DeleteFailed' : 'InitDelete';
    const reason =
      phase === 'Deleting'
        ? 'its deploy items are being deleted'
        : phase === 'DeleteFailed'
          ? 'not all deploy items were deleted (the revision that removes it failed to apply)'
          : `removed from the policy; deleted when the revision that removes it is applied${waitFor.length ? `; meanwhile ${waitFor.join(', ')}` : ''}`;
    const phases: PhaseStep[] = phase === 'InitDelete' ? [{ phase, reason }] : [{ phase: 'InitDelete', reason: 'removed from the policy' }, { phase, reason }];
    out.push({ ...r, phase, phases, errors: [], deployItems: [] });
  }
  return out;
}

/** Values larger than this (as JSON) are cut: the graph is for finding things, the editor for reading them whole. */
export const MAX_VALUE_CHARS = 4096;

function capped(value: unknown): { value?: unknown; truncated?: boolean } {
  if (value === undefined) return {};
  const json = JSON.stringify(value) ?? '';
  return json.length <= MAX_VALUE_CHARS ? { value } : { value: `${json.slice(0, MAX_VALUE_CHARS)}…`, truncated: true };
}

/**
 * `declared`: the DataObjects (name → data) and Targets (names) written as
 * objects in each namespace's root scope.
 */
export function scopeGraph(
  current: InstallRun,
  declared: { namespace: string; dataObjects: Record<string, unknown>; targets: string[] }[],
  /** Installations on their way out (removedInstallations): drawn in their root scope, marked removed. */
  removed: InstallationResult[] = [],
): ScopeGraph {
  const gone = new Set(removed.map((r) => `${r.namespace}/${r.name}`));
  const run: InstallRun = removed.length ? { ...current, installations: [...current.installations, ...removed] } : current;
  const byPath = new Map<string, InstallationResult>();
  for (const r of run.installations) byPath.set(`${r.namespace}/${r.name}`, r);
  const parentPath = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : null);
  const scopeOf = (ns: string, path: string) => {
    const parent = parentPath(path);
    return parent === null ? `ns:${ns}` : `scope:${ns}/${parent}`;
  };
  const hasChildren = new Set<string>();
  for (const r of run.installations) {
    const parent = parentPath(r.name);
    if (parent !== null) hasChildren.add(`${r.namespace}/${parent}`);
  }

  const scopes = new Map<string, ScopeNode>();
  for (const ns of [...new Set([...run.installations.map((r) => r.namespace), ...declared.map((d) => d.namespace)])].sort()) {
    scopes.set(`ns:${ns}`, { id: `ns:${ns}`, label: ns, namespace: ns, parent: null, installation: null });
  }
  const installations: ScopeInstallation[] = run.installations.map((r) => {
    const id = `${r.namespace}/${r.name}`;
    const opens = hasChildren.has(id) ? `scope:${id}` : null;
    if (opens) scopes.set(opens, { id: opens, label: `scope of ${r.name.split('/').at(-1)}`, namespace: r.namespace, parent: scopeOf(r.namespace, r.name), installation: id });
    return {
      id,
      namespace: r.namespace,
      path: r.name,
      name: r.name.split('/').at(-1)!,
      scope: scopeOf(r.namespace, r.name),
      opens,
      phase: r.phase,
      phases: r.phases,
      imports: r.imports,
      exports: r.exports,
      errors: r.errors,
      deployItems: r.deployItems.map((d) => ({ name: d.name, type: d.type, phase: d.phase, ...(d.note ? { note: d.note } : {}) })),
      ...(gone.has(id) ? { removed: true } : {}),
    };
  });

  // Objects of each scope: the keys its installations read and write.
  const objects = new Map<string, ScopeObject>();
  const edges: ScopeEdge[] = [];
  const declaredIn = new Map(declared.map((d) => [d.namespace, d]));
  const objectFor = (scope: string, ns: string, wire: { kind: 'data' | 'target'; key: string }): ScopeObject => {
    const kind: ScopeObject['kind'] = wire.key.startsWith('secret:') ? 'secret' : wire.key.startsWith('configmap:') ? 'configmap' : wire.kind;
    const key = kind === 'secret' || kind === 'configmap' ? wire.key.slice(kind.length + 1) : wire.key;
    const id = `obj:${scope}:${kind}:${key}`;
    let o = objects.get(id);
    if (!o) {
      o = { id, scope, kind, key, origin: 'missing' };
      const root = scope.startsWith('ns:');
      const opener = root ? undefined : byPath.get(scope.slice('scope:'.length));
      const ctx = opener ? (opener.opens ?? installationContext(opener.name.split('/').at(-1)!)) : '';
      if (kind === 'data') {
        // A parent's imports are written into its scope too: they come first (children may not export them).
        const written = run.dataObjects[ctx ? `${ctx}/${key}` : key];
        if (opener && key in opener.imports) Object.assign(o, { origin: 'parent import' }, capped(opener.imports[key]));
        else if (written !== undefined) Object.assign(o, { origin: 'exported' }, capped(written));
        else if (root && declaredIn.get(ns) && key in declaredIn.get(ns)!.dataObjects) Object.assign(o, { origin: 'declared' }, capped(declaredIn.get(ns)!.dataObjects[key]));
      } else if (kind === 'target') {
        if (root && declaredIn.get(ns)?.targets.includes(key)) o.origin = 'declared';
        else if (opener && key in opener.imports) o.origin = 'parent import';
      } else o.origin = 'declared';
      objects.set(id, o);
    }
    return o;
  };
  for (const r of run.installations) {
    const id = `${r.namespace}/${r.name}`;
    const scope = scopeOf(r.namespace, r.name);
    for (const w of r.wiring.imports) {
      const o = objectFor(scope, r.namespace, w);
      edges.push({ id: `${o.id}->${id}:${w.name}`, source: o.id, target: id, kind: 'import', label: w.name });
    }
    for (const w of r.wiring.exports) {
      const o = objectFor(scope, r.namespace, w);
      if (o.origin === 'missing') o.origin = 'exported';
      edges.push({ id: `${id}->${o.id}:${w.name}`, source: id, target: o.id, kind: 'export', label: w.name });
    }
  }
  const seen = new Set<string>();
  const errors = [...run.errors, ...run.installations.flatMap((r) => r.errors)].filter((e) => {
    const k = `${e.code}\u0000${e.installation ?? ''}\u0000${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  // Results are recorded as each installation starts: their order is the run's.
  return { scopes: [...scopes.values()], installations, objects: [...objects.values()], edges, errors, order: installations.map((i) => i.id) };
}

/** What has happened to the instances deploy items become: the revision of the graph's generation, and the actual state. */
export interface Delivery {
  /** The revision of the graph's generation; absent when none was computed yet. */
  revision?: {
    id: number;
    status: string;
    /** Keys it creates or updates. */
    changes: ReadonlySet<string>;
    /** Why it failed to apply, when it did (the failed step's error, else the apply job's). */
    error?: string;
  };
  /** Actual state by instance key: `applied`, `failed` (with its error) or `deleted`, by the revision that last applied it. */
  states: ReadonlyMap<string, { status: string; revisionId: number; error: string | null }>;
}

const RANK: Record<string, number> = { Succeeded: 0, Pending: 1, Progressing: 2, Failed: 3 };

/** A deploy item Keelson applies: its phase as its revision and the apply have it. */
function deliveredPhase(key: string, d: Delivery): { phase: 'Succeeded' | 'Pending' | 'Progressing' | 'Failed'; reason: string } {
  const st = d.states.get(key);
  const rev = d.revision;
  // Changed by the generation's revision and not yet applied by it: the revision says where it is.
  if (rev && rev.changes.has(key) && st?.revisionId !== rev.id) {
    if (rev.status === 'applying') return { phase: 'Progressing', reason: `revision ${rev.id} is being applied` };
    if (rev.status === 'failed') return { phase: 'Failed', reason: `revision ${rev.id} failed to apply${rev.error ? `: ${rev.error}` : ''}` };
    if (rev.status === 'accepted') return { phase: 'Pending', reason: `revision ${rev.id} is accepted and waits for its apply` };
    if (rev.status === 'rejected') return { phase: 'Pending', reason: `revision ${rev.id} was rejected: not deployed` };
    return { phase: 'Pending', reason: `waits for revision ${rev.id} to be accepted` };
  }
  if (st?.status === 'applied') return { phase: 'Succeeded', reason: `applied by revision ${st.revisionId}` };
  if (st?.status === 'failed') return { phase: 'Failed', reason: `revision ${st.revisionId} failed to apply it${st.error ? `: ${st.error}` : ''}` };
  return { phase: 'Pending', reason: 'not applied yet' };
}

/**
 * The graph with phases that tell the truth: the install run's `Succeeded`
 * means only that the installation resolved and its mock deployer ran.
 * Each deploy item Keelson applies takes its phase from the revision and
 * the apply (Pending until accepted, Progressing while applying, Failed
 * with the apply's error, Succeeded once applied); an installation that
 * succeeded in the run takes the worst of its own such items and its
 * subinstallations'. Items Keelson does not deploy keep the simulated
 * phase, and everything says which it is. An installation the run failed
 * stays Failed with the run's error; one on its way out keeps its delete
 * phase.
 */
export function withDelivery(graph: ScopeGraph, delivery: Delivery): ScopeGraph {
  const byId = new Map(graph.installations.map((i) => [i.id, i]));
  const children = new Map<string, ScopeInstallation[]>();
  for (const i of graph.installations) {
    const parent = i.path.includes('/') ? `${i.namespace}/${i.path.slice(0, i.path.lastIndexOf('/'))}` : null;
    if (parent && byId.has(parent) && !i.removed) children.set(parent, [...(children.get(parent) ?? []), i]);
  }
  const done = new Map<string, ScopeInstallation>();
  const visit = (i: ScopeInstallation): ScopeInstallation => {
    const seen = done.get(i.id);
    if (seen) return seen;
    const deployItems = i.deployItems.map((d): ScopeDeployItem => {
      if (d.key === undefined || i.removed) return { ...d, phaseFrom: 'simulated' };
      const p = deliveredPhase(d.key, delivery);
      return { ...d, phase: p.phase, note: p.reason, phaseFrom: 'applied' };
    });
    const kids = (children.get(i.id) ?? []).map(visit);
    let out: ScopeInstallation = { ...i, deployItems, phaseFrom: 'simulated' };
    const applied = [
      ...deployItems.filter((d) => d.phaseFrom === 'applied').map((d) => ({ phase: d.phase, reason: `deploy item ${d.name}: ${d.note}` })),
      ...kids.filter((k) => k.phaseFrom === 'applied').map((k) => ({ phase: k.phase, reason: `subinstallation ${k.name}: ${k.phases.at(-1)?.reason ?? k.phase}` })),
    ];
    if (!i.removed && i.phase === 'Succeeded' && applied.length > 0) {
      const worst = applied.reduce((a, b) => ((RANK[b.phase] ?? 0) > (RANK[a.phase] ?? 0) ? b : a));
      const phase = worst.phase as Phase;
      const reason = phase === 'Succeeded' ? 'every deploy item it deploys is applied' : worst.reason;
      // The run's steps stay, read as what the install engine simulated; the last says where the deployment is.
      out = { ...out, phase, phases: [...i.phases.map((s) => (s.phase === 'Succeeded' ? { ...s, reason: `${s.reason} (simulated by the install engine)` } : s)), { phase, reason }], phaseFrom: 'applied' };
    }
    done.set(i.id, out);
    return out;
  };
  return { ...graph, installations: graph.installations.map(visit) };
}
