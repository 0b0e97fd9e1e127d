/**
 * The instance diff between the applied desired state and a new one, with
 * Aptomi's semantics (`pkg/engine/diff/policy_resolution_diff.go`, reference
 * aptomi.md §6), per instance key over before ∪ after:
 *
 * 1. every claim that no longer uses the instance → `detach-claim`;
 * 2. claims before and none now → `delete`, and nothing else for that key;
 * 3. no claims before and some now → `create`;
 * 4. code (type or parameters) changed → `update`, plus one `update` on the
 *    parent bundle root. Aptomi adds that root update "to bump times" and
 *    its own diff tests count it (a label that feeds one component's
 *    parameters gives 2 updates), so it is an action here and counted; it
 *    carries no code, so the plan makes no step of it. Aptomi de-duplicates
 *    actions by name per node, so a root gets one such update however many
 *    of its components changed;
 * 5. every new claim → `attach-claim`.
 *
 * Labels and discovery changes cause no action (Aptomi: none either); they
 * are reported as notes (see `PlanNote`).
 *
 * Keelson additions: an instance that carries an `error` in the new state
 * (conflicting parameters, or every claim using it failed) is held back: no
 * action at all, and what runs stays as it was. An errored instance in the
 * old state was never deployed, so it counts as absent.
 *
 * Platform instances can be shared by 20,000 claims, so claim lists are
 * compared once per instance by a merge of the two sorted lists (a Set only
 * if a list turns out unsorted), never claim by claim against each other.
 */
import type { DesiredState } from '../resolve';
import { reconcileOf, restartOf } from '../state/restart';
import type { Instance, InstanceCode } from '../state/types';
import { paramsEqual } from '../values';
import { instanceKey } from '../state/key';

import type { ActionKind } from './counts';
import { isRecord } from '../lang/data';

export { ACTION_KINDS, type ActionKind } from './counts';

export interface PlanAction {
  kind: ActionKind;
  /** Instance key. */
  key: string;
  /** Namespace of the instance's service (the revision section it belongs to). */
  namespace: string;
  /** `ns/name` of the claim, for attach-claim and detach-claim. */
  claim?: string;
  /**
   * Why, when it is not obvious: changed parameter paths on an update, `bump:
   * component … changed` on a root's update, `labels changed` / `discovery
   * changed` on the first action of a key that also changed those.
   */
  notes?: string[];
}

/**
 * A remark about an instance that has no action to carry it: labels or
 * discovery changed without anything to deploy, or the instance is held back
 * by an error.
 */
export interface PlanNote {
  key: string;
  namespace: string;
  note: string;
}

/** What the diff decided, with the indexes the rest of the plan reuses. */
export interface InstanceDiff {
  /** Grouped by instance key (sorted); per key in Aptomi's order: detach, delete, create, update, attach. */
  actions: PlanAction[];
  notes: PlanNote[];
  /** Executable changes by key (root "bumps" are not executable). */
  changes: Map<string, 'create' | 'update' | 'delete'>;
  /** Deployed instances of the old state (errored ones were never deployed). */
  before: Map<string, Instance>;
  /** The new state's instances by key, errored ones included. */
  after: Map<string, Instance>;
  /** What runs once the plan is applied: the new state, with held-back instances as they were. */
  applied: Map<string, Instance>;
}

const NO_CLAIMS: readonly string[] = [];
const MAX_PATHS = 8;

export function diffStates(beforeState: DesiredState | null, afterState: DesiredState): InstanceDiff {
  const before = new Map<string, Instance>();
  for (const i of beforeState?.instances ?? []) if (!i.error) before.set(i.key, i);
  const after = new Map<string, Instance>();
  for (const i of afterState.instances) after.set(i.key, i);

  const keys = unionKeys(beforeState?.instances ?? [], afterState.instances);
  const perKey: (PlanAction[] | undefined)[] = new Array(keys.length);
  const indexOf = new Map<string, number>();
  const bumps = new Map<string, string[]>();
  /** Label and discovery notes by key index, placed once root bumps are known (a bump can be the carrier). */
  const pendingNotes = new Map<number, string[]>();
  const notes: PlanNote[] = [];
  const changes = new Map<string, 'create' | 'update' | 'delete'>();
  const applied = new Map<string, Instance>();

  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const b = before.get(key);
    const a = after.get(key);
    indexOf.set(key, k);
    if (a?.error) {
      // Held back: whatever runs keeps running as it is; nothing is created.
      notes.push({ key, namespace: a.namespace, note: `not deployed: ${a.error}` });
      if (b) applied.set(key, b);
      continue;
    }
    if (a === b && a && a.claims.length > 0) {
      // The same object on both sides (states from one resolve session share unchanged instances).
      applied.set(key, a);
      continue;
    }
    const known = a ?? b;
    if (!known) continue; // errored in the old state (never ran) and gone now
    const namespace = known.namespace;
    const prev = b?.claims ?? NO_CLAIMS;
    const next = a?.claims ?? NO_CLAIMS;
    const { added, removed } = diffSortedLists(prev, next);
    const out: PlanAction[] = [];
    for (const claim of removed) out.push({ kind: 'detach-claim', key, namespace, claim });
    if (prev.length > 0 && next.length === 0) {
      out.push({ kind: 'delete', key, namespace });
      changes.set(key, 'delete');
      perKey[k] = out;
      continue;
    }
    if (next.length === 0) continue; // absent on both sides in effect (no claims)
    applied.set(key, a!);
    const keyNotes: string[] = [];
    if (prev.length === 0) {
      out.push({ kind: 'create', key, namespace });
      changes.set(key, 'create');
    } else {
      const isCode = b!.code !== null || a!.code !== null;
      if (isCode && !codeEqual(b!.code, a!.code)) {
        out.push({ kind: 'update', key, namespace, notes: describeCodeChange(b!.code, a!.code) });
        changes.set(key, 'update');
        const root = parentRootKey(key);
        if (root !== key) {
          const list = bumps.get(root);
          if (list) list.push(key);
          else bumps.set(root, [key]);
        }
      }
      // A new restart or reconcile stamp re-applies the instance; dropping one asks for nothing.
      const restart = restartOf(a!);
      const reconcile = reconcileOf(a!);
      const stamps = [
        ...(restart !== undefined && restart !== restartOf(b!) ? [`restart requested (${restart})`] : []),
        ...(reconcile !== undefined && reconcile !== reconcileOf(b!) ? [`reconcile requested (${reconcile})`] : []),
      ];
      if (isCode && a!.code !== null && stamps.length > 0 && !out.some((x) => x.kind === 'update')) {
        // Nothing else changed: the update carries the stamps alone.
        out.push({ kind: 'update', key, namespace, notes: stamps });
        changes.set(key, 'update');
      }
      if (!labelsEqual(b!.labels, a!.labels)) keyNotes.push('labels changed');
      if (b!.discovery !== a!.discovery && !paramsEqual(b!.discovery, a!.discovery)) keyNotes.push('discovery changed');
    }
    for (const claim of added) out.push({ kind: 'attach-claim', key, namespace, claim });
    if (keyNotes.length > 0) pendingNotes.set(k, keyNotes);
    if (out.length > 0) perKey[k] = out;
  }

  // Root bumps: one update per root that runs before and after.
  for (const [root, components] of bumps) {
    const k = indexOf.get(root);
    const a = after.get(root);
    if (k === undefined || !a || a.error || !before.has(root)) continue;
    const out = (perKey[k] ??= []);
    if (out.some((x) => x.kind === 'update')) continue;
    const bump: PlanAction = { kind: 'update', key: root, namespace: a.namespace, notes: [`bump: ${plural(components.length, 'component')} changed (${components.map(componentOf).join(', ')})`] };
    // Keep Aptomi's per-key order: after detach/delete/create, before attach.
    const at = out.findIndex((x) => x.kind === 'attach-claim');
    if (at < 0) out.push(bump);
    else out.splice(at, 0, bump);
  }

  for (const [k, keyNotes] of pendingNotes) {
    const out = perKey[k];
    const carrier = out?.find((x) => x.kind === 'update') ?? out?.[0];
    if (carrier) carrier.notes = [...(carrier.notes ?? []), ...keyNotes];
    else {
      const inst = after.get(keys[k]!)!;
      for (const note of keyNotes) notes.push({ key: inst.key, namespace: inst.namespace, note });
    }
  }
  // Held-back notes came first; keep the list in key order (stable, so a key's notes keep theirs).
  notes.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));

  const actions: PlanAction[] = [];
  for (const list of perKey) if (list) for (const x of list) actions.push(x);
  return { actions, notes, changes, before, after, applied };
}

/** Aptomi's parent service key: the same key with the component replaced by `root`. */
export function parentRootKey(key: string): string {
  return instanceKey.rootOf(key);
}

function componentOf(key: string): string {
  return instanceKey.splitComponent(key).component;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Sorted, distinct keys of both lists: a merge, since desired states list instances by key; a sort if one does not. */
function unionKeys(a: readonly Instance[], b: readonly Instance[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i]?.key;
    const y = b[j]?.key;
    let k: string;
    if (y === undefined || (x !== undefined && x < y)) {
      k = x!;
      i++;
    } else if (x === undefined || y < x) {
      k = y;
      j++;
    } else {
      k = x;
      i++;
      j++;
    }
    const last = out[out.length - 1];
    if (last !== undefined && k <= last) {
      if (k === last) continue;
      return [...new Set([...a.map((x) => x.key), ...b.map((x) => x.key)])].sort();
    }
    out.push(k);
  }
  return out;
}

export function codeEqual(a: InstanceCode | null, b: InstanceCode | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.type === b.type && (a.params === b.params || paramsEqual(a.params, b.params));
}

function labelsEqual(a: Record<string, string>, b: Record<string, string>): boolean {
  if (a === b) return true;
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  // Label values are strings, so equal values also mean the key is present in b.
  for (const k of ak) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * Added and removed entries of two lists of unique strings, by merging them
 * when both are sorted (as `Instance.claims` are), else through a Set.
 */
export function diffSortedLists(prev: readonly string[], next: readonly string[]): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  if (prev === next) return { added, removed };
  // The common case by far: the same claims. Check that first, without the merge's order checks.
  if (prev.length === next.length) {
    let same = true;
    for (let k = 0; k < prev.length; k++) {
      if (prev[k] !== next[k]) {
        same = false;
        break;
      }
    }
    if (same) return { added, removed };
  }
  let i = 0;
  let j = 0;
  while (i < prev.length && j < next.length) {
    const x = prev[i]!;
    const y = next[j]!;
    if (x === y) {
      i++;
      j++;
    } else if (x < y) {
      removed.push(x);
      i++;
    } else {
      added.push(y);
      j++;
    }
    // A list out of order would make the merge wrong: check as we go (cheap) and fall back.
    if ((i > 0 && i < prev.length && prev[i]! <= prev[i - 1]!) || (j > 0 && j < next.length && next[j]! <= next[j - 1]!)) {
      return diffBySets(prev, next);
    }
  }
  for (; i < prev.length; i++) {
    if (i > 0 && prev[i]! <= prev[i - 1]!) return diffBySets(prev, next);
    removed.push(prev[i]!);
  }
  for (; j < next.length; j++) {
    if (j > 0 && next[j]! <= next[j - 1]!) return diffBySets(prev, next);
    added.push(next[j]!);
  }
  return { added, removed };
}

function diffBySets(prev: readonly string[], next: readonly string[]): { added: string[]; removed: string[] } {
  const p = new Set(prev);
  const n = new Set(next);
  return { added: [...n].filter((x) => !p.has(x)).sort(), removed: [...p].filter((x) => !n.has(x)).sort() };
}

/** Notes for an update: which parameter paths changed (a reviewer reads these first). */
function describeCodeChange(a: InstanceCode | null, b: InstanceCode | null): string[] {
  if (!a || !b) return [b ? 'code added' : 'code removed'];
  if (a.type !== b.type) return [`code type changed: ${a.type} → ${b.type}`];
  const paths: string[] = [];
  let more = 0;
  changedPaths(a.params, b.params, '', (p) => {
    if (paths.length < MAX_PATHS) paths.push(p);
    else more++;
  });
  if (paths.length === 0) return ['params changed'];
  return [`params changed: ${paths.join(', ')}${more > 0 ? ` and ${more} more` : ''}`];
}

function changedPaths(a: unknown, b: unknown, prefix: string, emit: (path: string) => void): void {
  if (a === b || paramsEqual(a, b)) return;
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) changedPaths(a[k], b[k], prefix ? `${prefix}.${k}` : k, emit);
    return;
  }
  emit(prefix || '(all)');
}
