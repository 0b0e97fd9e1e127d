/**
 * Graph data for the console: the policy graph and the desired-state graph
 * of a generation, optionally overlaid with a revision's changes and the
 * actual state. Layout happens in the browser (elkjs in a worker).
 */
import { desiredGraph, policyGraph, type GraphModel } from '../engine/graph';
import type { PolicyObjectInput } from '../engine/resolve';
import type { RevisionPlan } from '../engine/plan';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { MaybeActor } from './actor';
import { notFound, unauthorized } from '../errors';
import { budgetView, drillView, UnknownBucket } from '../engine/graph/view';
import type {
  DesiredBucketAnswer,
  DesiredBucketInput,
  DesiredGraph,
  DesiredGraphInput,
  DesiredViewAnswer,
  DesiredViewInput,
  GraphInstance,
  GraphInstanceInput,
  PolicyGraph,
  PolicyGraphInput,
} from './graphs.types';
import type { ResolutionService } from './resolution';

export class GraphService {
  constructor(
    private readonly repos: Repos,
    private readonly resolution: ResolutionService,
    private readonly access: AccessService,
  ) {}

  private get revisions() {
    return this.repos.revisions;
  }

  /**
   * One instance for the graph's side panel: in full (secret-rendered
   * parameters redacted for those who may not manage them), what is
   * actually deployed, and the apply events of the steps that touched it.
   */
  async instance(actor: MaybeActor, input: GraphInstanceInput): Promise<GraphInstance> {
    if (!actor) throw unauthorized('see instances');
    const r = await this.resolution.get(actor, input.generation);
    const found = r.state.instances.find((i) => i.key === input.key);
    if (!found) throw notFound(`Instance ${input.key} at generation ${r.generation}`);
    const [instance] = await this.access.redactSensitive(actor, [found]);
    const [state] = await this.revisions.instanceStates([input.key]);
    const events = await this.revisions.eventsForInstance(input.key);
    return {
      generation: r.generation,
      instance: instance!,
      actual: state ? { status: state.status, revisionId: state.revisionId, error: state.error, updatedAt: state.updatedAt } : null,
      events: events.map((e) => ({ id: e.id, revisionId: e.revisionId, at: e.at, kind: e.kind, message: e.message })),
    };
  }

  async policy(actor: MaybeActor, input: PolicyGraphInput): Promise<PolicyGraph> {
    if (!actor) throw unauthorized('see graphs');
    const r = await this.resolution.get(actor, input.generation);
    // Drawn from the objects as this reader may see them: nothing the graph shows of an object can carry a credential.
    const objects = await this.access.redactObjects(actor, await this.repos.policy.listObjects({ generation: r.generation }));
    return { generation: r.generation, ...policyGraph(objects as PolicyObjectInput[], r.state) };
  }

  /** Instances of a generation; with `revisionId`, what that revision changes and what is actually deployed. */
  async desired(actor: MaybeActor, input: DesiredGraphInput): Promise<DesiredGraph> {
    const d = await this.desiredModel(actor, input);
    return { generation: d.generation, ...(d.revisionId !== undefined ? { revisionId: d.revisionId } : {}), ...d.model };
  }

  /**
   * The desired-state graph as the console draws it: the same graph as
   * `desired` (same readers, same fields), budgeted and compact, so it stays
   * under 2 MB whatever the size of the state (engine/graph/view.ts).
   */
  async desiredView(actor: MaybeActor, input: DesiredViewInput): Promise<DesiredViewAnswer> {
    const d = await this.desiredModel(actor, input);
    const v = budgetView(d.model, { budget: input.budget });
    return { generation: d.generation, ...(d.revisionId !== undefined ? { revisionId: d.revisionId } : {}), ...v };
  }

  /** One bucket of `desiredView` opened: its members, or smaller buckets. */
  async desiredBucket(actor: MaybeActor, input: DesiredBucketInput): Promise<DesiredBucketAnswer> {
    const d = await this.desiredModel(actor, input);
    try {
      const graph = drillView(d.model, { budget: input.budget, bucket: input.bucket });
      return { generation: d.generation, ...(d.revisionId !== undefined ? { revisionId: d.revisionId } : {}), bucket: input.bucket, graph };
    } catch (e) {
      // A bucket of another generation or budget, or made up: nothing to open.
      if (e instanceof UnknownBucket) throw notFound(`Bucket ${input.bucket} at generation ${d.generation}`);
      throw e;
    }
  }

  private async desiredModel(actor: MaybeActor, input: DesiredGraphInput): Promise<{ generation: number; revisionId?: number; model: GraphModel }> {
    if (!actor) throw unauthorized('see graphs');
    if (input.revisionId !== undefined) {
      const rev = await this.revisions.get(input.revisionId);
      if (!rev) throw notFound(`Revision ${input.revisionId}`);
      const plan = rev.plan as RevisionPlan;
      const after = await this.resolution.get(actor, rev.generation);
      const base = rev.baseRevisionId ? await this.revisions.get(rev.baseRevisionId) : undefined;
      const before = base ? (await this.resolution.get(actor, base.generation)).state : null;
      const changes = new Map<string, 'create' | 'update' | 'delete'>();
      for (const a of plan.actions) if (a.kind === 'create' || a.kind === 'update' || a.kind === 'delete') changes.set(a.key, a.kind);
      const afterKeys = new Set(after.state.instances.map((i) => i.key));
      const removed = (before?.instances ?? []).filter((i) => !afterKeys.has(i.key) && changes.get(i.key) === 'delete');
      const actual = new Map((await this.revisions.instanceStates()).map((s) => [s.key, { status: s.status, revisionId: s.revisionId }]));
      const head = await this.revisions.head();
      return {
        generation: rev.generation,
        revisionId: rev.id,
        model: desiredGraph(after.state, { changes, removed, actual, expectedRevisionId: head.appliedRevisionId ?? undefined }),
      };
    }
    const r = await this.resolution.get(actor, input.generation);
    const actual = new Map((await this.revisions.instanceStates()).map((s) => [s.key, { status: s.status, revisionId: s.revisionId }]));
    return { generation: r.generation, model: desiredGraph(r.state, { actual }) };
  }
}
