/**
 * Choosing an Implementation for an Interface the way Capact 0.7.0's
 * `PolicyEnforcedClient` does (reference/capact.md §3, §4, §6): rule lookup
 * by `path:revision`, then `path`, then `cap.*`, stopping at the first key
 * that exists even when nothing it allows matches; the oneOf items in
 * order; for each, the Hub filter (unanchored path regex, attributes,
 * requirement satisfaction, requires) and the sort by path then newest
 * revision; the first Implementation of the first item that returns any is
 * chosen. Then what the policy injects into it and where its outputs are
 * stored.
 */
import { pastDeadline } from '../host-clock';
import type { Deadline } from '../lang/budget';
import { compileRe2 } from '../lang/re2';
import { compareRevisions, findInterface, findType, implementationsFor, latestInterfaceRevision } from './hub';
import { clone, mergeByTypeRef, mergePolicies, type MergeOptions, type PolicySet } from './merge';
import { validateJsonSchema } from './schema';
import type {
  BackendChoice,
  CapactError,
  Hub,
  Implementation,
  ImplementationChoice,
  ImplementationConstraints,
  ImplementationRequest,
  InjectedRequiredTypeInstance,
  MatchedRule,
  MergeMode,
  Policy,
  PolicyRule,
  Rejection,
  RejectionConstraint,
  RequiredTypeInstanceToInject,
  RulesForInterface,
  TypeInstanceBackendRef,
  TypeRef,
} from './types';

export const ANY_INTERFACE_PATH = 'cap.*';
/** Capact always counts a Kubernetes platform as an existing TypeInstance. */
export const CONSTANT_TYPE_INSTANCES: readonly TypeRef[] = [{ path: 'cap.core.type.platform.kubernetes', revision: '0.1.0' }];
export const HUB_STORAGE_PARENT = 'cap.core.type.hub.storage';
const MAX_BACKEND_LOOKUP = 30;
export const NO_IMPLEMENTATIONS = 'No Implementations found with current policy for given Interface';

export interface ChooseOptions {
  /**
   * `capact-compat` reproduces the code's backend lookup, which never tries
   * an exact path without revision; `documented` (default) tries it second,
   * as the docs list.
   */
  mode?: MergeMode;
  /** TypeRefs that count as existing besides the Hub's TypeInstances; default Kubernetes 0.1.0. */
  constantTypeInstances?: readonly TypeRef[];
  /**
   * When the choice must be made, on the host's clock. Each path match has a
   * work cap, but a Hub of many Implementations under many oneOf items is
   * many matches: past it, the choice fails (`time_limit`) instead.
   */
  deadline?: Deadline;
}

// ----------------------------------------------------------- TI metadata

type TiKind = 'RequiredTypeInstance' | 'AdditionalTypeInstance' | 'DefaultTypeInstance' | 'BackendTypeInstance';

function tiDetails(id: string, name: string | undefined, description: string | undefined): string {
  return [`ID: ${JSON.stringify(id)}`, ...(name !== undefined ? [`name: ${JSON.stringify(name)}`] : []), ...(description !== undefined ? [`description: ${JSON.stringify(description)}`] : [])].join(', ');
}

/** Capact's validation format: issues grouped by field, fields sorted, under a header line. */
export function formatIssues(wrap: string, header: string, issues: { field: string; message: string }[]): string {
  const byField = new Map<string, string[]>();
  for (const i of issues) byField.set(i.field, [...(byField.get(i.field) ?? []), i.message]);
  const blocks = [...byField.keys()].sort().map((f) => `- ${header} ${JSON.stringify(f)}:\n    ${byField.get(f)!.map((m) => `* ${m}`).join('\n    ')}`);
  return `${wrap}:\n${blocks.join('\n')}`;
}

/** True when the Type is a Hub storage backend: its path is under, or its additionalRefs name, `cap.core.type.hub.storage`. */
export function extendsHubStorage(hub: Hub, ref: TypeRef): boolean {
  if (ref.path.startsWith(HUB_STORAGE_PARENT)) return true;
  return findType(hub, ref)?.additionalRefs.includes(HUB_STORAGE_PARENT) ?? false;
}

/**
 * Fills in the TypeRef of every TypeInstance a policy names by id, from the
 * Hub's TypeInstances (Capact asks the Local Hub). An id the Hub does not
 * know and that carries no TypeRef is an error; so is a backend whose Type
 * is not a Hub storage.
 */
/**
 * The resolved policy per (Hub, policy) pair: both are read-only once made,
 * so 10,000 requests under one merged policy resolve its ids once.
 */
const resolvedMetadata = new WeakMap<Policy, WeakMap<Hub, { policy: Policy; errors: CapactError[] }>>();

export function resolvePolicyMetadata(hub: Hub, policy: Policy): { policy: Policy; errors: CapactError[] } {
  let perHub = resolvedMetadata.get(policy);
  if (!perHub) resolvedMetadata.set(policy, (perHub = new WeakMap()));
  let done = perHub.get(hub);
  if (!done) perHub.set(hub, (done = resolveMetadataOnce(hub, policy)));
  return done;
}

function resolveMetadataOnce(hub: Hub, policy: Policy): { policy: Policy; errors: CapactError[] } {
  const out = clone(policy) ?? {};
  const missing: { field: TiKind; message: string }[] = [];
  const resolve = (kind: TiKind, entry: { id: string; typeRef?: TypeRef; description?: string; name?: string }) => {
    const ti = hub.typeInstances[entry.id];
    if (ti) entry.typeRef = { path: ti.typeRef.path, revision: ti.typeRef.revision };
    else if (!entry.typeRef?.path || !entry.typeRef.revision) missing.push({ field: kind, message: `missing Type reference for ${tiDetails(entry.id, entry.name, entry.description)}` });
  };
  for (const rule of out.interface?.rules ?? []) {
    for (const item of rule.oneOf ?? []) {
      for (const ti of item.inject?.requiredTypeInstances ?? []) resolve('RequiredTypeInstance', ti);
      for (const ti of item.inject?.additionalTypeInstances ?? []) resolve('AdditionalTypeInstance', ti);
    }
  }
  for (const ti of out.interface?.default?.inject?.requiredTypeInstances ?? []) resolve('DefaultTypeInstance', ti);
  const backendRefs = new Map<string, TypeRef>();
  for (const rule of out.typeInstance?.rules ?? []) {
    const ti = hub.typeInstances[rule.backend.id];
    if (ti) backendRefs.set(rule.backend.id, ti.typeRef);
    else missing.push({ field: 'BackendTypeInstance', message: `missing Type reference for ${tiDetails(rule.backend.id, undefined, rule.backend.description)}` });
  }
  const errors: CapactError[] = [];
  if (missing.length > 0) {
    errors.push({
      code: 'missing_type_reference',
      message: formatIssues('while validating Policy rule', 'Metadata for', missing),
      issues: missing,
    });
  }
  const notStorage = (out.typeInstance?.rules ?? []).flatMap((rule) => {
    const ref = backendRefs.get(rule.backend.id);
    if (!ref || extendsHubStorage(hub, ref)) return [];
    return [{ field: 'BackendTypeInstance', message: `Type reference ${tiDetails(rule.backend.id, undefined, rule.backend.description)} is not a Hub storage` }];
  });
  if (notStorage.length > 0) {
    errors.push({
      code: 'not_hub_storage',
      message: formatIssues('while TypeInstance metadata validation after resolving TypeRefs', 'Metadata for', notStorage),
      issues: notStorage,
    });
  }
  return { policy: out, errors };
}

/**
 * The one policy a choice is made under, for every caller (the CLI, Try
 * it, actions, interface components, a render): the Global and Action
 * policies' TypeInstance ids resolved to TypeRefs from the Hub first, each
 * policy on its own as Capact does, and only then merged. The merge keys
 * TypeInstances by TypeRef, so two policies injecting TypeInstances of one
 * Type meet as one entry and one wins (see merge.ts for which, per mode);
 * merged before their TypeRefs were known they were keyed by id, both
 * survived and both reached one alias ("found duplicated alias").
 *
 * Ids the Hub does not know stay unresolved in `policy` (keyed by id, never
 * colliding), and choosing under it reports them; `errors` names them per
 * policy for a caller that stops before choosing. Workflow-step policies
 * inject no TypeInstances and are merged as they are.
 */
export function mergeResolvedPolicies(hub: Hub, policies: PolicySet, options: MergeOptions = {}): { policy: Policy; errors: CapactError[] } {
  const global = policies.global ? resolvePolicyMetadata(hub, policies.global) : undefined;
  const action = policies.action ? resolvePolicyMetadata(hub, policies.action) : undefined;
  const policy = mergePolicies({ global: global?.policy, action: action?.policy, ...(policies.workflow ? { workflow: policies.workflow } : {}) }, options);
  return { policy, errors: [...(global?.errors ?? []), ...(action?.errors ?? [])] };
}

// -------------------------------------------------------------- lookup

const refKey = (path: string, revision: string | undefined) => (revision !== undefined ? `${path}:${revision}` : path);
const tr = (r: TypeRef) => `${r.path}:${r.revision}`;

/** Keys tried, in order; the first that exists decides, even if it allows nothing. */
export function ruleLookupKeys(iface: TypeRef): string[] {
  return [`${iface.path}:${iface.revision}`, iface.path, ANY_INTERFACE_PATH];
}

const ruleMaps = new WeakMap<Policy, Map<string, { index: number; rule: RulesForInterface }>>();

export function findRuleForInterface(policy: Policy, iface: TypeRef): { key: string; index: number; rule: RulesForInterface } | null {
  let byKey = ruleMaps.get(policy);
  if (!byKey) {
    byKey = new Map();
    // A later rule with the same key replaces an earlier one, as Capact's map does.
    for (const [index, rule] of (policy.interface?.rules ?? []).entries()) byKey.set(refKey(rule.interface.path, rule.interface.revision), { index, rule });
    ruleMaps.set(policy, byKey);
  }
  for (const key of ruleLookupKeys(iface)) {
    const found = byKey.get(key);
    if (found) return { key, ...found };
  }
  return null;
}

// -------------------------------------------------------------- filters

/** RE2's work budget for one path match (path length × program size). */
const PATH_WORK = 20_000_000;

/** Compiled path patterns: a policy names few, and compiling one costs more than matching it many times. */
const patterns = new Map<string, ReturnType<typeof compileRe2>>();
function compiledPath(pattern: string): ReturnType<typeof compileRe2> {
  let re = patterns.get(pattern);
  if (!re) {
    // Bounded: a stream of distinct patterns cannot grow it without limit.
    if (patterns.size >= 1000) patterns.clear();
    patterns.set(pattern, (re = compileRe2(pattern)));
  }
  return re;
}

interface FilterContext {
  existing: Set<string>;
  injected: Set<string>;
}

type Verdict = { pass: true } | { pass: false; constraint: RejectionConstraint; reason: string };

/** The first constraint of one oneOf item that the Implementation fails, in Capact's filter order. */
export function checkConstraints(impl: Implementation, constraints: ImplementationConstraints, ctx: FilterContext): Verdict {
  if (constraints.path !== undefined) {
    const re = compiledPath(constraints.path);
    // Go's regexp.Match: unanchored; an invalid pattern matches nothing.
    if (!re.ok) return { pass: false, constraint: 'path', reason: `path pattern ${JSON.stringify(constraints.path)} does not compile: ${re.error.message}` };
    // Paths are short; the work cap only refuses a pattern-and-path pair too costly to match.
    const matched = re.value.test(impl.path, PATH_WORK);
    if (matched === undefined) return { pass: false, constraint: 'path', reason: `path is too long to match against pattern ${JSON.stringify(constraints.path)}` };
    if (!matched) return { pass: false, constraint: 'path', reason: `path does not match pattern ${JSON.stringify(constraints.path)}` };
  }
  const attrs = constraints.attributes ?? [];
  if (attrs.length > 0) {
    // Capact keys constraints by path (a later one replaces an earlier one) and counts matching attributes.
    const wanted = new Map<string, string | undefined>();
    for (const a of attrs) wanted.set(a.path, a.revision);
    const matched = impl.attributes.filter((a) => wanted.has(a.path) && (wanted.get(a.path) === undefined || wanted.get(a.path) === a.revision)).length;
    if (matched !== wanted.size) {
      const lacking = [...wanted].filter(([p, r]) => !impl.attributes.some((a) => a.path === p && (r === undefined || a.revision === r)));
      const reason = lacking.length
        ? `lacks attribute ${lacking.map(([p, r]) => refKey(p, r)).join(', ')}`
        : `lists a required attribute more than once (${matched} matches for ${wanted.size} constraints)`;
      return { pass: false, constraint: 'attributes', reason };
    }
  }
  // Capact skips requirement satisfaction when nothing at all exists (never, with the Kubernetes constant).
  const unmet = ctx.existing.size > 0 ? unmetRequirement(impl, ctx) : undefined;
  if (unmet) return { pass: false, constraint: 'requirements', reason: unmet };
  const requires = constraints.requires ?? [];
  if (requires.length > 0) {
    const wanted = new Map<string, string | undefined>();
    for (const r of requires) wanted.set(r.path, r.revision);
    const items = impl.requires.flatMap((g) => [...g.oneOf, ...g.allOf, ...g.anyOf]);
    const lacking = [...wanted].filter(([p, r]) => !items.some((i) => i.typeRef.path === p && (r === undefined || i.typeRef.revision === r)));
    if (lacking.length > 0 || impl.requires.length === 0) {
      return { pass: false, constraint: 'requires', reason: `spec.requires does not list ${(lacking.length ? lacking : [...wanted]).map(([p, r]) => refKey(p, r)).join(', ')}` };
    }
  }
  return { pass: true };
}

/**
 * Requirement satisfaction: each group's allOf items all present, at least
 * one anyOf item, exactly one oneOf item. An item with an alias counts only
 * when the policy also injects a TypeInstance of its TypeRef.
 */
function unmetRequirement(impl: Implementation, ctx: FilterContext): string | undefined {
  const counts = (item: { typeRef: TypeRef; alias?: string }) => ctx.existing.has(tr(item.typeRef)) && (item.alias === undefined || ctx.injected.has(tr(item.typeRef)));
  for (const group of impl.requires) {
    for (const item of group.allOf) {
      if (!ctx.existing.has(tr(item.typeRef))) return `requires ${tr(item.typeRef)} (allOf under ${group.prefix}), and no such TypeInstance exists`;
      if (item.alias !== undefined && !ctx.injected.has(tr(item.typeRef))) return `requires ${tr(item.typeRef)} under alias "${item.alias}" (allOf under ${group.prefix}), and the policy injects none`;
    }
    if (group.anyOf.length > 0 && !group.anyOf.some(counts)) return `none of the anyOf requirements under ${group.prefix} is satisfied (an aliased one must also be injected by the policy)`;
    if (group.oneOf.length > 0) {
      const n = group.oneOf.filter(counts).length;
      if (n !== 1) {
        return n === 0
          ? `none of the oneOf requirements under ${group.prefix} (${group.oneOf.map((i) => tr(i.typeRef) + (i.alias ? ` as "${i.alias}"` : '')).join(', ')}) is satisfied${group.oneOf.some((i) => i.alias) ? ' (an aliased one must also be injected by the policy)' : ''}`
          : `${n} of the oneOf requirements under ${group.prefix} are satisfied, exactly one must be`;
      }
    }
  }
  return undefined;
}

function sortImplementations(list: Implementation[]): Implementation[] {
  return [...list].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : compareRevisions(b.revision, a.revision)));
}

/** Required TypeInstances a oneOf item brings: the merged defaults, then the item's own (which win on the same TypeRef). */
export function requiredTypeInstancesForRule(policy: Policy, item: PolicyRule | undefined): RequiredTypeInstanceToInject[] {
  return mergeByTypeRef(policy.interface?.default?.inject?.requiredTypeInstances ?? [], item?.inject?.requiredTypeInstances ?? [], 'incoming');
}

// ---------------------------------------------------------------- choose

/**
 * Chooses an Implementation for one Interface under an already merged
 * policy. TypeInstance ids in the policy are resolved against the Hub first.
 */
export function chooseImplementation(hub: Hub, mergedPolicy: Policy, request: ImplementationRequest, options: ChooseOptions = {}): ImplementationChoice {
  const mode = options.mode ?? 'documented';
  const requested = request.interface;
  const iface: TypeRef = { path: requested.path, revision: requested.revision ?? latestInterfaceRevision(hub, requested.path) ?? '' };
  const result: ImplementationChoice = {
    ok: false,
    interface: iface,
    implementation: null,
    rule: null,
    candidates: [],
    injected: { requiredTypeInstances: [], additionalParameters: [], additionalTypeInstances: [] },
    backends: [],
    rejected: [],
    errors: [],
  };
  const resolved = resolvePolicyMetadata(hub, mergedPolicy);
  if (resolved.errors.length > 0) {
    result.errors = resolved.errors;
    return result;
  }
  const policy = resolved.policy;
  const all = sortImplementations(implementationsFor(hub, iface));
  const noImplementation = (): CapactError => ({
    code: 'no_implementation',
    // The revision is the one asked for: Capact resolves the latest on a copy of the reference.
    message: `while picking ImplementationRevision for Interface "${requested.path}:${requested.revision ?? ''}": ${NO_IMPLEMENTATIONS}`,
  });

  const found = findRuleForInterface(policy, iface);
  if (!found || (found.rule.oneOf ?? []).length === 0) {
    if (found) result.rule = { key: found.key, ruleIndex: found.index, interface: found.rule.interface, oneOfIndex: null, constraints: null };
    const constraint: RejectionConstraint = found ? 'denied' : 'no-rule';
    const reason = found ? `the rule for ${found.key} has an empty oneOf: every Implementation is denied` : `no policy rule matches ${ruleLookupKeys(iface).join(', ')}`;
    result.rejected = all.map((impl) => ({ path: impl.path, revision: impl.revision, constraint, reason, byOneOf: [] }));
    result.errors.push(noImplementation());
    return result;
  }

  const existing = new Set<string>([...Object.values(hub.typeInstances).map((ti) => tr(ti.typeRef)), ...(options.constantTypeInstances ?? CONSTANT_TYPE_INSTANCES).map(tr)]);
  const oneOf = found.rule.oneOf;
  const tried = new Map<Implementation, Rejection['byOneOf']>(all.map((impl) => [impl, []]));
  let winner: { index: number; list: Implementation[] } | null = null;
  for (let i = 0; i < oneOf.length && !winner; i++) {
    const item = oneOf[i]!;
    const injected = new Set(requiredTypeInstancesForRule(policy, item).flatMap((ti) => (ti.typeRef ? [tr(ti.typeRef)] : [])));
    const passing: Implementation[] = [];
    for (const impl of all) {
      if (pastDeadline(options.deadline)) {
        result.errors.push({ code: 'time_limit', message: `choosing an Implementation of Interface "${iface.path}:${iface.revision}" ran out of its time (${options.deadline!.ms} ms)` });
        return result;
      }
      const verdict = checkConstraints(impl, item.implementationConstraints ?? {}, { existing, injected });
      if (verdict.pass) passing.push(impl);
      else tried.get(impl)!.push({ oneOfIndex: i, constraint: verdict.constraint, reason: verdict.reason });
    }
    if (passing.length > 0) winner = { index: i, list: passing };
  }

  const decisive = winner ? winner.index : oneOf.length - 1;
  result.rule = {
    key: found.key,
    ruleIndex: found.index,
    interface: found.rule.interface,
    oneOfIndex: winner ? winner.index : null,
    constraints: winner ? clone(oneOf[winner.index]!.implementationConstraints ?? {}) : null,
  };
  const chosen = winner?.list[0];
  for (const impl of all) {
    if (impl === chosen) continue;
    const byOneOf = tried.get(impl)!;
    const last = byOneOf.find((t) => t.oneOfIndex === decisive);
    result.rejected.push(
      last
        ? { path: impl.path, revision: impl.revision, constraint: last.constraint, reason: last.reason, byOneOf }
        : { path: impl.path, revision: impl.revision, constraint: 'sorted', reason: `also allowed by oneOf[${decisive}], but ${chosen!.path}:${chosen!.revision} sorts first (path ascending, newest revision first)`, byOneOf },
    );
  }
  if (!winner || !chosen) {
    result.errors.push(noImplementation());
    return result;
  }
  result.candidates = winner.list.map((impl) => ({ path: impl.path, revision: impl.revision }));
  result.implementation = { path: chosen.path, revision: chosen.revision };
  const item = oneOf[winner.index]!;

  // Required TypeInstances: each goes to the first aliased requirement with exactly its TypeRef.
  const byAlias = new Map<string, InjectedRequiredTypeInstance>();
  for (const ti of requiredTypeInstancesForRule(policy, item)) {
    if (!ti.typeRef) continue;
    const alias = findAliasFor(chosen, ti.typeRef);
    if (alias === undefined) continue; // not needed by this Implementation: skipped silently, as Capact does
    if (byAlias.has(alias)) {
      result.errors.push({ code: 'duplicated_alias', message: `found duplicated alias ${JSON.stringify(alias)} entry under requires property`, field: alias });
      continue;
    }
    byAlias.set(alias, { alias, id: ti.id, ...(ti.description !== undefined ? { description: ti.description } : {}), typeRef: ti.typeRef });
  }
  result.injected.requiredTypeInstances = [...byAlias.values()];

  // Additional TypeInstances: declared by the Implementation with the same name and TypeRef.
  const additionalTIs = item.inject?.additionalTypeInstances ?? [];
  const undeclared = additionalTIs.flatMap((ti) => {
    const declared = chosen.additionalInput.typeInstances.some((d) => d.name === ti.name && ti.typeRef !== undefined && d.typeRef.path === ti.typeRef.path && d.typeRef.revision === ti.typeRef.revision);
    if (declared) return [];
    const ref = ti.typeRef ? tr(ti.typeRef) : '';
    return [{ field: ti.name, message: `cannot find such definition with exact name and Type reference ${JSON.stringify(ref)} in Implementation ${JSON.stringify(chosen.path)}` }];
  });
  if (undeclared.length > 0) {
    result.errors.push({
      code: 'additional_type_instance',
      message: formatIssues('while checking if additional TypeInstances from Policy are defined in Implementation manifest', 'AdditionalTypeInstance', undeclared),
      issues: undeclared,
    });
  } else {
    result.injected.additionalTypeInstances = additionalTIs.map((ti) => ({ name: ti.name, id: ti.id, ...(ti.typeRef ? { typeRef: ti.typeRef } : {}) }));
  }

  // Additional parameters: validated against the JSON Schema of the Implementation's declared Type.
  const params = item.inject?.additionalParameters ?? [];
  const paramIssues = params.flatMap((p) => validateAdditionalParameter(hub, chosen, p.name, p.value).map((message) => ({ field: p.name, message })));
  if (paramIssues.length > 0) {
    result.errors.push({
      code: 'additional_parameters',
      message: formatIssues('while validating additional input parameters schemas', 'AdditionalParameters', paramIssues),
      issues: paramIssues,
    });
  } else {
    result.injected.additionalParameters = clone(params);
  }

  const backends = chooseBackends(hub, policy, chosen, iface, byAlias, mode);
  result.backends = backends.backends;
  result.errors.push(...backends.errors);
  result.ok = result.errors.length === 0;
  return result;
}

function findAliasFor(impl: Implementation, ref: TypeRef): string | undefined {
  for (const group of impl.requires) {
    for (const item of [...group.oneOf, ...group.allOf, ...group.anyOf]) {
      if (item.alias !== undefined && item.typeRef.path === ref.path && item.typeRef.revision === ref.revision) return item.alias;
    }
  }
  return undefined;
}

/** Problems with one additional parameter, in gojsonschema's words; empty when valid. */
export function validateAdditionalParameter(hub: Hub, impl: Implementation, name: string, value: unknown): string[] {
  const decl = impl.additionalInput.parameters.find((p) => p.name === name);
  if (!decl) return ['Unknown parameter. Cannot validate it against JSONSchema.'];
  const type = findType(hub, decl.typeRef);
  if (!type) return [`cannot find Type ${JSON.stringify(tr(decl.typeRef))} for the parameter in the Hub`];
  if (typeof type.jsonSchema !== 'object' || type.jsonSchema === null) return [`Type ${JSON.stringify(tr(decl.typeRef))} has no usable JSON Schema`];
  return validateJsonSchema(type.jsonSchema, value);
}

// ---------------------------------------------------------------- backends

/**
 * The backend for one TypeRef from `typeInstance.rules` keys (`path[:revision]`):
 * exact `path:revision`; (documented mode only) exact `path`; then for each
 * shorter prefix `prefix.*:revision`, then `prefix.*`, down to `cap.*`.
 */
export function lookupBackendByTypeRef(byKey: ReadonlyMap<string, TypeInstanceBackendRef>, ref: TypeRef, mode: MergeMode): { key: string; backend: TypeInstanceBackendRef } | null {
  const tryKey = (key: string) => (byKey.has(key) ? { key, backend: byKey.get(key)! } : null);
  const exact = tryKey(`${ref.path}:${ref.revision}`) ?? (mode === 'documented' ? tryKey(ref.path) : null);
  if (exact) return exact;
  let sub = ref.path;
  for (let i = 0; `${sub}.` !== 'cap.' && i <= MAX_BACKEND_LOOKUP; i++) {
    const dot = sub.lastIndexOf('.');
    if (dot !== -1) sub = sub.slice(0, dot);
    const hit = tryKey(`${sub}.*:${ref.revision}`) ?? tryKey(`${sub}.*`);
    if (hit) return hit;
  }
  return null;
}

export function backendKeysFromPolicy(policy: Policy): Map<string, TypeInstanceBackendRef> {
  const byKey = new Map<string, TypeInstanceBackendRef>();
  for (const rule of policy.typeInstance?.rules ?? []) byKey.set(refKey(rule.typeRef.path, rule.typeRef.revision), rule.backend);
  return byKey;
}

function chooseBackends(
  hub: Hub,
  policy: Policy,
  impl: Implementation,
  ifaceRef: TypeRef,
  byAlias: ReadonlyMap<string, InjectedRequiredTypeInstance>,
  mode: MergeMode,
): { backends: BackendChoice[]; errors: CapactError[] } {
  const byKey = backendKeysFromPolicy(policy);
  const iface = findInterface(hub, ifaceRef);
  const outputs = new Map<string, TypeRef | null>();
  for (const o of iface?.output.typeInstances ?? []) outputs.set(o.name, o.typeRef);
  for (const o of impl.additionalOutput.typeInstances) if (!outputs.has(o.name)) outputs.set(o.name, o.typeRef);
  const aliasFor = new Map<string, string>();
  for (const step of impl.steps) {
    for (const o of step.outputTypeInstances) {
      if (!o.backend) continue;
      if (!outputs.has(o.name)) outputs.set(o.name, null);
      if (!aliasFor.has(o.name)) aliasFor.set(o.name, o.backend);
    }
  }
  const backends: BackendChoice[] = [];
  const errors: CapactError[] = [];
  for (const [name, typeRef] of outputs) {
    const alias = aliasFor.get(name);
    if (alias !== undefined) {
      const injected = byAlias.get(alias);
      if (!injected) {
        errors.push({ code: 'backend_alias', message: `cannot find backend storage for specified ${JSON.stringify(alias)} alias`, field: alias });
        backends.push({ name, typeRef, backend: null, via: { kind: 'alias', alias } });
        continue;
      }
      if (!extendsHubStorage(hub, injected.typeRef)) {
        errors.push({ code: 'backend_alias', message: `TypeInstance with ${JSON.stringify(alias)} alias is not a Hub storage`, field: alias });
      }
      backends.push({ name, typeRef, backend: { id: injected.id, ...(injected.description !== undefined ? { description: injected.description } : {}) }, via: { kind: 'alias', alias } });
      continue;
    }
    const hit = typeRef ? lookupBackendByTypeRef(byKey, typeRef, mode) : null;
    backends.push(hit ? { name, typeRef, backend: hit.backend, via: { kind: 'typeRef', key: hit.key } } : { name, typeRef, backend: null, via: { kind: 'default' } });
  }
  return { backends, errors };
}
