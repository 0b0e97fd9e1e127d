/**
 * Landscaper in the console: the scope graph of the installations in the
 * policy as it stands (server/engine/landscaper/scope-graph.ts), with the
 * root installations taken out since the applied revision in their delete
 * phase, and the phases of what Keelson deploys following its revision and
 * the apply (withDelivery), read fresh on every request. Computed on demand and kept per generation, namespace and apply
 * state. Installing runs the policy's spiff mappings and templates: that
 * is done on a resolver thread (server/resolver/stored-work.ts), under the
 * install engine's limits (template steps, sizes, time per root
 * installation), never on the thread that answers requests.
 * Installations, DataObjects and Targets are policy, which every signed-in
 * user reads; a Target's credentials (declared in the kind registry) reach
 * only their audience — in the Targets installations import, and in any
 * value a template copied them into.
 */
import type { EngineObject } from '../engine';
import { withDelivery, type Delivery, type Removal, type ScopeGraph } from '../engine/landscaper/scope-graph';
import type { RevisionPlan } from '../engine/plan';
import { LANDSCAPER_KINDS } from '../engine/model/sources/landscaper';
import { hiddenCredentials, mayReadCredentials, redactWithin } from '../engine/model/credentials';
import { isResolverFailure, type Resolver } from '../resolver';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, unauthorized } from '../errors';
import type { ScopeGraphView } from './landscaper.types';

const KEEP = 8;

/** A view as computed, the objects it was computed from (for the credentials it may hold), and whether time decided it. */
type Entry = { view: ScopeGraphView; objects: EngineObject[]; timedOut?: true };

export class LandscaperService {
  private readonly cache = new Map<string, Promise<Entry>>();

  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
    private readonly resolver: Pick<Resolver, 'run'>,
  ) {}

  async scopes(actor: MaybeActor, input: { namespace?: string } = {}): Promise<ScopeGraphView> {
    if (!actor) throw unauthorized('see installations');
    const { view, objects } = await this.graph(input);
    const delivered = withDelivery(view as ScopeGraph, await this.delivery(view));
    return this.visible(actor, { ...view, ...delivered } as ScopeGraphView, objects);
  }

  /** Where the instances the graph's deploy items become stand: the revision of its generation, and their actual state. */
  private async delivery(view: ScopeGraphView): Promise<Delivery> {
    const keys = view.installations.flatMap((i) => i.deployItems.flatMap((d) => (d.key === undefined ? [] : [d.key])));
    if (keys.length === 0) return { states: new Map() };
    const [rev, states] = await Promise.all([this.repos.revisions.byGeneration(view.generation), this.repos.revisions.instanceStates(keys)]);
    let revision: Delivery['revision'];
    if (rev) {
      const plan = rev.plan as Partial<RevisionPlan> | null;
      const changes = new Set((plan?.steps ?? []).filter((s) => s.action !== 'delete').map((s) => s.key));
      let error: string | undefined;
      if (rev.status === 'failed') {
        const [steps, jobs] = await Promise.all([this.repos.revisions.steps(rev.id), this.repos.revisions.jobsFor(rev.id)]);
        error = steps.find((s) => s.status === 'failed' && s.error)?.error ?? jobs.find((j) => j.lastError)?.lastError ?? undefined;
      }
      revision = { id: rev.id, status: rev.status, changes, ...(error ? { error } : {}) };
    }
    return { ...(revision ? { revision } : {}), states: new Map(states.map((s) => [s.key, { status: s.status, revisionId: s.revisionId, error: s.error }])) };
  }

  /** The view as this actor may see it: credentials the objects declare, wherever they went, only for their audience. */
  private async visible(actor: Actor, view: ScopeGraphView, objects: { kind: string; namespace: string; spec: unknown }[]): Promise<ScopeGraphView> {
    const roles = await this.access.roles(actor);
    const hide = (decl: { audience: unknown }, namespace: string) => !mayReadCredentials(roles, decl.audience, namespace);
    return redactWithin(view, hiddenCredentials(objects, hide), hide) as ScopeGraphView;
  }

  private async graph(input: { namespace?: string }): Promise<Entry> {
    const generation = await this.repos.policy.head();
    // What is applied, and where the newest revision stands: installations taken out show their delete phase until it is applied.
    const appliedId = (await this.repos.revisions.head()).appliedRevisionId;
    const applied = appliedId === null ? undefined : await this.repos.revisions.get(appliedId);
    const newest = await this.repos.revisions.byGeneration(generation);
    const key = [generation, input.namespace ?? '', applied?.generation ?? '', newest?.status ?? ''].join('\u0000');
    const hit = this.cache.get(key);
    if (hit) return hit;
    // Kept as it is computed: readers arriving meanwhile wait for the same run instead of starting their own.
    const entry = this.compute(generation, input, applied?.generation, newest?.status);
    this.cache.set(key, entry);
    // Not kept when it failed, nor when a root installation ran out of its time: that is the clock's answer, not the policy's.
    const forget = () => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    };
    entry.then((e) => e.timedOut && forget(), forget);
    while (this.cache.size > KEEP) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }

  private async compute(generation: number, input: { namespace?: string }, appliedGeneration: number | undefined, newestStatus: string | undefined): Promise<Entry> {
    const kinds = new Set<string>(LANDSCAPER_KINDS);
    // Blueprints are found by name from any namespace (as the install stage finds them); the rest is the namespace asked for.
    const ours = (o: { kind: string; namespace: string }) => kinds.has(o.kind) && (o.kind === 'blueprint' || input.namespace === undefined || o.namespace === input.namespace);
    // Only what the engine reads crosses to the resolver thread.
    const bare = (o: EngineObject): EngineObject => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec });
    const stored = await this.repos.policy.listObjects();
    // Clusters name the instances deploy items become (their keys); of a cluster only that, never its credentials.
    const clusters = stored.filter((o) => o.kind === 'cluster').map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: { config: { defaultnamespace: (o.spec as { config?: { defaultnamespace?: unknown } }).config?.defaultnamespace } } }));
    const objects = [...stored.filter(ours).map(bare), ...clusters];
    // What the view was computed from, for the credentials it may hold (the applied generation's too).
    const read: EngineObject[] = [...objects];
    let applied: { objects: EngineObject[]; removal: Removal } | undefined;
    // A no-op revision deploys nothing and removes nothing: what was taken out had nothing running.
    if (appliedGeneration !== undefined && appliedGeneration !== generation && newestStatus !== 'no-op') {
      const then = (await this.repos.policy.listObjects({ generation: appliedGeneration })).filter(ours).map(bare);
      read.push(...then);
      applied = { objects: then, removal: newestStatus === 'applying' ? 'applying' : newestStatus === 'failed' ? 'failed' : 'waiting' };
    }
    try {
      const { timedOut, ...graph } = await this.resolver.run({ op: 'landscaperScopes', objects, ...(applied ? { applied } : {}) });
      return { view: { generation, ...graph }, objects: read, ...(timedOut ? { timedOut } : {}) };
    } catch (e) {
      if (isResolverFailure(e)) throw new AppError('LIMIT_EXCEEDED', `The installations of generation ${generation} could not be run: ${e.reason}.`);
      throw e;
    }
  }
}
