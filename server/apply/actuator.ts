/**
 * The actuator seam: how an accepted revision's plan reaches the outside
 * world. `gitops` (server/apply/gitops) writes a repository that Flux or Argo
 * CD syncs from; a future `kubernetes` actuator will server-side apply the
 * same steps directly. The job loop only talks to this interface, so adding
 * that actuator must not need changes here.
 *
 * Crash safety is a contract of the interface, not of one implementation: a
 * worker that dies mid-revision is replaced by another that calls `begin`
 * again and replays every step, so `apply` and `finish` must be idempotent.
 */
import type { InstanceCode } from '../engine/state/types';

/**
 * The part of an engine plan step an actuator needs. Declared structurally
 * (a subset of the plan's `PlanStep`) so actuators do not depend on the plan
 * module, and a `PlanStep` can be passed as is.
 */
export interface ApplyStep {
  /** Position in the plan; used in messages and logs only. */
  index: number;
  action: 'create' | 'update' | 'delete';
  /** Instance key (`clusterNS#cluster#k8sNS#serviceNS#service#context[#keys]#component`). */
  key: string;
  /** Aptomi-style deploy name (`a-…`): Kubernetes-safe, stable per key. */
  deployName: string;
  /** FNV-32a of the key, decimal: short enough for a label value. */
  instanceId: string;
  target: { clusterNamespace: string; cluster: string; namespace: string };
  /** `null` for bundle roots and service components: nothing to deploy. */
  code: InstanceCode | null;
  /** `ns/name` of every claim using the instance. */
  claims: string[];
  /** A restart stamp: when it changes, the workloads roll (the engine's state/restart.ts). */
  restartedAt?: string;
  /** A reconcile request (Landscaper's automatic reconcile): the deployer re-runs what it deployed, without restarting it. */
  reconcileAt?: string;
}

export interface ApplyContext {
  revisionId: number;
  generation: number;
  /** Users who accepted the revision (recorded as co-authors by gitops). */
  accepters: string[];
  /** User who proposed the revision. */
  author: string;
  /** What the work is when it is not applying the revision (an automatic reconcile): the commit's title. */
  purpose?: string;
}

export interface StepResult {
  status: 'done' | 'failed';
  /** What happened, for the console's per-step event log. */
  message?: string;
  /** Why the step failed; set when status is 'failed'. */
  error?: string;
}

export interface Actuator {
  readonly name: string;
  /**
   * `begin` starts from the target's state rather than from this process's
   * progress (a scratch clone reset to the remote's newest commit), so the
   * steps a previous attempt finished must be applied again — silently,
   * they are already recorded as done.
   */
  readonly replaysDoneSteps?: boolean;
  /** Prepare for a revision (e.g. open/clone the repo); called again when a crashed apply resumes. */
  begin(ctx: ApplyContext): Promise<void>;
  /**
   * Apply one step; must be idempotent (re-running a step that already
   * happened changes nothing). Problems with the step's own content (a
   * manifest that does not parse, missing chart keys) come back as a
   * 'failed' result because retrying cannot fix them; infrastructure errors
   * (disk full, permissions) are thrown so the job loop retries with backoff.
   */
  apply(step: ApplyStep, ctx: ApplyContext): Promise<StepResult>;
  /** Finish the revision (e.g. one git commit); idempotent: finishing twice makes no second commit. */
  finish(
    ctx: ApplyContext,
    summary: { failed: number; skipped: number; done: number },
  ): Promise<{ commit?: string; changed: boolean }>;
}
