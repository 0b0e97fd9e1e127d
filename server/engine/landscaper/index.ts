/**
 * Gardener Landscaper's installation engine, offline and pure
 * (reference/landscaper.md): plain objects and blueprint filesystems in;
 * every installation's scope, imports, exports, deploy items and phase, the
 * order they ran in, and the DataObjects they wrote, out. User mistakes
 * (missing imports, schema violations, cycles, duplicate exports) are
 * errors in the result, never exceptions.
 *
 *   const run = installAll({ objects: parseYamlDocuments(text), blueprints: { blueprint: fs } });
 *   run.installations.find((i) => i.name === 'root')?.phase // 'Succeeded'
 *
 * Blueprints are looked up by `spec.blueprint.ref.resourceName` (or
 * `<componentName>:<resourceName>` first), by the `cd://...` URI of an
 * InstallationTemplate, or come inline (`blueprint.inline.filesystem`).
 * There is no registry offline: component descriptors contribute nothing
 * beyond the blueprint lookup, and `cd`/`components` bindings are empty.
 */
import { pastDeadline, unitDeadline } from '../host-clock';
import { loadObjects } from './load';
import { installationContext } from './naming';
import {
  constructExports,
  constructImports,
  ObjectStore,
  resolveBlueprint,
  runInstallation,
  wiringOf,
  type BlueprintStore,
  type Run,
} from './resolve';
import { dependencyGraph } from './order';
import type { Installation, InstallationResult, LandscaperError } from './types';

export { parseYamlDocuments, loadObjects, loadBlueprint, normalizeFilesystem, type LoadedObjects } from './load';
export { dataObjectName, installationContext } from './naming';
export { runExecution, type BlueprintStore } from './resolve';
export { dependencyGraph, type GraphResult } from './order';
export { deployOffline } from './deploy';
export * from './types';

export interface InstallInput {
  /** Parsed Landscaper YAML: Installations, DataObjects, Targets, Contexts, Secrets, ConfigMaps. */
  objects: readonly unknown[];
  blueprints: BlueprintStore;
}

export interface InstallRun {
  installations: InstallationResult[];
  /** Scope paths in the order they ran (roots by data flow, then each scope's children). */
  order: string[];
  /** Objects the installations wrote: root-scope keys as they are, nested ones as `<context>/<key>`. */
  dataObjects: Record<string, unknown>;
  errors: LandscaperError[];
}

/** Runs every root Installation (and, through the blueprints, their subinstallations) once. */
export function installAll(input: InstallInput): InstallRun {
  const loaded = loadObjects(input.objects);
  const store = new ObjectStore(loaded);
  const run: Run = { store, blueprints: input.blueprints, loaded, results: [], order: [] };
  const errors: LandscaperError[] = [...loaded.errors];

  const namespaces = [...new Set(loaded.installations.map((i) => i.namespace))];
  for (const ns of namespaces) {
    const roots = loaded.installations.filter((i) => i.namespace === ns && i.parent === undefined);
    // Roots in a namespace depend on each other through the root scope, as siblings do.
    const graph = dependencyGraph(roots, 'root installations');
    errors.push(...graph.errors);
    const blocked = new Set(graph.errors.flatMap((e) => e.cycle ?? e.exportedBy?.installations ?? []));
    const done = new Map<string, InstallationResult>();
    for (const name of [...graph.order, ...roots.map((r) => r.name).filter((n) => !graph.order.includes(n))]) {
      const root = roots.find((r) => r.name === name)!;
      run.order.push(name);
      // Each root (with its subinstallations) has its own time: one that runs out of it fails alone.
      run.deadline = unitDeadline();
      const pending = (graph.predecessors.get(name) ?? []).filter((p) => done.get(p)?.phase !== 'Succeeded');
      if (blocked.has(name) || pending.length > 0) {
        const message = blocked.has(name) ? graph.errors.find((e) => (e.cycle ?? e.exportedBy?.installations ?? []).includes(name))!.message : `depending on installation "${pending[0]}" which is not succeeded`;
        const r: InstallationResult = {
          name,
          namespace: ns,
          scope: '',
          phase: 'Failed',
          phases: [
            { phase: 'Init', reason: 'a new job started' },
            { phase: 'Failed', reason: message },
          ],
          imports: {},
          exports: {},
          errors: [{ code: blocked.has(name) ? (graph.errors.find((e) => e.cycle?.includes(name)) ? 'cycle' : 'duplicate_export') : 'predecessor_failed', installation: name, message }],
          deployItems: [],
          wiring: wiringOf(root),
          // Waiting for a root that ran out of its time is that time's doing too.
          ...(!blocked.has(name) && pending.some((p) => done.get(p)?.timedOut) ? { timedOut: true as const } : {}),
        };
        run.results.push(r);
        done.set(name, r);
        continue;
      }
      const r = runInstallation(run, root, name, '');
      // Whatever failed in its tree — a mapping, an execution, a subinstallation not started — a root past its time may have failed for that alone.
      if (r.phase !== 'Succeeded' && pastDeadline(run.deadline)) r.timedOut = true;
      done.set(name, r);
    }
  }

  const dataObjects: Record<string, unknown> = {};
  for (const o of store.data.values()) {
    if (o.owner === undefined || o.key === undefined) continue;
    dataObjects[o.context ? `${o.context}/${o.key}` : o.key] = o.value;
  }
  for (const r of run.results) errors.push(...r.errors);
  return { installations: run.results, order: run.order, dataObjects, errors };
}

function findInstallation(installations: Installation[], ref: string): Installation | undefined {
  const [ns, name] = ref.includes('/') ? ref.split('/', 2) : [undefined, ref];
  return installations.find((i) => i.name === name && (ns === undefined || i.namespace === ns));
}

export type ImportsOf =
  | { ok: true; imports: Record<string, unknown> }
  | { ok: false; error: LandscaperError; condition?: { type: string; status: 'False'; reason: string; message: string } };

/**
 * The imports one Installation would get from the objects as they stand
 * (a state written by a controller): Landscaper's import constructor,
 * including importDataMappings, defaults, schemas and importExecutions.
 * `installation` is `name` or `namespace/name`.
 */
/** One installation of a stored state with its blueprint and parent context, or why not. */
function prepare(input: InstallInput, installation: string) {
  const loaded = loadObjects(input.objects);
  const inst = findInstallation(loaded.installations, installation);
  if (!inst) return { ok: false as const, error: { code: 'invalid_object' as const, message: `installation ${installation} not found` } };
  const { blueprint, error } = resolveBlueprint(inst.blueprint, input.blueprints);
  if (!blueprint) return { ok: false as const, error: { code: 'blueprint_not_found' as const, installation, message: error! } };
  return { ok: true as const, store: new ObjectStore(loaded), inst, blueprint, parentCtx: inst.parent !== undefined ? installationContext(inst.parent) : '' };
}

export function importsOf(input: InstallInput, installation: string): ImportsOf {
  const p = prepare(input, installation);
  if (!p.ok) return p;
  const r = constructImports(p.store, p.inst, p.blueprint, p.parentCtx, installation, unitDeadline());
  return r.ok ? { ok: true, imports: r.imports } : r;
}

export type ExportsOf = { ok: true; exports: Record<string, unknown>; dataObjects: Record<string, unknown> } | { ok: false; error: LandscaperError };

/**
 * The exports one Installation would write from the objects as they stand:
 * exportExecutions over its own context (children's exports, own imports),
 * exportDataMappings, and one DataObject per `exports.data` entry, keyed by
 * its dataRef. No deploy items run here (`deployitems` is empty).
 */
export function exportsOf(input: InstallInput, installation: string, imports: Record<string, unknown> = {}): ExportsOf {
  const p = prepare(input, installation);
  if (!p.ok) return p;
  const r = constructExports(p.store, p.inst, p.blueprint, p.parentCtx, imports, [], installation, unitDeadline());
  return r.ok ? { ok: true, exports: r.exports, dataObjects: r.written } : r;
}
