/**
 * The executable steps of a revision, in an order an actuator can follow.
 *
 * Creates and updates come first, dependencies before dependents: the
 * graph is the new state's `dependsOn`, which holds Aptomi's structural
 * edges (a bundle root depends on its components, a service component on
 * the bundle instance it consumes) and intra-bundle `dependencies`, which
 * Aptomi ignored at apply time (guestbook: redis-master, then redis-slave,
 * then frontend). Deletes follow, dependents first, over the old state's
 * graph; Aptomi ran deletes unordered. Ties go by key, so a plan is the
 * same every time it is computed.
 *
 * `waitsFor` lists the steps this one needs to have succeeded. Paths through
 * instances that do not change still count: when kafka and zookeeper's
 * code both change, kafka's update waits for zookeeper's even though the
 * zookeeper service component and bundle root between them stay as they
 * are, since kafka's parameters come from zookeeper's discovery. An apply
 * engine skips the dependants of a failed step by following these indices,
 * which always point to earlier steps.
 */
import { audienceOf, strictestAudience, type Instance, type InstanceCode, type SecretAudience, type Target } from '../state/types';
import { reconcileOf, restartOf } from '../state/restart';
import type { InstanceDiff } from './diff';

export interface PlanStep {
  /** Position in the plan (0-based). */
  index: number;
  action: 'create' | 'update' | 'delete';
  key: string;
  namespace: string;
  deployName: string;
  instanceId: string;
  /** What the instance is part of (Aptomi: its service). */
  owner: string;
  /** Component name, or `root` for a bundle instance (a step with no code: bookkeeping for an actuator). */
  component: string;
  target: Target;
  /** The code to run after this step: null for deletes and for roots and service components. */
  code: InstanceCode | null;
  /** The code that ran before (updates and deletes: what to change or remove). */
  previousCode?: InstanceCode | null;
  /** Claims using the instance: after the step for creates and updates, before it for deletes. */
  claims: string[];
  /** Indices of earlier steps that must succeed first. */
  waitsFor: number[];
  /** Parameters rendered from credentials, and who may see them whole (see `Instance.sensitive`). */
  sensitive?: SecretAudience;
  /** The restart stamp the instance carries (./restart.ts): the apply rolls its workloads when it changes. */
  restartedAt?: string;
  /** The reconcile stamp it carries (./restart.ts): the apply asks the deployer to reconcile it, nothing more. */
  reconcileAt?: string;
}

export function orderSteps(diff: InstanceDiff): PlanStep[] {
  const ups: string[] = [];
  const downs: string[] = [];
  for (const [key, change] of diff.changes) (change === 'delete' ? downs : ups).push(key);

  const steps: PlanStep[] = [];
  const indexOf = new Map<string, number>();

  // Creates and updates: edges point at dependencies in the new state.
  const upSet = new Set(ups);
  const upWaits = nearestSteps(ups, upSet, (k) => diff.after.get(k)?.dependsOn ?? NONE);
  for (const key of topological(ups, upWaits)) {
    const a = diff.after.get(key)!;
    const change = diff.changes.get(key) as 'create' | 'update';
    const step = makeStep(steps.length, change, a, a.code, indexOf, upWaits.get(key)!);
    if (change === 'update') {
      const before = diff.before.get(key);
      step.previousCode = before?.code ?? null;
      // What ran before is as secret as what runs after.
      const audience = strictestAudience(step.sensitive, before?.sensitive);
      if (audience) step.sensitive = audience;
    }
    indexOf.set(key, step.index);
    steps.push(step);
  }

  // Deletes: edges point at dependents in the old state.
  if (downs.length > 0) {
    const dependents = new Map<string, string[]>();
    for (const b of diff.before.values()) {
      for (const d of b.dependsOn) {
        const list = dependents.get(d);
        if (list) list.push(b.key);
        else dependents.set(d, [b.key]);
      }
    }
    const downSet = new Set(downs);
    const downWaits = nearestSteps(downs, downSet, (k) => dependents.get(k) ?? NONE);
    for (const key of topological(downs, downWaits)) {
      const b = diff.before.get(key)!;
      const step = makeStep(steps.length, 'delete', b, null, indexOf, downWaits.get(key)!);
      step.previousCode = b.code;
      indexOf.set(key, step.index);
      steps.push(step);
    }
  }
  return steps;
}

const NONE: readonly string[] = [];

function makeStep(
  index: number,
  action: PlanStep['action'],
  inst: Instance,
  code: InstanceCode | null,
  indexOf: Map<string, number>,
  waits: readonly string[],
): PlanStep {
  const waitsFor: number[] = [];
  for (const w of waits) {
    const i = indexOf.get(w);
    // Only earlier steps: a cycle (which validation should have refused) is broken rather than deadlocking an apply.
    if (i !== undefined) waitsFor.push(i);
  }
  waitsFor.sort((x, y) => x - y);
  return {
    index,
    action,
    key: inst.key,
    namespace: inst.namespace,
    deployName: inst.deployName,
    instanceId: inst.instanceId,
    owner: inst.owner,
    component: inst.component,
    target: inst.target,
    code,
    claims: inst.claims,
    waitsFor,
    ...(audienceOf(inst.sensitive) ? { sensitive: audienceOf(inst.sensitive) } : {}),
    ...(action !== 'delete' && code !== null && restartOf(inst) !== undefined ? { restartedAt: restartOf(inst) } : {}),
    ...(action !== 'delete' && code !== null && reconcileOf(inst) !== undefined ? { reconcileAt: reconcileOf(inst) } : {}),
  };
}

/**
 * For each step, the steps it reaches first along `next` edges, walking
 * through nodes that are not steps. Memoised per node, so a shared platform
 * instance is walked once however many steps lead to it.
 */
function nearestSteps(stepKeys: readonly string[], isStep: Set<string>, next: (key: string) => readonly string[]): Map<string, string[]> {
  const memo = new Map<string, readonly string[]>();
  const visiting = new Set<string>();
  // The steps reachable from a non-step node (the node itself when it is a step).
  const through = (key: string): readonly string[] => {
    if (isStep.has(key)) return [key];
    const known = memo.get(key);
    if (known) return known;
    if (visiting.has(key)) return NONE; // a cycle among unchanged nodes: nothing new to wait for
    visiting.add(key);
    const found = collect(next(key), key);
    visiting.delete(key);
    memo.set(key, found);
    return found;
  };
  const collect = (edges: readonly string[], self: string): string[] => {
    if (edges.length === 0) return [];
    const out = new Set<string>();
    for (const e of edges) {
      if (e === self) continue;
      for (const s of through(e)) out.add(s);
    }
    out.delete(self);
    return [...out].sort();
  };
  const result = new Map<string, string[]>();
  for (const k of stepKeys) result.set(k, collect(next(k), k));
  return result;
}

/** Kahn's algorithm with the smallest ready key first; cycles are broken at their smallest key. */
function topological(keys: readonly string[], waits: Map<string, string[]>): string[] {
  const pending = new Map<string, number>();
  const waiters = new Map<string, string[]>();
  for (const k of keys) {
    const w = waits.get(k) ?? [];
    pending.set(k, w.length);
    for (const d of w) {
      const list = waiters.get(d);
      if (list) list.push(k);
      else waiters.set(d, [k]);
    }
  }
  const ready = new MinHeap();
  for (const k of keys) if (pending.get(k) === 0) ready.push(k);
  const order: string[] = [];
  const done = new Set<string>();
  let remaining: string[] | null = null;
  while (order.length < keys.length) {
    let k = ready.pop();
    if (k === undefined) {
      // A cycle: release its smallest key (its unmet waits are dropped in makeStep).
      remaining ??= [...keys].sort();
      k = remaining.find((x) => !done.has(x))!;
    }
    if (done.has(k)) continue;
    done.add(k);
    order.push(k);
    for (const w of waiters.get(k) ?? NONE) {
      const n = pending.get(w)! - 1;
      pending.set(w, n);
      if (n === 0 && !done.has(w)) ready.push(w);
    }
  }
  return order;
}

/** A binary min-heap of strings (code-unit order, like `Array#sort`). */
class MinHeap {
  private readonly a: string[] = [];

  push(x: string): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= x) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = x;
  }

  pop(): string | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}
