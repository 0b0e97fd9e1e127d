/**
 * Landscaper in the console: the scope graph of the installations in the
 * policy as it stands (server/engine/landscaper/scope-graph.ts), with the
 * root installations taken out since the applied revision in their delete
 * phase. Computed on demand and kept per generation, namespace and apply
 * state;
 * the install engine's own limits (template steps, sizes) bound the work.
 * Installations, DataObjects and Targets are policy, which every signed-in
 * user reads; a Target's credentials (declared in the kind registry) reach
 * only their audience — in the Targets installations import, and in any
 * value a template copied them into.
 */
import { installInputOf } from '../engine/install';
import { installAll, type InstallationResult } from '../engine/landscaper';
import { removedInstallations, scopeGraph } from '../engine/landscaper/scope-graph';
import { LANDSCAPER_KINDS } from '../engine/model/sources/landscaper';
import { hiddenCredentials, mayReadCredentials, redactWithin } from '../engine/model/credentials';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { unauthorized } from './errors';
import type { ScopeGraphView } from './landscaper.types';

const KEEP = 8;

export class LandscaperService {
  private readonly cache = new Map<string, { view: ScopeGraphView; objects: { kind: string; namespace: string; spec: unknown }[] }>();

  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
  ) {}

  async scopes(actor: MaybeActor, input: { namespace?: string } = {}): Promise<ScopeGraphView> {
    if (!actor) throw unauthorized('see installations');
    const { view, objects } = await this.graph(input);
    return this.visible(actor, view, objects);
  }

  /** The view as this actor may see it: credentials the objects declare, wherever they went, only for their audience. */
  private async visible(actor: Actor, view: ScopeGraphView, objects: { kind: string; namespace: string; spec: unknown }[]): Promise<ScopeGraphView> {
    const roles = await this.access.roles(actor);
    const hide = (decl: { audience: unknown }, namespace: string) => !mayReadCredentials(roles, decl.audience, namespace);
    return redactWithin(view, hiddenCredentials(objects, hide), hide) as ScopeGraphView;
  }

  private async graph(input: { namespace?: string }) {
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
    // What the view was computed from, for the credentials it may hold (the applied generation's too).
    const read: { kind: string; namespace: string; spec: unknown }[] = [...objects];
    // A no-op revision deploys nothing and removes nothing: what was taken out had nothing running.
    if (applied && applied.generation !== generation && newest?.status !== 'no-op') {
      const then = (await this.repos.policy.listObjects({ generation: applied.generation })).filter(ours);
      read.push(...then);
      const before = installAll(installInputOf(then));
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
    const entry = { view, objects: read };
    this.cache.set(key, entry);
    while (this.cache.size > KEEP) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }
}
