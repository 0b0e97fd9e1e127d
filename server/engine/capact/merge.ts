/**
 * Merging Global, Action and Workflow-step policies into the one policy the
 * engine evaluates (reference/capact.md §5). Policies are applied in
 * priority order, highest first, onto an empty policy; what is already
 * merged has priority over what comes next.
 *
 * Two modes, because Capact's docs and code disagree:
 * - `documented` (Keelson's default, DESIGN.md "Semantics"): the
 *   higher-priority policy wins everywhere.
 * - `capact-compat`: Capact 0.7.0's `policy_merger.go`, quirks included:
 *   for `interface.default.inject.requiredTypeInstances` and for
 *   `typeInstance.rules` a later (lower-priority) policy replaces an entry
 *   with the same TypeRef; oneOf items are matched only against the items
 *   present before the incoming rule was applied (so two identical items in
 *   one incoming rule are both appended); constraints are compared
 *   structurally (`requires: []` is not "absent", a missing revision is not
 *   `""`).
 * Everything else is the same in both modes: rules for a new Interface are
 * appended; oneOf items with different constraints are appended after the
 * higher-priority ones; items with equal constraints are merged, the
 * higher-priority side winning per TypeRef and per parameter key, lists
 * keeping the lower-priority entries' positions (Capact's order).
 *
 * Not reproduced: in Go, after an append reallocates a oneOf slice, a later
 * merge into an item whose `inject` was nil writes to the stale copy and is
 * lost. That depends on slice capacities, not on the policy, and no Capact
 * test relies on it.
 */
import type {
  AdditionalParameterToInject,
  AdditionalTypeInstanceToInject,
  CapactError,
  ImplementationConstraints,
  ImplementationImport,
  MergeMode,
  Policy,
  PolicyKind,
  PolicyRule,
  RefWithOptRevision,
  RequiredTypeInstanceToInject,
  RulesForInterface,
  RulesForTypeInstance,
  WorkflowPolicy,
} from './types';
import { DEFAULT_POLICY_ORDER } from './types';
import { isRecord } from '../lang/data';

export interface PolicySet {
  global?: Policy;
  action?: Policy;
  /** Workflow-step policies as a stack, outermost (pushed first) first; it has priority over inner ones. */
  workflow?: Policy[];
}

export interface MergeOptions {
  /** Highest priority first; default ACTION, GLOBAL, WORKFLOW (Capact's chart default). */
  order?: readonly PolicyKind[];
  /** Default `documented`. */
  mode?: MergeMode;
}

/** Plain-data deep copy; drops undefined fields so merged output compares cleanly. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export function mergePolicies(policies: PolicySet, options: MergeOptions = {}): Policy {
  const mode = options.mode ?? 'documented';
  const order = options.order ?? DEFAULT_POLICY_ORDER;
  const merged: { default?: RequiredTypeInstanceToInject[]; rules: RulesForInterface[]; tiRules: RulesForTypeInstance[] } = { rules: [], tiRules: [] };
  const apply = (p: Policy | undefined, withTypeInstance: boolean) => {
    if (!p) return;
    applyInterfacePolicy(merged, p, mode);
    if (withTypeInstance) applyTypeInstancePolicy(merged.tiRules, p.typeInstance?.rules ?? [], mode);
  };
  for (const kind of order) {
    if (kind === 'GLOBAL') apply(policies.global, true);
    else if (kind === 'ACTION') apply(policies.action, true);
    // A Workflow-step policy has no typeInstance part (Capact ignores it).
    else if (kind === 'WORKFLOW') for (const wp of policies.workflow ?? []) apply(wp, false);
  }
  const out: Policy = {};
  if (merged.default !== undefined || merged.rules.length > 0) {
    out.interface = {};
    if (merged.default !== undefined) out.interface.default = { inject: { requiredTypeInstances: merged.default } };
    if (merged.rules.length > 0) out.interface.rules = merged.rules;
  }
  if (merged.tiRules.length > 0) out.typeInstance = { rules: merged.tiRules };
  return clone(out);
}

function applyInterfacePolicy(merged: { default?: RequiredTypeInstanceToInject[]; rules: RulesForInterface[] }, incoming: Policy, mode: MergeMode): void {
  const defaults = incoming.interface?.default?.inject?.requiredTypeInstances ?? [];
  if (defaults.length > 0) {
    // Capact merges `current` with `incoming` as (current, overwrite): the incoming, lower-priority entry replaces.
    merged.default = mergeByTypeRef(merged.default ?? [], defaults, mode === 'capact-compat' ? 'incoming' : 'current');
  }
  for (const rule of incoming.interface?.rules ?? []) {
    const at = merged.rules.findIndex((r) => sameInterface(r.interface, rule.interface));
    if (at === -1) {
      merged.rules.push(clone(rule));
      continue;
    }
    const target = merged.rules[at]!;
    target.oneOf ??= [];
    // Capact matches against a copy taken before this rule's items are appended.
    const matchable = mode === 'capact-compat' ? target.oneOf.length : Number.POSITIVE_INFINITY;
    for (const item of rule.oneOf ?? []) {
      const j = target.oneOf.findIndex((existing, k) => k < matchable && constraintsEqual(existing.implementationConstraints, item.implementationConstraints, mode));
      if (j === -1) target.oneOf.push(clone(item));
      else mergeRuleItem(target.oneOf[j]!, item);
    }
  }
}

/** Same Interface: equal path and equal revision, a missing revision counting as `""`. */
function sameInterface(a: RefWithOptRevision, b: RefWithOptRevision): boolean {
  return a.path === b.path && (a.revision ?? '') === (b.revision ?? '');
}

/** Merges a lower-priority item into a higher-priority one with the same constraints. */
function mergeRuleItem(higher: PolicyRule, lower: PolicyRule): void {
  if (!lower.inject) return;
  const inject = (higher.inject ??= {});
  if (lower.inject.additionalParameters !== undefined) {
    inject.additionalParameters = mergeParameters(clone(lower.inject.additionalParameters), inject.additionalParameters ?? []);
  }
  if (lower.inject.requiredTypeInstances !== undefined) {
    inject.requiredTypeInstances = mergeByTypeRef(clone(lower.inject.requiredTypeInstances), inject.requiredTypeInstances ?? [], 'incoming');
  }
  if (lower.inject.additionalTypeInstances !== undefined) {
    inject.additionalTypeInstances = mergeByTypeRef(clone(lower.inject.additionalTypeInstances), inject.additionalTypeInstances ?? [], 'incoming');
  }
}

/**
 * TypeInstance lists keyed by TypeRef `path:revision`: `incoming` entries
 * replace `current` ones in place (winner `incoming`) or are dropped (winner
 * `current`); new ones are appended. An entry whose TypeRef was not resolved
 * is keyed by its id, so unresolved entries never collide with each other.
 */
export function mergeByTypeRef<T extends RequiredTypeInstanceToInject | AdditionalTypeInstanceToInject>(current: T[], incoming: T[], winner: 'incoming' | 'current'): T[] {
  const out = [...current];
  for (const next of incoming) {
    let found = false;
    current.forEach((existing, i) => {
      if (typeRefKey(existing) !== typeRefKey(next)) return;
      found = true;
      if (winner === 'incoming') out[i] = next;
    });
    if (!found) out.push(next);
  }
  return out;
}

function typeRefKey(ti: { id: string; typeRef?: { path: string; revision?: string } }): string {
  return ti.typeRef ? `${ti.typeRef.path}:${ti.typeRef.revision ?? ''}` : `id:${ti.id}`;
}

/** Same name: the values are deep-merged, `overwrite` (higher priority) winning per key. */
function mergeParameters(current: AdditionalParameterToInject[], overwrite: AdditionalParameterToInject[]): AdditionalParameterToInject[] {
  const out = [...current];
  for (const next of overwrite) {
    let found = false;
    current.forEach((existing, i) => {
      if (existing.name !== next.name) return;
      found = true;
      out[i] = { name: existing.name, value: deepMerge(existing.value, next.value) };
    });
    if (!found) out.push(next);
  }
  return out;
}

export function deepMerge(current: Record<string, unknown>, overwrite: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(overwrite ?? {})) {
    const base = out[k];
    out[k] = isRecord(v) && isRecord(base) ? deepMerge(base, v) : v;
  }
  return out;
}


function applyTypeInstancePolicy(current: RulesForTypeInstance[], incoming: RulesForTypeInstance[], mode: MergeMode): void {
  for (const rule of incoming) {
    const at = current.findIndex((r) => r.typeRef.path === rule.typeRef.path && (r.typeRef.revision ?? '') === (rule.typeRef.revision ?? ''));
    if (at === -1) current.push(clone(rule));
    // Capact overrides with the later, lower-priority rule; the docs promise the higher-priority one.
    else if (mode === 'capact-compat') current[at] = clone(rule);
  }
}

/**
 * `capact-compat`: Go's `reflect.DeepEqual` on the constraints struct.
 * `documented`: "the same implementationConstraints" as a user reads it:
 * an empty list equals an absent one, an empty revision or path equals an
 * absent one.
 */
export function constraintsEqual(a: ImplementationConstraints | undefined, b: ImplementationConstraints | undefined, mode: MergeMode): boolean {
  const x = a ?? {};
  const y = b ?? {};
  if (mode === 'capact-compat') {
    return x.path === y.path && refListsEqual(x.requires, y.requires, true) && refListsEqual(x.attributes, y.attributes, true);
  }
  return (x.path || undefined) === (y.path || undefined) && refListsEqual(x.requires, y.requires, false) && refListsEqual(x.attributes, y.attributes, false);
}

function refListsEqual(a: RefWithOptRevision[] | undefined, b: RefWithOptRevision[] | undefined, strict: boolean): boolean {
  if (strict && (a === undefined) !== (b === undefined)) return false;
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  return x.every((r, i) => {
    const s = y[i]!;
    if (r.path !== s.path) return false;
    return strict ? r.revision === s.revision : (r.revision || undefined) === (s.revision || undefined);
  });
}

// ------------------------------------------------------- Workflow policies

/**
 * Turns a Workflow-step policy into a Policy: an Interface written as an
 * import alias (`postgresql.install`) is resolved through the
 * Implementation's `spec.imports`, as Capact's `ResolveImports` does; only
 * `additionalParameters` survive from `inject`.
 */
export function workflowPolicyToPolicy(wp: WorkflowPolicy, imports: readonly ImplementationImport[]): { policy: Policy; errors: CapactError[] } {
  const errors: CapactError[] = [];
  const rules: RulesForInterface[] = [];
  (wp.interface?.rules ?? []).forEach((rule, i) => {
    let iface: RefWithOptRevision;
    if (typeof rule.interface === 'string') {
      const resolved = resolveActionReference(imports, rule.interface);
      if ('error' in resolved) {
        errors.push({ ...resolved.error, message: `while resolving import in WorkflowPolicy: while resolving Action path: ${resolved.error.message}`, path: ['interface', 'rules', i, 'interface'] });
        return;
      }
      iface = resolved.ref;
    } else {
      iface = { path: rule.interface.path, ...(rule.interface.revision !== undefined ? { revision: rule.interface.revision } : {}) };
    }
    rules.push({
      interface: iface,
      oneOf: (rule.oneOf ?? []).map((item) => ({
        implementationConstraints: clone(item.implementationConstraints ?? {}),
        ...(item.inject ? { inject: item.inject.additionalParameters !== undefined ? { additionalParameters: clone(item.inject.additionalParameters) } : {} } : {}),
      })),
    });
  });
  return { policy: { interface: { rules } }, errors };
}

/** `<import alias>.<method>` → `{path: <interfaceGroupPath>.<method>, revision}`; the first matching import wins. */
export function resolveActionReference(imports: readonly ImplementationImport[], actionRef: string): { ref: RefWithOptRevision } | { error: CapactError } {
  const dot = actionRef.indexOf('.');
  if (dot === -1) {
    return { error: { code: 'action_reference', message: `Action reference ${JSON.stringify(actionRef)} doesn't follow pattern <import_alias>.<method_name>`, field: actionRef } };
  }
  const alias = actionRef.slice(0, dot);
  const name = actionRef.slice(dot + 1);
  for (const imp of imports) {
    if (imp.alias !== alias) continue;
    const method = imp.methods.find((m) => m.name === name);
    if (method) return { ref: { path: `${imp.interfaceGroupPath}.${name}`, ...(method.revision !== undefined ? { revision: method.revision } : {}) } };
  }
  return { error: { code: 'action_reference', message: `Full path not found in Implementation imports for action ${JSON.stringify(actionRef)}`, field: actionRef } };
}

