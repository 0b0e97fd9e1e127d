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
  deployItems: { name: string; type: string; phase: string; note?: string }[];
  /** Taken out of the policy; still applied until the revision that removes it is (its phase says where it is). */
  removed?: boolean;
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
