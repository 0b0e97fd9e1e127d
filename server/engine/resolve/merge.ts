/**
 * Merging claims into one desired state, incrementally.
 *
 * Every claim's contributions are kept per instance, so re-resolving one
 * claim only touches the instances it used before and uses now. Merge rules:
 * - claims, claim depths, edges and dependencies are unions;
 * - code and discovery parameters must be equal for all claims of an
 *   instance, else the instance is in conflict and every claim using it
 *   fails (only those claims: the rest of the policy is unaffected);
 * - labels of a shared instance are those of its primary claim (lowest
 *   depth, then claim name). Aptomi unioned labels in goroutine order, so
 *   the result changed from run to run.
 * Instances whose every claim failed on a conflict stay in the state with
 * an error (they are not deployed), so the conflict can be seen and fixed.
 */
import { deployName, instanceId } from '../lang';
import { jsonEqual, type ClaimResult, type Contribution } from './claim';
import type { ClaimOutcome, DesiredState, Instance } from './types';

interface Agg {
  key: string;
  byClaim: Map<string, Contribution>;
  conflict?: string;
  /** The claims failed by `conflict` (as counted in `conflictFailed`). */
  conflictClaims?: string[];
  /** Cached merged view; dropped when the instance changes. */
  view?: Instance;
  deployName: string;
  instanceId: string;
}

export class DesiredStateBuilder {
  private readonly claims = new Map<string, ClaimResult>();
  private readonly instances = new Map<string, Agg>();
  /** claim → number of conflicted instances it touches. */
  private readonly conflictFailed = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private sortedClaims: string[] | null = null;

  /** Add or replace a claim's result. */
  set(result: ClaimResult): void {
    if (this.claims.has(result.key)) this.remove(result.key);
    else this.sortedClaims = null;
    this.claims.set(result.key, result);
    for (const [key, c] of result.contributions) {
      let agg = this.instances.get(key);
      if (!agg) {
        agg = { key, byClaim: new Map(), deployName: deployName(key), instanceId: instanceId(key) };
        this.instances.set(key, agg);
      }
      agg.byClaim.set(result.key, c);
      this.dirty.add(key);
    }
  }

  remove(claim: string): void {
    const prev = this.claims.get(claim);
    if (!prev) return;
    this.claims.delete(claim);
    this.sortedClaims = null;
    for (const key of prev.contributions.keys()) {
      const agg = this.instances.get(key);
      if (!agg) continue;
      agg.byClaim.delete(claim);
      this.dirty.add(key);
    }
  }

  /** The merged desired state (instances and claims sorted by key). */
  build(): DesiredState {
    this.settle();
    const failed = this.conflictFailed;
    const claimKeys = (this.sortedClaims ??= [...this.claims.keys()].sort());
    const claims: ClaimOutcome[] = claimKeys.map((k) => {
      const r = this.claims.get(k)!;
      if (!failed.has(k)) return r.outcome;
      const conflicts = [...r.contributions.keys()].map((key) => this.instances.get(key)?.conflict).filter((c): c is string => !!c);
      return {
        ...r.outcome,
        status: 'error',
        instance: undefined,
        errors: [...new Set(conflicts)],
        trace: [...r.outcome.trace, ...conflicts.map((message) => ({ depth: 0, kind: 'error' as const, message }))],
      };
    });
    const instances: Instance[] = [];
    for (const agg of [...this.instances.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
      if (agg.view) instances.push(agg.view);
    }
    return { claims, instances, errors: [] };
  }

  /** Recompute conflicts and merged views of the instances that changed. */
  private settle(): void {
    if (this.dirty.size === 0) return;
    // 1. Conflicts on the changed instances; track which claims they fail.
    const failedBefore = new Set(this.conflictFailed.keys());
    const touchedClaims = new Set<string>();
    for (const key of this.dirty) {
      const agg = this.instances.get(key)!;
      const before = agg.conflict;
      if (before) for (const c of agg.conflictClaims ?? []) this.decFailed(c, touchedClaims);
      agg.conflict = detectConflict(agg);
      agg.conflictClaims = agg.conflict ? [...agg.byClaim.keys()] : undefined;
      if (agg.conflict) for (const c of agg.conflictClaims!) this.incFailed(c, touchedClaims);
    }
    // 2. Claims that started or stopped failing change every instance they use.
    for (const c of touchedClaims) {
      if (failedBefore.has(c) === this.conflictFailed.has(c)) continue;
      const r = this.claims.get(c);
      if (r) for (const key of r.contributions.keys()) this.dirty.add(key);
    }
    for (const key of this.dirty) {
      const agg = this.instances.get(key)!;
      if (agg.byClaim.size === 0) {
        this.instances.delete(key);
        continue;
      }
      agg.view = this.view(agg);
    }
    this.dirty.clear();
  }

  private incFailed(c: string, touched: Set<string>) {
    this.conflictFailed.set(c, (this.conflictFailed.get(c) ?? 0) + 1);
    touched.add(c);
  }

  private decFailed(c: string, touched: Set<string>) {
    const n = (this.conflictFailed.get(c) ?? 0) - 1;
    if (n <= 0) this.conflictFailed.delete(c);
    else this.conflictFailed.set(c, n);
    touched.add(c);
  }

  /** The merged instance, or undefined when no live claim uses it. */
  private view(agg: Agg): Instance | undefined {
    const live: [string, Contribution][] = [];
    for (const e of agg.byClaim) if (agg.conflict || !this.conflictFailed.has(e[0])) live.push(e);
    let error = agg.conflict;
    const entries = live.length > 0 ? live : [...agg.byClaim];
    if (live.length === 0) error = `held back: every claim using it failed (${[...agg.byClaim.keys()].sort().join(', ')})`;
    // Primary claim: lowest depth, then claim name.
    let primary = entries[0]!;
    for (const e of entries) {
      if (e[1].depth < primary[1].depth || (e[1].depth === primary[1].depth && e[0] < primary[0])) primary = e;
    }
    const p = primary[1];
    const edges = new Set<string>();
    const after = new Set<string>();
    const claimDepth: Record<string, number> = {};
    for (const [claim, c] of entries) {
      for (const x of c.edges) edges.add(x);
      for (const x of c.after) after.add(x);
      claimDepth[claim] = c.depth;
    }
    const inst: Instance = {
      key: agg.key,
      deployName: agg.deployName,
      instanceId: agg.instanceId,
      namespace: p.namespace,
      service: p.service,
      context: p.context,
      allocationKeys: p.allocationKeys,
      bundle: p.bundle,
      component: p.component,
      code: p.code,
      discovery: p.discovery,
      labels: p.labels as Record<string, string>,
      target: p.target,
      edges: [...edges].sort(),
      dependsOn: [...new Set([...edges, ...after])].sort(),
      claims: Object.keys(claimDepth).sort(),
      claimDepth,
    };
    if (error) inst.error = error;
    return inst;
  }
}

/** Code and discovery parameters must agree across claims. */
function detectConflict(agg: Agg): string | undefined {
  let first: [string, Contribution] | undefined;
  for (const e of agg.byClaim) {
    if (!first) {
      first = e;
      continue;
    }
    const [fc, f] = first;
    const [c, x] = e;
    if (!jsonEqual(f.code?.params, x.code?.params)) {
      return `conflicting code parameters for instance '${agg.key}': claims '${fc}' and '${c}' render different values`;
    }
    if (!jsonEqual(f.discovery, x.discovery)) {
      return `conflicting discovery parameters for instance '${agg.key}': claims '${fc}' and '${c}' render different values`;
    }
  }
  return undefined;
}
