/**
 * Landscaper in the console: the scope graph of the installations in the
 * policy as it stands (server/engine/landscaper/scope-graph.ts), with the
 * root installations taken out since the applied revision in their delete
 * phase. Computed on demand and kept per generation, namespace and apply
 * state;
 * the install engine's own limits (template steps, sizes) bound the work.
 * Installations, DataObjects and Targets are policy, which every signed-in
 * user reads; no secret reaches this view (Secrets are not policy).
 */
import { installInputOf } from '../engine/install';
import { installAll, type InstallationResult } from '../engine/landscaper';
import { removedInstallations, scopeGraph } from '../engine/landscaper/scope-graph';
import { LANDSCAPER_KINDS } from '../engine/model/sources/landscaper';
import type { Repos } from '../repo/types';
import type { MaybeActor } from './actor';
import { unauthorized } from './errors';
import type { ScopeGraphView } from './landscaper.types';

const KEEP = 8;

export class LandscaperService {
  private readonly cache = new Map<string, ScopeGraphView>();

  constructor(private readonly repos: Repos) {}

  async scopes(actor: MaybeActor, input: { namespace?: string } = {}): Promise<ScopeGraphView> {
    if (!actor) throw unauthorized('see installations');
    const generation = await this.repos.policy.head();
    // What is applied, and where the newest revision stands: installations taken out show their delete phase until it is applied.
    const appliedId = (await this.repos.revisions.head()).appliedRevisionId;
    const applied = appliedId === null ? undefined : await this.repos.revisions.get(appliedId);
    const newest = await this.repos.revisions.byGeneration(generation);
    const key = [generation, input.namespace ?? '', applied?.generation ?? '', newest?.status ?? ''].join('\u0000');
    const hit = this.cache.get(key);
    if (hit) return hit;
    const kinds = new Set<string>(LANDSCAPER_KINDS);
    // Blueprints are found by name from any namespace (as the install stage finds them); the rest is the namespace asked for.
    const ours = (o: { kind: string; namespace: string }) => kinds.has(o.kind) && (o.kind === 'blueprint' || input.namespace === undefined || o.namespace === input.namespace);
    const objects = (await this.repos.policy.listObjects()).filter(ours);
    const run = installAll(installInputOf(objects));
    let removed: InstallationResult[] = [];
    // A no-op revision deploys nothing and removes nothing: what was taken out had nothing running.
    if (applied && applied.generation !== generation && newest?.status !== 'no-op') {
      const before = installAll(installInputOf((await this.repos.policy.listObjects({ generation: applied.generation })).filter(ours)));
      removed = removedInstallations(before, run, newest?.status === 'applying' ? 'applying' : newest?.status === 'failed' ? 'failed' : 'waiting');
    }
    const declared = new Map<string, { namespace: string; dataObjects: Record<string, unknown>; targets: string[] }>();
    for (const o of objects) {
      if (o.kind !== 'dataobject' && o.kind !== 'target') continue;
      const d = declared.get(o.namespace) ?? { namespace: o.namespace, dataObjects: {}, targets: [] };
      if (o.kind === 'dataobject') d.dataObjects[o.name] = (o.spec as { data?: unknown }).data;
      else d.targets.push(o.name);
      declared.set(o.namespace, d);
    }
    const view = { generation, ...scopeGraph(run, [...declared.values()], removed) };
    this.cache.set(key, view);
    while (this.cache.size > KEEP) this.cache.delete(this.cache.keys().next().value!);
    return view;
  }
}
