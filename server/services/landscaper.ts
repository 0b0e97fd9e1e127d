/**
 * Landscaper in the console: the scope graph of the installations in the
 * policy as it stands (server/engine/landscaper/scope-graph.ts). Computed
 * on demand from the newest generation and kept for it, per namespace;
 * the install engine's own limits (template steps, sizes) bound the work.
 * Installations, DataObjects and Targets are policy, which every signed-in
 * user reads; no secret reaches this view (Secrets are not policy).
 */
import { installInputOf } from '../engine/install';
import { installAll } from '../engine/landscaper';
import { scopeGraph } from '../engine/landscaper/scope-graph';
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
    const key = `${generation}\u0000${input.namespace ?? ''}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const kinds = new Set<string>(LANDSCAPER_KINDS);
    // Blueprints are found by name from any namespace (as the install stage finds them); the rest is the namespace asked for.
    const objects = (await this.repos.policy.listObjects()).filter((o) => kinds.has(o.kind) && (o.kind === 'blueprint' || input.namespace === undefined || o.namespace === input.namespace));
    const run = installAll(installInputOf(objects));
    const declared = new Map<string, { namespace: string; dataObjects: Record<string, unknown>; targets: string[] }>();
    for (const o of objects) {
      if (o.kind !== 'dataobject' && o.kind !== 'target') continue;
      const d = declared.get(o.namespace) ?? { namespace: o.namespace, dataObjects: {}, targets: [] };
      if (o.kind === 'dataobject') d.dataObjects[o.name] = (o.spec as { data?: unknown }).data;
      else d.targets.push(o.name);
      declared.set(o.namespace, d);
    }
    const view = { generation, ...scopeGraph(run, [...declared.values()]) };
    this.cache.set(key, view);
    while (this.cache.size > KEEP) this.cache.delete(this.cache.keys().next().value!);
    return view;
  }
}
