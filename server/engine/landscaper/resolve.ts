/**
 * One offline run of Landscaper over a namespace's objects: scopes, import
 * and export data flow, sibling order from data flow, template executions,
 * deploy items with an offline deployer, and the phase each installation
 * ends in (reference landscaper.md §3–§6, §9, §11).
 *
 * Where the controller and our decisions differ (DESIGN.md):
 *   - cycles among siblings fail the parent with the cycle path instead of
 *     being swallowed (`createOrUpdateSubinstallations` returns nil, nil);
 *   - ties in the sibling order follow declaration order (Go: map order);
 *   - only declared `exports.data` become DataObjects (controller, not the
 *     lenient simulator).
 */
import { validateJsonSchema } from '../capact/schema';
import { pastDeadline } from '../host-clock';
import type { Deadline } from '../lang/budget';
import { formatPath } from '../diagnostics';
import { compileTemplate, renderTemplate, SPRIG_FUNCTIONS } from '../lang/gotemplate';
import { evaluateDataMappings, evaluateSpiff } from '../lang/spiff';
import { parse } from 'yaml';
import { loadBlueprint, readInstallationTemplate, type LoadedObjects, type Rec } from './load';
import { dependencyGraph } from './order';
import { deployOffline, readDeployItems } from './deploy';
import { dataObjectName, installationContext } from './naming';
import type {
  Blueprint,
  BlueprintSource,
  DeployItem,
  Filesystem,
  ImportDefinition,
  Installation,
  InstallationResult,
  LandscaperError,
  Phase,
  TemplateExecution,
  Wire,
} from './types';
import { isRecord } from '../lang/data';


/** Blueprint filesystems by reference: a `resourceName`, or the `cd://...` URI a template uses. */
export type BlueprintStore = Record<string, Filesystem>;

interface StoredObject {
  value: unknown;
  context: string | undefined;
  key: string | undefined;
  /** Scope path of the installation that wrote it; undefined for user-created objects. */
  owner: string | undefined;
}

/** The namespace's DataObjects and Targets by name, as Landscaper keeps them. */
export class ObjectStore {
  readonly data = new Map<string, StoredObject>();
  readonly targets = new Map<string, StoredObject>();
  /** Target lists and maps a parent passes to its children, by context and key. */
  readonly collections = new Map<string, unknown>();

  constructor(private readonly loaded: LoadedObjects) {
    for (const d of loaded.dataObjects) this.data.set(`${d.namespace}/${d.name}`, { value: d.data, context: d.context, key: d.key, owner: undefined });
    for (const t of loaded.targets) this.targets.set(`${t.namespace}/${t.name}`, { value: t.object, context: undefined, key: undefined, owner: undefined });
  }

  get sources() {
    return this.loaded.sources;
  }

  read(kind: 'data' | 'targets', ns: string, context: string, key: string): StoredObject | undefined {
    return this[kind].get(`${ns}/${dataObjectName(context, key)}`);
  }

  /** Writes an object; another owner's object under the same name is a conflict. */
  write(kind: 'data' | 'targets', ns: string, context: string, key: string, value: unknown, owner: string): string | null {
    const id = `${ns}/${dataObjectName(context, key)}`;
    const existing = this[kind].get(id);
    if (existing?.owner !== undefined && existing.owner !== owner) {
      return `${kind === 'data' ? 'dataobject' : 'target'} "${key}" in context "${context}" conflicts with existing ${kind === 'data' ? 'dataobject' : 'target'} owned by another installation (${existing.owner})`;
    }
    this[kind].set(id, { value, context, key, owner });
    return null;
  }

  /** The namespaces holding an object named for `key` in the root context (a root's import found in the wrong namespace). */
  namespacesHolding(kind: 'data' | 'targets', key: string): string[] {
    const name = dataObjectName('', key);
    return [...this[kind].keys()].filter((id) => id.slice(id.indexOf('/') + 1) === name).map((id) => id.slice(0, id.indexOf('/'))).sort();
  }

  /** Every object in `context` by key (export executions' `dataobjects` and `targets`). */
  byKey(kind: 'data' | 'targets', ns: string, context: string): Rec {
    const out: Rec = {};
    for (const [id, o] of this[kind]) if (id.startsWith(`${ns}/`) && o.context === context && o.key !== undefined) out[o.key] = o.value;
    return out;
  }
}

export interface Run {
  store: ObjectStore;
  blueprints: BlueprintStore;
  loaded: LoadedObjects;
  results: InstallationResult[];
  order: string[];
  /** When the root installation being run (and its subinstallations) must be done, on the host's clock. */
  deadline?: Deadline;
}

// ---------------------------------------------------------------------------
// Blueprints and executions

export function resolveBlueprint(source: BlueprintSource | null, blueprints: BlueprintStore): { blueprint: Blueprint | null; error?: string } {
  if (!source) return { blueprint: null, error: 'the installation has neither blueprint.ref nor an inline filesystem' };
  let fs: Filesystem | undefined;
  let label: string;
  if (source.kind === 'inline') {
    fs = source.filesystem;
    label = 'inline blueprint';
  } else if (source.kind === 'cdRef') {
    fs = blueprints[source.uri];
    label = source.uri;
  } else {
    fs = (source.componentName ? blueprints[`${source.componentName}:${source.resourceName}`] : undefined) ?? blueprints[source.resourceName];
    label = `resource ${source.resourceName}`;
  }
  if (!fs) return { blueprint: null, error: `blueprint ${label} not found` };
  const { blueprint, errors } = loadBlueprint(fs);
  if (!blueprint || errors.length > 0) return { blueprint: null, error: `${label}: ${errors.join('; ')}` };
  return { blueprint };
}

/** Runs one GoTemplate or Spiff execution; its output is a map. */
export function runExecution(exec: TemplateExecution, bindings: Rec, deadline?: Deadline): { ok: true; value: Rec } | { ok: false; message: string } {
  if (exec.type === 'GoTemplate') {
    if (typeof exec.template !== 'string') return { ok: false, message: `execution ${exec.name}: a GoTemplate must be text` };
    // Landscaper renders Go templates with Sprig's functions.
    const compiled = compileTemplate(exec.template, { name: exec.name, functions: SPRIG_FUNCTIONS });
    if (!compiled.ok) return { ok: false, message: compiled.error.message };
    const text = renderTemplate(compiled.value, bindings, deadline ? { deadline } : undefined);
    if (!text.ok) return { ok: false, message: text.error.message };
    try {
      const doc = parse(text.value, { maxAliasCount: 100 }) as unknown;
      return { ok: true, value: isRecord(doc) ? doc : {} };
    } catch (e) {
      return { ok: false, message: `execution ${exec.name}: the rendered template is not YAML: ${(e as Error).message.split('\n')[0]}` };
    }
  }
  const r = evaluateSpiff(exec.template, bindings, deadline ? { deadline } : undefined);
  if (!r.ok) return { ok: false, message: `execution ${exec.name}: ${r.error.message}` };
  return { ok: true, value: isRecord(r.value) ? r.value : {} };
}

function templateBindings(imports: Rec): Rec {
  // No component descriptor store offline: cd and components are empty.
  return { imports, cd: {}, components: {}, blueprint: {}, blueprintDef: {}, componentDescriptorDef: {}, state: {} };
}

// ---------------------------------------------------------------------------
// Imports (imports/constructor.go)

export type ImportsOutcome =
  | { ok: true; imports: Rec; loaded: Rec }
  | { ok: false; error: LandscaperError; condition?: { type: string; status: 'False'; reason: string; message: string } };

function loadInstallationImports(store: ObjectStore, inst: Installation, parentCtx: string, who: string): { ok: true; values: Rec } | { ok: false; error: LandscaperError } {
  const values: Rec = {};
  const missing = (what: string, path: (string | number)[], hint = ''): { ok: false; error: LandscaperError } => ({
    ok: false,
    error: { code: 'import_not_found', installation: who, path, message: `${formatPath(path)}: unable to fetch ${what} from context "${parentCtx}"${hint}` },
  });
  /**
   * A root reads the namespace's own objects, and Kubernetes puts an object
   * written without metadata.namespace in "default": a Target meant for
   * installation in "demo" lands beside the wrong installations. Say where
   * it is, so the message points at the fix and not only at the gap.
   */
  const elsewhere = (kind: 'data' | 'targets', key: string): string => {
    if (parentCtx !== '') return '';
    const found = store.namespacesHolding(kind, key).filter((ns) => ns !== inst.namespace);
    if (found.length === 0) return '';
    const what = kind === 'data' ? 'DataObject' : 'Target';
    return ` in namespace "${inst.namespace}": a ${what} "${key}" is in namespace ${found.map((n) => `"${n}"`).join(', ')} (without metadata.namespace it is in "default"); set its metadata.namespace to "${inst.namespace}"`;
  };
  const dataPath = (i: number, field: string) => ['spec', 'imports', 'data', i, field];
  for (const [i, d] of inst.imports.data.entries()) {
    if (d.dataRef !== undefined) {
      const o = store.read('data', inst.namespace, parentCtx, d.dataRef);
      if (!o) return missing(`data object "${d.dataRef}" (import "${d.name}")`, dataPath(i, 'dataRef'), elsewhere('data', d.dataRef));
      values[d.name] = o.value;
    } else if (d.secretRef || d.configMapRef) {
      const kind = d.secretRef ? 'Secret' : 'ConfigMap';
      const ref = (d.secretRef ?? d.configMapRef)!;
      const field = d.secretRef ? 'secretRef' : 'configMapRef';
      const src = store.sources.find((s) => s.kind === kind && s.name === ref.name && s.namespace === (ref.namespace ?? inst.namespace));
      if (!src) return missing(`${kind} "${ref.name}" (import "${d.name}")`, dataPath(i, field));
      if (ref.key !== undefined && !(ref.key in src.data)) return missing(`key "${ref.key}" of ${kind} "${ref.name}" (import "${d.name}")`, [...dataPath(i, field), 'key']);
      values[d.name] = ref.key !== undefined ? src.data[ref.key] : src.data;
    }
  }
  for (const [i, t] of inst.imports.targets.entries()) {
    const at = (...rest: (string | number)[]) => ['spec', 'imports', 'targets', i, ...rest];
    const one = (name: string) => store.read('targets', inst.namespace, parentCtx, name)?.value;
    const noTarget = (name: string, path: (string | number)[]) => missing(`target "${name}" (import "${t.name}")`, path, elsewhere('targets', name));
    if (t.target !== undefined) {
      const v = one(t.target);
      if (v === undefined) return noTarget(t.target, at('target'));
      values[t.name] = v;
    } else if (t.targets) {
      const list = t.targets.map(one);
      const gap = list.findIndex((x) => x === undefined);
      if (gap >= 0) return noTarget(t.targets[gap]!, at('targets', gap));
      values[t.name] = list;
    } else if (t.targetMap) {
      const map: Rec = {};
      for (const [k, name] of Object.entries(t.targetMap)) {
        map[k] = one(name);
        if (map[k] === undefined) return noTarget(name, at('targetMap', k));
      }
      values[t.name] = map;
    } else if (t.targetListRef !== undefined || t.targetMapRef !== undefined) {
      const field = t.targetListRef !== undefined ? 'targetListRef' : 'targetMapRef';
      const ref = (t.targetListRef ?? t.targetMapRef)!;
      const v = store.collections.get(`${inst.namespace}/${parentCtx}/${ref}`);
      if (v === undefined) return missing(`${t.targetListRef !== undefined ? 'target list' : 'target map'} "${ref}" (import "${t.name}")`, at(field));
      values[t.name] = v;
    }
  }
  return { ok: true, values };
}

function targetTypeError(def: ImportDefinition, target: unknown): string | null {
  const type = isRecord(target) && isRecord(target.spec) ? target.spec.type : undefined;
  if (def.targetType && type !== def.targetType) return `import "${def.name}": imported target type is ${String(type)} but expected ${def.targetType}`;
  return null;
}

export function constructImports(store: ObjectStore, inst: Installation, blueprint: Blueprint, parentCtx: string, who: string, deadline?: Deadline): ImportsOutcome {
  const loaded = loadInstallationImports(store, inst, parentCtx, who);
  if (!loaded.ok) return loaded;
  const fail = (code: LandscaperError['code'], message: string): ImportsOutcome => ({ ok: false, error: { code, installation: who, message } });

  // Each mapping key is its own document and sees only the installation's imports.
  const mapped = evaluateDataMappings(inst.importDataMappings, loaded.values, deadline ? { deadline } : undefined);
  if (!mapped.ok) return fail('data_mapping', `importDataMappings: ${mapped.error.message}`);

  const imports: Rec = {};
  const construct = (defs: ImportDefinition[]): ImportsOutcome | null => {
    for (const def of defs) {
      let present = true;
      if (def.type === 'data') {
        const value = def.name in mapped.value ? mapped.value[def.name] : loaded.values[def.name];
        if (value === undefined) {
          if (def.required) return fail('import_not_satisfied', `blueprint defines import "${def.name}" of type data, which is not satisfied`);
          if (def.default) imports[def.name] = def.default.value;
          present = def.default !== undefined;
        } else imports[def.name] = value;
        if (present && def.schema !== undefined) {
          const issues = validateJsonSchema(def.schema, imports[def.name]);
          if (issues.length > 0) return fail('import_schema', `imported datatype does not have the expected schema: import "${def.name}": ${issues.join('; ')}`);
        }
      } else {
        const value = loaded.values[def.name];
        if (value === undefined) {
          if (def.required) return fail('import_not_satisfied', `blueprint defines import "${def.name}" of type ${def.type}, which is not satisfied`);
          present = false;
        } else {
          const targets = def.type === 'target' ? [value] : Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [value];
          for (const t of targets) {
            const err = targetTypeError(def, t);
            if (err) return fail('import_target_type', err);
          }
          imports[def.name] = value;
        }
      }
      // Conditional imports count only when their parent import is there.
      if (present && def.imports.length > 0) {
        const r = construct(def.imports);
        if (r) return r;
      }
    }
    return null;
  };
  const failed = construct(blueprint.imports);
  if (failed) return failed;

  // importExecutions: bindings merge into imports as they go; the first errors stop.
  let current = imports;
  for (const exec of blueprint.importExecutions) {
    const r = runExecution(exec, templateBindings(current), deadline);
    if (!r.ok) return fail('execution', `import execution ${exec.name}: ${r.message}`);
    const errors = Array.isArray(r.value.errors) ? r.value.errors.filter((e) => e !== null && e !== '') : [];
    if (errors.length > 0) {
      const message = errors.map(String).join(', ');
      return {
        ok: false,
        error: { code: 'import_validation', installation: who, message: `import validation failed: ${message}` },
        condition: { type: 'ValidateImports', status: 'False', reason: 'ImportValidationFailed', message },
      };
    }
    if (isRecord(r.value.bindings)) current = { ...current, ...r.value.bindings };
  }
  return { ok: true, imports: current, loaded: loaded.values };
}

// ---------------------------------------------------------------------------
// Exports (exports/constructor.go)

function deepMerge(a: Rec, b: Rec): Rec {
  const out: Rec = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isRecord(v) && isRecord(out[k]) ? deepMerge(out[k] as Rec, v) : v;
  return out;
}

export type ExportsOutcome = { ok: true; exports: Rec; written: Rec } | { ok: false; error: LandscaperError };

export function constructExports(
  store: ObjectStore,
  inst: Installation,
  blueprint: Blueprint,
  parentCtx: string,
  imports: Rec,
  deployItems: DeployItem[],
  who: string,
  deadline?: Deadline,
): ExportsOutcome {
  const fail = (code: LandscaperError['code'], message: string): ExportsOutcome => ({ ok: false, error: { code, installation: who, message } });
  const ownCtx = openedContext(inst);
  const deployitems = Object.fromEntries(deployItems.map((d) => [d.name, d.exports]));
  const dataobjects = store.byKey('data', inst.namespace, ownCtx);
  const targets = store.byKey('targets', inst.namespace, ownCtx);
  const bindings = { ...templateBindings(imports), deployitems, dataobjects, targets, values: { deployitems, dataobjects, targets } };
  let exports: Rec = {};
  for (const exec of blueprint.exportExecutions) {
    const r = runExecution(exec, bindings, deadline);
    if (!r.ok) return fail('execution', `export execution ${exec.name}: ${r.message}`);
    if (!isRecord(r.value.exports)) return fail('execution', `export execution ${exec.name}: the output has no "exports" map`);
    exports = deepMerge(exports, r.value.exports);
  }
  // Undeclared names are dropped; declared ones are checked.
  const declared = new Map(blueprint.exports.map((e) => [e.name, e]));
  exports = Object.fromEntries(Object.entries(exports).filter(([k]) => declared.has(k)));
  for (const [name, value] of Object.entries(exports)) {
    const def = declared.get(name)!;
    if (def.type === 'data' && def.schema !== undefined) {
      const issues = validateJsonSchema(def.schema, value);
      if (issues.length > 0) return fail('export_schema', `export "${name}" does not have the expected schema: ${issues.join('; ')}`);
    }
    if (def.type === 'target' && def.targetType && !(isRecord(value) && value.type === def.targetType)) {
      return fail('export_schema', `exported target "${name}" has type ${isRecord(value) ? String(value.type) : 'none'} but expected ${def.targetType}`);
    }
  }
  const mapped = evaluateDataMappings(inst.exportDataMappings, { ...exports, exports }, deadline ? { deadline } : undefined);
  if (!mapped.ok) return fail('data_mapping', `exportDataMappings: ${mapped.error.message}`);
  exports = { ...exports, ...mapped.value };

  const written: Rec = {};
  for (const e of inst.exports.data) {
    if (!(e.name in exports)) return fail('export_not_defined', `data export "${e.name}" is not defined`);
    const conflict = store.write('data', inst.namespace, parentCtx, e.dataRef, exports[e.name], who);
    if (conflict) return fail('export_conflict', conflict);
    written[e.dataRef] = exports[e.name];
  }
  for (const e of inst.exports.targets) {
    if (!(e.name in exports)) return fail('export_not_defined', `target export "${e.name}" is not defined`);
    const t = exports[e.name];
    const object = { apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'Target', metadata: { name: dataObjectName(parentCtx, e.target), namespace: inst.namespace }, spec: isRecord(t) ? t : {} };
    const conflict = store.write('targets', inst.namespace, parentCtx, e.target, object, who);
    if (conflict) return fail('export_conflict', conflict);
    written[e.target] = object;
  }
  return { ok: true, exports, written };
}

// ---------------------------------------------------------------------------
// One installation, its children and its phases

function templateToInstallation(t: ReturnType<typeof readInstallationTemplate>, parent: Installation, parentPath: string): Installation {
  return { ...t, namespace: parent.namespace, parent: parent.name, scopePath: `${parentPath}/${t.name}`, annotations: {} };
}

/**
 * The context an installation opens: `Inst.<name>` for an Installation
 * object (a root, or a subinstallation a controller wrote, whose name is
 * unique in its namespace), `Inst.<scope path>` for one made from a
 * template — two parents may both have a child named `child`, and one
 * context for both would mix their objects.
 */
export function openedContext(inst: Installation): string {
  return installationContext(inst.scopePath ?? inst.name);
}

/** The scope keys an installation reads and writes (for the scope graph's data-flow edges). */
export function wiringOf(inst: Installation): InstallationResult['wiring'] {
  const imports: Wire[] = [];
  for (const d of inst.imports.data) {
    const key = d.dataRef ?? (d.secretRef ? `secret:${d.secretRef.name}` : d.configMapRef ? `configmap:${d.configMapRef.name}` : undefined);
    if (key) imports.push({ name: d.name, kind: 'data', key });
  }
  for (const t of inst.imports.targets) {
    const keys = [t.target, ...(t.targets ?? []), ...Object.values(t.targetMap ?? {}), t.targetListRef, t.targetMapRef].filter((k): k is string => typeof k === 'string');
    for (const key of keys) imports.push({ name: t.name, kind: 'target', key });
  }
  const exports: Wire[] = [...inst.exports.data.map((d) => ({ name: d.name, kind: 'data' as const, key: d.dataRef })), ...inst.exports.targets.map((t) => ({ name: t.name, kind: 'target' as const, key: t.target }))];
  return { imports, exports };
}

export function runInstallation(run: Run, inst: Installation, scopePath: string, parentCtx: string): InstallationResult {
  const result: InstallationResult = {
    name: scopePath,
    namespace: inst.namespace,
    scope: parentCtx,
    phase: 'Init',
    phases: [],
    imports: {},
    exports: {},
    errors: [],
    deployItems: [],
    wiring: wiringOf(inst),
  };
  run.results.push(result);
  const enter = (phase: Phase, reason: string) => {
    result.phase = phase;
    result.phases.push({ phase, reason });
  };
  const failWith = (errors: LandscaperError[]): InstallationResult => {
    result.errors.push(...errors.map((e) => ({ installation: scopePath, ...e })));
    enter('Failed', errors.map((e) => e.message).join('; '));
    return result;
  };
  enter('Init', 'a new job started');
  // Each execution and mapping looks at the clock as it runs; this is for a tree of many quick subinstallations.
  if (pastDeadline(run.deadline)) return failWith([{ code: 'time_limit', message: `ran out of the time its root installation has (${run.deadline!.ms} ms)` }]);

  const { blueprint, error } = resolveBlueprint(inst.blueprint, run.blueprints);
  if (!blueprint) return failWith([{ code: 'blueprint_not_found', message: error! }]);

  const imported = constructImports(run.store, inst, blueprint, parentCtx, scopePath, run.deadline);
  if (!imported.ok) return failWith([imported.error]);
  result.imports = imported.imports;

  // The parent writes its imports into its own context for its children.
  const ownCtx = openedContext(inst);
  result.opens = ownCtx;
  for (const def of blueprint.imports) {
    if (!(def.name in imported.imports)) continue;
    const value = imported.imports[def.name];
    if (def.type === 'data') run.store.write('data', inst.namespace, ownCtx, def.name, value, scopePath);
    else if (def.type === 'target') run.store.write('targets', inst.namespace, ownCtx, def.name, value, scopePath);
    else {
      run.store.collections.set(`${inst.namespace}/${ownCtx}/${def.name}`, value);
      const entries = Array.isArray(value) ? value.map((v, i) => [`${def.name}[${i}]`, v] as const) : Object.entries(isRecord(value) ? value : {}).map(([k, v]) => [`${def.name}[${k}]`, v] as const);
      for (const [key, v] of entries) run.store.write('targets', inst.namespace, ownCtx, key, v, scopePath);
    }
  }

  // Subinstallations: static ones, then rendered ones; or, for a state
  // written by a controller, the Installation objects it already created.
  const templates = [...blueprint.subinstallations];
  for (const exec of blueprint.subinstallationExecutions) {
    const r = runExecution(exec, templateBindings(imported.imports), run.deadline);
    if (!r.ok) return failWith([{ code: 'execution', message: `subinstallation execution ${exec.name}: ${r.message}` }]);
    templates.push(...(Array.isArray(r.value.subinstallations) ? r.value.subinstallations.map(readInstallationTemplate) : []));
  }
  let children: Installation[];
  if (templates.length > 0) {
    const validation = validateTemplates(templates, blueprint, imported.imports);
    if (validation.length > 0) return failWith(validation);
    children = templates.map((t) => templateToInstallation(dropUnsatisfiedOptional(t, blueprint, imported.imports), inst, scopePath));
  } else {
    children = run.loaded.installations.filter((i) => i.parent === inst.name && i.namespace === inst.namespace);
  }
  const graph = dependencyGraph(children);
  if (graph.errors.length > 0) return failWith(graph.errors);

  const deployOut: Rec[] = [];
  for (const exec of blueprint.deployExecutions) {
    const r = runExecution(exec, templateBindings(imported.imports), run.deadline);
    if (!r.ok) return failWith([{ code: 'execution', message: `deploy execution ${exec.name}: ${r.message}` }]);
    deployOut.push(r.value);
  }
  result.deployItems = readDeployItems(deployOut);

  if (children.length === 0 && result.deployItems.length === 0) {
    enter('Completing', 'no subinstallations and no deploy items: nothing to wait for');
  } else {
    enter('ObjectsCreated', `${children.length} subinstallation(s) and ${result.deployItems.length} deploy item(s) created`);
    enter('Progressing', children.length > 0 ? `subinstallations run in data-flow order: ${graph.order.join(', ')}` : 'deploy items triggered');
    const childResults = new Map<string, InstallationResult>();
    for (const name of graph.order) {
      const child = children.find((c) => c.name === name)!;
      const childPath = `${scopePath}/${name}`;
      const notSucceeded = (graph.predecessors.get(name) ?? []).filter((p) => childResults.get(p)?.phase !== 'Succeeded');
      if (notSucceeded.length > 0) {
        const r: InstallationResult = { name: childPath, namespace: inst.namespace, scope: ownCtx, phase: 'Failed', phases: [], imports: {}, exports: {}, errors: [], deployItems: [], wiring: wiringOf(child) };
        const message = `depending on installation "${notSucceeded[0]}" which is not succeeded`;
        r.errors.push({ code: 'predecessor_failed', installation: childPath, message });
        r.phases.push({ phase: 'Init', reason: 'a new job started' }, { phase: 'Failed', reason: message });
        run.results.push(r);
        run.order.push(childPath);
        childResults.set(name, r);
        continue;
      }
      run.order.push(childPath);
      childResults.set(name, runInstallation(run, child, childPath, ownCtx));
    }
    const failedChildren = graph.order.filter((n) => childResults.get(n)?.phase !== 'Succeeded');
    const deployed = deployOffline(result.deployItems);
    const errors: LandscaperError[] = [];
    if (failedChildren.length > 0) errors.push({ code: 'subinstallation_failed', message: `Failed sub-installation(s): ${failedChildren.join(', ')}` });
    if (deployed.error) errors.push({ code: 'deploy_item_failed', message: `Execution is failed: ${deployed.error}` });
    if (errors.length > 0) return failWith(errors);
    enter('Completing', 'every subinstallation and deploy item succeeded');
  }

  const exported = constructExports(run.store, inst, blueprint, parentCtx, imported.imports, result.deployItems, scopePath, run.deadline);
  if (!exported.ok) return failWith([exported.error]);
  result.exports = Object.fromEntries([...inst.exports.data.map((e) => e.name), ...inst.exports.targets.map((e) => e.name)].map((n) => [n, exported.exports[n]]));
  enter('Succeeded', 'exports written');
  return result;
}

/** Subinstallation validation (subinstallations/helper.go): every import satisfied, none exported back to the parent. */
function validateTemplates(templates: ReturnType<typeof readInstallationTemplate>[], blueprint: Blueprint, parentImports: Rec): LandscaperError[] {
  const errors: LandscaperError[] = [];
  const names = new Set<string>();
  const parentNames = new Set(blueprint.imports.flatMap(function all(d: ImportDefinition): string[] {
    return [d.name, ...d.imports.flatMap(all)];
  }));
  for (const t of templates) {
    if (names.has(t.name)) errors.push({ code: 'invalid_blueprint', message: `duplicated subinstallation "${t.name}"` });
    names.add(t.name);
    for (const e of t.exports.data) {
      if (parentNames.has(e.dataRef)) errors.push({ code: 'export_imported_by_parent', message: `subinstallation "${t.name}": export "${e.dataRef}" is imported by its parent` });
    }
  }
  const siblingData = new Set(templates.flatMap((t) => t.exports.data.map((e) => e.dataRef)));
  const siblingTargets = new Set(templates.flatMap((t) => t.exports.targets.map((e) => e.target)));
  for (const t of templates) {
    for (const d of t.imports.data) {
      if (d.dataRef !== undefined && !parentNames.has(d.dataRef) && !siblingData.has(d.dataRef)) {
        errors.push({ code: 'import_not_satisfied', message: `subinstallation "${t.name}": import not satisfied: data "${d.dataRef}" is neither a parent import nor a sibling export` });
      }
    }
    for (const tg of t.imports.targets) {
      for (const ref of [...(tg.target !== undefined ? [tg.target] : []), ...(tg.targets ?? []), ...Object.values(tg.targetMap ?? {})]) {
        if (!parentNames.has(ref) && !siblingTargets.has(ref)) errors.push({ code: 'import_not_satisfied', message: `subinstallation "${t.name}": import not satisfied: target "${ref}" is neither a parent import nor a sibling export` });
      }
    }
  }
  void parentImports;
  return errors;
}

/** Imports wired to an optional parent import that is not there are dropped, not failed. */
function dropUnsatisfiedOptional(t: ReturnType<typeof readInstallationTemplate>, blueprint: Blueprint, parentImports: Rec) {
  const optional = new Set(blueprint.imports.filter((d) => !d.required).map((d) => d.name));
  const missing = (ref: string | undefined) => ref !== undefined && optional.has(ref) && !(ref in parentImports);
  return {
    ...t,
    imports: {
      data: t.imports.data.filter((d) => !missing(d.dataRef)),
      targets: t.imports.targets.filter((x) => !missing(x.target)),
    },
  };
}
