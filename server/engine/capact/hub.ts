/**
 * Loads Capact Hub content from parsed manifests into an index: nodes by
 * path, each with its revisions newest first.
 *
 * Two shapes are accepted, because both occur in the corpus: OCF manifests
 * as authors write them (`kind`, `metadata.prefix` + `name`, `requires` and
 * `additionalInput` as maps, attributes as a map) and the GraphQL shape the
 * Hub returns and Capact's test fixtures use (`requires` as a list of
 * `{prefix, oneOf, allOf, anyOf}`, attributes as `AttributeRevision`s, no
 * `kind`). A manifest without `kind` is recognised by its fields.
 */
import type {
  AdditionalParameter,
  Attribute,
  CapactError,
  Hub,
  Implementation,
  ImplementationImport,
  InputTypeInstanceDecl,
  Interface,
  RequirementGroup,
  RequirementItem,
  Type,
  TypeInstance,
  TypeRef,
  WorkflowPolicy,
  WorkflowStep,
} from './types';
import { isRecord } from '../lang/data';

export interface LoadHubOptions {
  /** See `Hub.implementsMatch`; default `exact` (the real Hub). */
  implementsMatch?: Hub['implementsMatch'];
}

export interface LoadHubResult {
  hub: Hub;
  /** Manifests that could not be read; the rest are loaded. */
  errors: CapactError[];
}

type Obj = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function emptyHub(implementsMatch: Hub['implementsMatch'] = 'exact'): Hub {
  return { interfaces: {}, implementations: {}, types: {}, attributes: {}, typeInstances: {}, implementsMatch };
}

export function loadHub(manifests: readonly unknown[], options: LoadHubOptions = {}): LoadHubResult {
  const hub = emptyHub(options.implementsMatch ?? 'exact');
  const errors: CapactError[] = [];
  manifests.forEach((doc, index) => {
    if (doc === null || doc === undefined) return;
    if (!isRecord(doc)) {
      errors.push({ code: 'invalid_manifest', message: `manifest ${index} is not a mapping`, path: [index] });
      return;
    }
    const kind = manifestKind(doc);
    const where = (msg: string): CapactError => ({ code: 'invalid_manifest', message: `manifest ${index}: ${msg}`, path: [index] });
    switch (kind) {
      case 'Interface': {
        const node = readInterface(doc);
        if (!node) return void errors.push(where('Interface without path or revision'));
        add(hub.interfaces, node);
        return;
      }
      case 'Implementation': {
        const node = readImplementation(doc);
        if (!node) return void errors.push(where('Implementation without path or revision'));
        add(hub.implementations, node);
        return;
      }
      case 'Type': {
        const node = readType(doc);
        if (!node) return void errors.push(where('Type without path or revision'));
        add(hub.types, node);
        return;
      }
      case 'Attribute': {
        const path = nodePath(doc);
        const revision = str(doc.revision);
        if (!path || !revision) return void errors.push(where('Attribute without path or revision'));
        add(hub.attributes, { path, revision });
        return;
      }
      case 'TypeInstance': {
        const ti = readTypeInstance(doc);
        if (!ti) return void errors.push(where('TypeInstance without id or typeRef'));
        hub.typeInstances[ti.id] = ti;
        return;
      }
      default:
        // InterfaceGroup, RepoMetadata, Vendor…: nothing the policy engine reads.
        if (typeof doc.kind === 'string') return;
        errors.push(where('not a Capact manifest the engine reads (no kind, and not shaped like one)'));
    }
  });
  for (const group of [hub.interfaces, hub.implementations, hub.types, hub.attributes]) {
    for (const revs of Object.values(group)) revs.sort((a, b) => compareRevisions(b.revision, a.revision));
  }
  return { hub, errors };
}

function add<T extends { path: string; revision: string }>(index: Record<string, T[]>, node: T): void {
  const revs = (index[node.path] ??= []);
  // The same path and revision loaded twice: the later manifest replaces the earlier one.
  const at = revs.findIndex((r) => r.revision === node.revision);
  if (at >= 0) revs[at] = node;
  else revs.push(node);
}

function manifestKind(doc: Obj): string | undefined {
  if (typeof doc.kind === 'string') return doc.kind;
  if (typeof doc.id === 'string' && isRecord(doc.typeRef)) return 'TypeInstance';
  const spec = isRecord(doc.spec) ? doc.spec : undefined;
  if (!spec) return undefined;
  if (Array.isArray(spec.implements) || isRecord(spec.action)) return 'Implementation';
  if (isRecord(spec.input) || isRecord(spec.output)) return 'Interface';
  if ('jsonSchema' in spec) return 'Type';
  return undefined;
}

/** `metadata.path`, else `prefix.name` (some fixtures carry only prefix and name). */
function nodePath(doc: Obj): string | undefined {
  const md = isRecord(doc.metadata) ? doc.metadata : {};
  const path = str(md.path);
  if (path) return path;
  const prefix = str(md.prefix);
  const name = str(md.name);
  return prefix && name ? `${prefix}.${name}` : undefined;
}

function readTypeRef(v: unknown): TypeRef | undefined {
  if (!isRecord(v)) return undefined;
  const path = str(v.path);
  const revision = str(v.revision);
  return path && revision ? { path, revision } : undefined;
}

/**
 * A list of named entries, written either as a list (`[{name, typeRef}]`,
 * `[{<name>: {typeRef}}]`) or as a map (`{<name>: {typeRef}}`).
 */
function namedEntries(v: unknown): { name: string; body: Obj }[] {
  if (isRecord(v)) return Object.entries(v).flatMap(([name, body]) => (isRecord(body) ? [{ name, body }] : []));
  return arr(v).flatMap((item) => {
    if (!isRecord(item)) return [];
    const name = str(item.name);
    if (name) return [{ name, body: item }];
    const keys = Object.keys(item);
    // `- <name>: {typeRef…}` (one key holding the body)
    if (keys.length === 1 && isRecord(item[keys[0]!])) return [{ name: keys[0]!, body: item[keys[0]!] as Obj }];
    // `- <name>:` followed by sibling keys (a malformed fixture: the name's value is null)
    const nameKey = keys.find((k) => item[k] === null);
    return nameKey ? [{ name: nameKey, body: item }] : [];
  });
}

function readTypeInstanceDecls(v: unknown): InputTypeInstanceDecl[] {
  return namedEntries(v).flatMap(({ name, body }) => {
    const typeRef = readTypeRef(body.typeRef);
    if (!typeRef) return [];
    const verbs = arr(body.verbs).flatMap((x) => (typeof x === 'string' ? [x] : []));
    return [{ name, typeRef, ...(verbs.length ? { verbs } : {}) }];
  });
}

function readInterface(doc: Obj): Interface | undefined {
  const path = nodePath(doc);
  const revision = str(doc.revision);
  if (!path || !revision) return undefined;
  const spec = isRecord(doc.spec) ? doc.spec : {};
  const input = isRecord(spec.input) ? spec.input : {};
  const output = isRecord(spec.output) ? spec.output : {};
  return {
    path,
    revision,
    input: {
      parameters: namedEntries(input.parameters).map(({ name, body }) => {
        const typeRef = readTypeRef(body.typeRef);
        return { name, ...(typeRef ? { typeRef } : {}), ...(body.jsonSchema !== undefined ? { jsonSchema: body.jsonSchema } : {}) };
      }),
      typeInstances: readTypeInstanceDecls(input.typeInstances),
    },
    output: { typeInstances: readTypeInstanceDecls(output.typeInstances).map(({ name, typeRef }) => ({ name, typeRef })) },
  };
}

function readRequirementItem(v: unknown, prefix: string): RequirementItem | undefined {
  if (!isRecord(v)) return undefined;
  let typeRef = readTypeRef(v.typeRef);
  if (!typeRef) {
    // OCF: `name` is relative to the group prefix unless it is a full `cap.` path.
    const name = str(v.name);
    const revision = str(v.revision);
    if (!name || !revision) return undefined;
    typeRef = { path: name.startsWith('cap.') ? name : `${prefix}.${name}`, revision };
  }
  const alias = str(v.alias);
  return { typeRef, ...(alias ? { alias } : {}), ...(v.valueConstraints != null ? { valueConstraints: v.valueConstraints } : {}) };
}

function readRequires(v: unknown): RequirementGroup[] {
  const groups: { prefix: string; body: Obj }[] = Array.isArray(v)
    ? v.flatMap((g) => (isRecord(g) ? [{ prefix: str(g.prefix) ?? '', body: g }] : []))
    : isRecord(v)
      ? Object.entries(v).flatMap(([prefix, body]) => (isRecord(body) ? [{ prefix, body }] : []))
      : [];
  return groups.map(({ prefix, body }) => {
    const items = (k: string) => arr(body[k]).flatMap((i) => readRequirementItem(i, prefix) ?? []);
    return { prefix, oneOf: items('oneOf'), allOf: items('allOf'), anyOf: items('anyOf') };
  });
}

function readAttributes(v: unknown): Attribute[] {
  if (isRecord(v)) {
    // OCF: `{<attribute path>: {revision}}`
    return Object.entries(v).flatMap(([path, body]) => {
      const revision = isRecord(body) ? str(body.revision) : undefined;
      return revision ? [{ path, revision }] : [];
    });
  }
  return arr(v).flatMap((a) => {
    if (!isRecord(a)) return [];
    const md = isRecord(a.metadata) ? a.metadata : {};
    const path = str(md.path) ?? str(a.path);
    const revision = str(a.revision);
    return path && revision ? [{ path, revision }] : [];
  });
}

function readImports(v: unknown): ImplementationImport[] {
  return arr(v).flatMap((i) => {
    if (!isRecord(i)) return [];
    const alias = str(i.alias);
    const interfaceGroupPath = str(i.interfaceGroupPath);
    if (!alias || !interfaceGroupPath) return [];
    const methods = arr(i.methods).flatMap((m) => {
      if (!isRecord(m) || !str(m.name)) return [];
      const revision = str(m.revision);
      return [{ name: str(m.name)!, ...(revision ? { revision } : {}) }];
    });
    return [{ alias, interfaceGroupPath, methods }];
  });
}

function readSteps(workflow: unknown): WorkflowStep[] {
  if (!isRecord(workflow)) return [];
  const out: WorkflowStep[] = [];
  const templates = arr(workflow.templates);
  // OCF examples put `steps` straight under the workflow; treat that as one unnamed template.
  const all = templates.length ? templates : [{ name: str(workflow.entrypoint) ?? '', steps: workflow.steps }];
  for (const tpl of all) {
    if (!isRecord(tpl)) continue;
    for (const group of arr(tpl.steps)) {
      for (const step of Array.isArray(group) ? group : [group]) {
        if (!isRecord(step)) continue;
        const args = isRecord(step.arguments) ? step.arguments : {};
        out.push({
          template: str(tpl.name) ?? '',
          name: str(step.name) ?? '',
          ...(str(step['capact-action']) ? { action: str(step['capact-action']) } : {}),
          ...(str(step['capact-when']) ? { when: str(step['capact-when']) } : {}),
          ...(isRecord(step['capact-policy']) ? { policy: step['capact-policy'] as WorkflowPolicy } : {}),
          outputTypeInstances: arr(step['capact-outputTypeInstances']).flatMap((o) => {
            if (!isRecord(o) || !str(o.name)) return [];
            return [{ name: str(o.name)!, ...(str(o.from) ? { from: str(o.from) } : {}), ...(str(o.backend) ? { backend: str(o.backend) } : {}) }];
          }),
          argumentArtifacts: arr(args.artifacts).flatMap((a) => (isRecord(a) && str(a.name) ? [str(a.name)!] : [])),
        });
      }
    }
  }
  return out;
}

function readImplementation(doc: Obj): Implementation | undefined {
  const path = nodePath(doc);
  const revision = str(doc.revision);
  if (!path || !revision) return undefined;
  const md = isRecord(doc.metadata) ? doc.metadata : {};
  const spec = isRecord(doc.spec) ? doc.spec : {};
  const additionalInput = isRecord(spec.additionalInput) ? spec.additionalInput : {};
  const additionalOutput = isRecord(spec.additionalOutput) ? spec.additionalOutput : {};
  const action = isRecord(spec.action) ? spec.action : {};
  const args = isRecord(action.args) ? action.args : {};
  const relations = spec.outputTypeInstanceRelations;
  return {
    path,
    revision,
    ...(str(md.displayName) ? { displayName: str(md.displayName) } : {}),
    attributes: readAttributes(md.attributes),
    implements: arr(spec.implements).flatMap((r) => readTypeRef(r) ?? []),
    requires: readRequires(spec.requires),
    imports: readImports(spec.imports),
    additionalInput: {
      parameters: namedEntries(additionalInput.parameters).flatMap(({ name, body }): AdditionalParameter[] => {
        const typeRef = readTypeRef(body.typeRef);
        return typeRef ? [{ name, typeRef }] : [];
      }),
      typeInstances: readTypeInstanceDecls(additionalInput.typeInstances),
    },
    additionalOutput: { typeInstances: readTypeInstanceDecls(additionalOutput.typeInstances) },
    outputTypeInstanceRelations: Array.isArray(relations)
      ? relations.flatMap((r) => (isRecord(r) && str(r.typeInstanceName) ? [{ typeInstanceName: str(r.typeInstanceName)!, uses: arr(r.uses).flatMap((u) => str(u) ?? []) }] : []))
      : isRecord(relations)
        ? Object.entries(relations).map(([typeInstanceName, body]) => ({ typeInstanceName, uses: isRecord(body) ? arr(body.uses).flatMap((u) => str(u) ?? []) : [] }))
        : [],
    steps: readSteps(args.workflow),
  };
}

function readType(doc: Obj): Type | undefined {
  const path = nodePath(doc);
  const revision = str(doc.revision);
  if (!path || !revision) return undefined;
  const spec = isRecord(doc.spec) ? doc.spec : {};
  let jsonSchema: unknown = spec.jsonSchema;
  // Manifests carry the schema as a JSON string; a broken one stays a string and fails validation later.
  if (typeof jsonSchema === 'string') {
    try {
      jsonSchema = JSON.parse(jsonSchema);
    } catch {
      /* kept as text */
    }
  }
  return { path, revision, jsonSchema, additionalRefs: arr(spec.additionalRefs).flatMap((r) => str(r) ?? []) };
}

function readTypeInstance(doc: Obj): TypeInstance | undefined {
  const id = str(doc.id);
  const typeRef = readTypeRef(doc.typeRef);
  if (!id || !typeRef) return undefined;
  const latest = isRecord(doc.latestResourceVersion) ? doc.latestResourceVersion : {};
  const spec = isRecord(latest.spec) ? latest.spec : isRecord(doc.spec) ? doc.spec : {};
  const backend = isRecord(doc.backend) && str(doc.backend.id) ? { id: str(doc.backend.id)!, ...(typeof doc.backend.abstract === 'boolean' ? { abstract: doc.backend.abstract } : {}) } : undefined;
  return { id, typeRef, ...('value' in spec ? { value: spec.value } : 'value' in doc ? { value: doc.value } : {}), ...(backend ? { backend } : {}) };
}

// ------------------------------------------------------------------ queries

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * Semver order (Capact sorts with Masterminds/semver); when either side is
 * not semver, plain string order, as Capact's sort falls back to.
 */
export function compareRevisions(a: string, b: string): number {
  const ma = SEMVER.exec(a);
  const mb = SEMVER.exec(b);
  if (!ma || !mb) return a < b ? -1 : a > b ? 1 : 0;
  for (let i = 1; i <= 3; i++) {
    const d = Number(ma[i]) - Number(mb[i]);
    if (d !== 0) return Math.sign(d);
  }
  const pa = ma[4];
  const pb = mb[4];
  if (pa === pb) return 0;
  if (pa === undefined) return 1; // a release is newer than its pre-releases
  if (pb === undefined) return -1;
  const xa = pa.split('.');
  const xb = pb.split('.');
  for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
    const ia = xa[i];
    const ib = xb[i];
    if (ia === undefined) return -1;
    if (ib === undefined) return 1;
    const na = /^\d+$/.test(ia);
    const nb = /^\d+$/.test(ib);
    if (na && nb && Number(ia) !== Number(ib)) return Math.sign(Number(ia) - Number(ib));
    if (na !== nb) return na ? -1 : 1;
    if (ia !== ib) return ia < ib ? -1 : 1;
  }
  return 0;
}

export function latestInterfaceRevision(hub: Hub, path: string): string | undefined {
  const revs = hub.interfaces[path];
  if (revs?.length) return revs[0]!.revision;
  // The test Hub answers from the Implementations that implement the path.
  if (hub.implementsMatch === 'path') {
    const found = Object.values(hub.implementations)
      .flat()
      .flatMap((impl) => impl.implements.filter((r) => r.path === path).map((r) => r.revision));
    return found.sort((a, b) => compareRevisions(b, a))[0];
  }
  return undefined;
}

export function findInterface(hub: Hub, ref: TypeRef): Interface | undefined {
  const revs = hub.interfaces[ref.path];
  if (!revs) return undefined;
  return revs.find((r) => r.revision === ref.revision) ?? (hub.implementsMatch === 'path' ? revs[0] : undefined);
}

export function findType(hub: Hub, ref: TypeRef): Type | undefined {
  return hub.types[ref.path]?.find((t) => t.revision === ref.revision);
}

/** Every Implementation revision that implements the Interface revision (in index order). */
/**
 * Implementations by the Interface path they implement, per Hub: a Hub is
 * not changed once loaded, so the index is built once and choosing among
 * thousands of Implementations does not scan them all per request.
 */
const byInterfacePath = new WeakMap<Hub, Map<string, Implementation[]>>();

function implementationIndex(hub: Hub): Map<string, Implementation[]> {
  let index = byInterfacePath.get(hub);
  if (!index) {
    index = new Map();
    for (const revs of Object.values(hub.implementations)) {
      for (const impl of revs) {
        for (const path of new Set(impl.implements.map((r) => r.path))) {
          const list = index.get(path) ?? [];
          list.push(impl);
          index.set(path, list);
        }
      }
    }
    byInterfacePath.set(hub, index);
  }
  return index;
}

export function implementationsFor(hub: Hub, iface: TypeRef): Implementation[] {
  const candidates = implementationIndex(hub).get(iface.path) ?? [];
  return hub.implementsMatch === 'path' ? [...candidates] : candidates.filter((impl) => impl.implements.some((r) => r.path === iface.path && r.revision === iface.revision));
}
