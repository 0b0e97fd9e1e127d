/**
 * Revisions: the diff between the applied desired state and a new one, the
 * ordered plan, its cost and the quota check, split into one section per
 * namespace for acceptance (DESIGN.md, "Revisions and acceptance").
 *
 * Pure: plain data in, plain data out. The plan shares objects with its
 * inputs (claim lists, code parameters) instead of copying them: platform
 * instances carry thousands of claims. Treat both as read-only.
 */
import type { DesiredState } from '../resolve';
import type { Instance } from '../state/types';
import { ACTION_KINDS, diffStates, type ActionKind, type PlanAction, type PlanNote } from './diff';
import { costAndQuota, type ClusterRef, type CostReport, type QuotaCheck } from './cost';
import { orderSteps, type PlanStep } from './order';
import { addReasons, clusterIndex, DeploysRecorder, finishReasons, instanceReach, type ManifestRead, type SectionDeploys } from './reach';
import { holdBackTimedOut } from './timed-out';
import { referenceTokens } from '../dm/references';

export type { ActionKind, PlanAction, PlanNote } from './diff';
export type { ClusterRef, CostNote, CostReport, CostTarget, InstanceResources, QuotaCheck, ResourceTotals } from './cost';
export type { PlanStep } from './order';
export { ACTION_KINDS, codeEqual, diffSortedLists, diffStates, parentRootKey, type InstanceDiff } from './diff';
export { CostCalculator, costAndQuota, DEFAULT_CURRENCY, MIXED_CURRENCY } from './cost';
export { orderSteps } from './order';
export { holdBackTimedOut } from './timed-out';
export { allowedKubernetesNamespaces, globMatch, chartRepoAllowed, instanceReach, kindScope, manifestObjects, MAX_REACH_REASONS, type SectionDeploys } from './reach';
export * from '../model/quantity';
export { claimUsage, measure, tenantUsage, type ProbeMeasure, type ProbeMeasured, type UsageAsk, type UsageTotals } from './usage';

export interface RevisionSection {
  /** Namespace of the changed instances' services: a namespace-admin of it accepts the section. */
  namespace: string;
  counts: Record<ActionKind, number>;
  /** Instance keys with actions in this section, sorted. */
  keys: string[];
  /** A cluster these instances run on (or ran on) fails a quota check that this revision made worse. */
  overMarks: boolean;
  /**
   * What the section deploys beyond its policy namespace, one reason each: a
   * cluster that does not admit the namespace, a Kubernetes namespace not
   * allowed for it, a cluster-scoped or unknown kind, a manifest object in
   * another Kubernetes namespace, a chart repository the cluster does not
   * allow. Non-empty: only a domain admin may accept the section.
   */
  needsDomainAdmin: string[];
  /** What the section creates or changes: target clusters and Kubernetes namespaces, chart repositories, cluster-wide kinds. */
  deploys: SectionDeploys;
  /**
   * Instances it creates or changes whose code still holds a `$(ref.NAME.PATH)`
   * (a value only the cluster knows), one line each. Non-empty: nobody may
   * accept the section until the reference is resolved or removed, so no
   * such text reaches the GitOps repository.
   */
  unresolvedReferences: string[];
}

export interface RevisionPlan {
  /** No actions: the revision is recorded as `no-op`. */
  noop: boolean;
  /** Every action, grouped by instance key (sorted). */
  actions: PlanAction[];
  counts: Record<ActionKind, number>;
  /** Executable steps: creates and updates (dependencies first), then deletes (dependents first). */
  steps: PlanStep[];
  sections: RevisionSection[];
  cost: CostReport;
  quota: QuotaCheck[];
  /** Claims (`ns/name`) whose outcome changed or that use an instance with an action, sorted. */
  changedClaims: string[];
  /**
   * Remarks about instances without an action to carry them: labels or
   * discovery changed with nothing to deploy, or held back by an error.
   * Notes of instances that have actions are on the actions (`PlanAction.notes`).
   */
  notes: PlanNote[];
}

export interface RevisionInput {
  /** The applied desired state; null when nothing was applied yet. */
  before: DesiredState | null;
  after: DesiredState;
  clusters: readonly ClusterRef[];
}

export function planRevision(input: RevisionInput): RevisionPlan {
  // A request that ran out of its time keeps what it ran (./timed-out.ts): every plan, of a revision or a preview.
  input = { ...input, after: holdBackTimedOut(input.before, input.after) };
  const diff = diffStates(input.before, input.after);
  const steps = orderSteps(diff);
  const { cost, quota, overMarksClusters } = costAndQuota(diff.before.values(), diff.applied.values(), input.clusters);

  const counts = emptyCounts();
  const clusterSpecs = clusterIndex(input.clusters);
  const manifests = new Map<string, ManifestRead>();
  type Section = { counts: Record<ActionKind, number>; keys: string[]; clusters: Set<string>; reach: string[]; reachSeen: Set<string>; deploys: DeploysRecorder; unresolved: string[] };
  const bySection = new Map<string, Section>();
  for (const a of diff.actions) {
    counts[a.kind]++;
    let s = bySection.get(a.namespace);
    if (!s) bySection.set(a.namespace, (s = { counts: emptyCounts(), keys: [], clusters: new Set(), reach: [], reachSeen: new Set(), deploys: new DeploysRecorder(), unresolved: [] }));
    s.counts[a.kind]++;
    // Actions come grouped by key, so a key is new when it differs from the last one.
    if (s.keys[s.keys.length - 1] !== a.key) {
      s.keys.push(a.key);
      for (const inst of [diff.after.get(a.key), diff.before.get(a.key)]) {
        if (inst) s.clusters.add(`${inst.target.clusterNamespace}/${inst.target.cluster}`);
      }
      // What the section deploys: the instances it creates, changes or removes (a claim
      // attached to an instance that runs as it was deploys nothing new).
      const change = diff.changes.get(a.key);
      const inst = change === 'delete' ? diff.before.get(a.key) : change ? diff.after.get(a.key) : undefined;
      if (inst) addReasons(s.reach, s.reachSeen, instanceReach(inst, a.namespace, clusterSpecs, change === 'delete', manifests, s.deploys));
      if (inst && change !== 'delete' && inst.code) {
        const refs = referenceTokens(inst.code.params);
        if (refs.length > 0) s.unresolved.push(`${a.key}: ${refs.join(', ')} (a value only the cluster knows)`);
      }
    }
  }
  const sections: RevisionSection[] = [...bySection.keys()].sort().map((namespace) => {
    const s = bySection.get(namespace)!;
    return {
      namespace,
      counts: s.counts,
      keys: s.keys,
      overMarks: [...s.clusters].some((c) => overMarksClusters.has(c)),
      needsDomainAdmin: finishReasons(s.reach, s.reachSeen),
      deploys: s.deploys.result(),
      unresolvedReferences: s.unresolved,
    };
  });

  return {
    noop: diff.actions.length === 0,
    actions: diff.actions,
    counts,
    steps,
    sections,
    cost,
    quota,
    changedClaims: changedClaims(input.before, input.after, diff.actions, diff.before, diff.after),
    notes: diff.notes,
  };
}

/**
 * What runs once a revision is applied: the new state, except that
 * instances held back by an error, or by a request that ran out of its
 * time, keep what ran before (or are absent).
 * Store this as the applied state, so the next revision diffs against what
 * really runs.
 */
export function appliedState(before: DesiredState | null, after: DesiredState): DesiredState {
  after = holdBackTimedOut(before, after);
  const kept = new Map<string, Instance>();
  for (const i of before?.instances ?? []) if (!i.error) kept.set(i.key, i);
  const instances: Instance[] = [];
  for (const i of after.instances) {
    if (!i.error) instances.push(i);
    else {
      const b = kept.get(i.key);
      if (b) instances.push(b);
    }
  }
  return { claims: after.claims, instances, errors: after.errors };
}

function emptyCounts(): Record<ActionKind, number> {
  const c = {} as Record<ActionKind, number>;
  for (const k of ACTION_KINDS) c[k] = 0;
  return c;
}

function changedClaims(
  before: DesiredState | null,
  after: DesiredState,
  actions: readonly PlanAction[],
  beforeByKey: Map<string, Instance>,
  afterByKey: Map<string, Instance>,
): string[] {
  const out = new Set<string>();
  const prev = new Map<string, DesiredState['claims'][number]>();
  for (const c of before?.claims ?? []) prev.set(`${c.namespace}/${c.name}`, c);
  for (const c of after.claims) {
    const key = `${c.namespace}/${c.name}`;
    const p = prev.get(key);
    if (!p || p.status !== c.status || p.instance !== c.instance || !sameList(p.errors, c.errors)) out.add(key);
    prev.delete(key);
  }
  for (const key of prev.keys()) out.add(key);
  // Claims of instances that change; a key's claims are added once even when it has many actions.
  let last = '';
  for (const a of actions) {
    if (a.claim) out.add(a.claim);
    if (a.kind === 'attach-claim' || a.kind === 'detach-claim' || a.key === last) continue;
    last = a.key;
    const inst = a.kind === 'delete' ? beforeByKey.get(a.key) : afterByKey.get(a.key);
    for (const c of inst?.claims ?? []) out.add(c);
  }
  return [...out].sort();
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
