/**
 * Deployment Manager's read API over Keelson's history (reference dm.md §5).
 * Nothing is stored for it: a deployment's manifests are the policy
 * generations that changed its object — `manifest-<generation>`, its
 * configuration then, expanded again by the same pure engine (so the
 * same answer every time) — and a generation that deleted it is its empty
 * manifest. Its status is that of the revision of its newest manifest.
 * Deployments are named `namespace/name` (DM's names were global).
 * Everything here is policy, which every signed-in user reads.
 */
import { stringify } from 'yaml';
import type { JsonObject, LayoutResource } from '../engine/dm';
import { dmDiagnostic } from '../engine/dm/types';
import { deploymentEnv, type Deployment } from '../engine/model/sources/dm';
import type { Repos } from '../repo/types';
import type { ResolutionService } from './resolution';
import { AccessService } from './access';
import type { MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import type { DmDeployment, DmManifest, DmTemplate, DmTypeInstance } from './dm.types';

/** How far back manifests are looked for (generations). */
const HISTORY_DEPTH = 2000;

function parseRef(ref: string): { namespace: string; name: string } {
  const i = ref.indexOf('/');
  if (i <= 0 || i === ref.length - 1) throw new AppError('INVALID_INPUT', `A deployment is named namespace/name, not "${ref}".`);
  return { namespace: ref.slice(0, i), name: ref.slice(i + 1) };
}

/** Every node of a layout with its JSON path (`$.resources[0].resources[1]`), in order. */
function walkLayout(resources: readonly LayoutResource[], at = '$'): { node: LayoutResource; path: string }[] {
  return resources.flatMap((node, i) => {
    const path = `${at}.resources[${i}]`;
    return [{ node, path }, ...walkLayout(node.resources ?? [], path)];
  });
}

export class DmService {
  constructor(
    private readonly repos: Repos,
    private readonly resolution: ResolutionService,
    private readonly access: AccessService = new AccessService(repos, []),
  ) {}

  private signedIn(actor: MaybeActor) {
    if (!actor) throw unauthorized('read deployments');
  }

  /** The generations that changed the deployment, newest first. */
  private async changes(namespace: string, name: string) {
    return (await this.repos.policy.listGenerations({ limit: HISTORY_DEPTH })).filter((g) => g.changes.some((c) => c.kind === 'deployment' && c.namespace === namespace && c.name === name));
  }

  private async expanded(namespace: string, name: string, generation: number) {
    const o = await this.repos.policy.getObject({ kind: 'deployment', namespace, name }, generation);
    if (!o) return undefined;
    const d = o.spec as Deployment;
    return { d, r: await this.resolution.expandDm({ config: d.configuration as JsonObject, imports: d.imports ?? {} }, deploymentEnv(namespace, name), d.validateSchema) };
  }

  async deployments(actor: MaybeActor): Promise<string[]> {
    this.signedIn(actor);
    return (await this.repos.policy.listObjects({ kind: 'deployment' })).map((o) => `${o.namespace}/${o.name}`).sort();
  }

  async deployment(actor: MaybeActor, ref: string): Promise<DmDeployment> {
    this.signedIn(actor);
    const { namespace, name } = parseRef(ref);
    const history = await this.changes(namespace, name);
    if (history.length === 0) throw notFound(`Deployment ${ref}`);
    const newest = history[0]!;
    const deleted = newest.changes.some((c) => c.kind === 'deployment' && c.namespace === namespace && c.name === name && c.op === 'delete');
    const revision = await this.repos.revisions.byGeneration(newest.generation);
    // Deployed once an applied revision holds its newest change (that change's own revision may have been superseded).
    const appliedId = (await this.repos.revisions.head()).appliedRevisionId;
    const appliedRev = appliedId === null ? undefined : await this.repos.revisions.get(appliedId);
    const applied = revision?.status === 'applied' || (appliedRev !== undefined && appliedRev.generation >= newest.generation);
    const appliedAt = history.length ? await this.lastApplied(history.map((h) => h.generation)) : null;
    const errors = deleted ? [] : ((await this.expanded(namespace, name, newest.generation))?.r.errors.map((e) => e.message) ?? []);
    const status = deleted ? 'Deleted' : errors.length || revision?.status === 'failed' ? 'Failed' : applied ? 'Deployed' : history.length > 1 ? 'Modified' : 'Created';
    return {
      name: ref,
      createdAt: history.at(-1)!.createdAt,
      deployedAt: appliedAt,
      modifiedAt: newest.createdAt,
      deletedAt: deleted ? newest.createdAt : null,
      state: { status, errors: errors.length ? errors : revision?.status === 'failed' ? [`revision ${revision.id} failed to apply`] : [] },
      latestManifest: `manifest-${newest.generation}`,
    };
  }

  /** When the newest of these generations that was applied was applied. */
  private async lastApplied(generations: number[]): Promise<Date | null> {
    for (const g of generations) {
      const r = await this.repos.revisions.byGeneration(g);
      if (r?.appliedAt) return r.appliedAt;
    }
    return null;
  }

  async manifests(actor: MaybeActor, ref: string): Promise<string[]> {
    this.signedIn(actor);
    const { namespace, name } = parseRef(ref);
    const history = await this.changes(namespace, name);
    if (history.length === 0) throw notFound(`Deployment ${ref}`);
    return history.map((g) => `manifest-${g.generation}`);
  }

  async manifest(actor: MaybeActor, ref: string, manifest: string): Promise<DmManifest> {
    this.signedIn(actor);
    const { namespace, name } = parseRef(ref);
    const m = /^manifest-(\d{1,9})$/.exec(manifest);
    const generation = m ? Number(m[1]) : NaN;
    if (!m || !(await this.changes(namespace, name)).some((g) => g.generation === generation)) throw notFound(`Manifest ${manifest} of deployment ${ref}`);
    const x = await this.expanded(namespace, name, generation);
    // The generation that deleted it: DM's empty manifest.
    if (!x) return { deployment: ref, name: manifest, inputConfig: { name: ref, content: '', imports: [] }, expandedConfig: { resources: [] }, layout: { resources: [] } };
    return {
      deployment: ref,
      name: manifest,
      inputConfig: { name: ref, content: stringify(x.d.configuration), imports: Object.entries(x.d.imports ?? {}).map(([n, f]) => (typeof f === 'string' ? { name: n, path: n, content: f } : { name: n, path: f.path, content: f.content })) },
      expandedConfig: x.r.config,
      layout: x.r.layout,
      ...(x.r.errors.length ? { errors: x.r.errors.map((e) => e.message) } : {}),
    };
  }

  /** A deployment for the console: itself, its manifests, and one of them (default: the newest). */
  async view(actor: MaybeActor, ref: string, manifest?: string): Promise<{ deployment: DmDeployment; manifests: string[]; manifest: DmManifest }> {
    const deployment = await this.deployment(actor, ref);
    return { deployment, manifests: await this.manifests(actor, ref), manifest: await this.manifest(actor, ref, manifest ?? deployment.latestManifest) };
  }

  /** Every type in the current layouts, primitives included. */
  async types(actor: MaybeActor): Promise<string[]> {
    return [...new Set((await this.instancesOfAll(actor)).map((i) => i.type))].sort();
  }

  /** Where each type is used: every node of the current layouts (`all` for every type). */
  async typeInstances(actor: MaybeActor, type: string): Promise<DmTypeInstance[]> {
    const all = await this.instancesOfAll(actor);
    return type === 'all' || type === '' ? all : all.filter((i) => i.type === type);
  }

  private async instancesOfAll(actor: MaybeActor): Promise<DmTypeInstance[]> {
    this.signedIn(actor);
    const head = await this.repos.policy.head();
    const out: DmTypeInstance[] = [];
    for (const o of await this.repos.policy.listObjects({ kind: 'deployment' })) {
      const ref = `${o.namespace}/${o.name}`;
      const x = await this.expanded(o.namespace, o.name, head);
      const latest = (await this.changes(o.namespace, o.name))[0]?.generation ?? head;
      for (const { node, path } of walkLayout(x?.r.layout.resources ?? [])) out.push({ name: node.name, type: node.type, deployment: ref, manifest: `manifest-${latest}`, path });
    }
    return out;
  }

  /**
   * DM's `POST /expand`: a template expanded as a dry run; nothing is stored.
   * Expanding is writing a deployment without saving it: held to the right
   * to manage deployments somewhere, asked before the template is read.
   */
  async expand(actor: MaybeActor, template: DmTemplate): Promise<{ expandedConfig: { resources: unknown[] }; layout: { resources: LayoutResource[] } }> {
    await this.access.assertMayManageSomewhere(actor, 'expand Deployment Manager templates', 'deployment');
    // The path decides the language where the name does not (a registry name has no extension).
    const imports = Object.fromEntries(template.imports.map((i) => [i.name ?? i.path ?? '', i.path ? { content: i.content, path: i.path } : i.content]));
    const r = await this.resolution.expandDm({ config: template.content, imports }, deploymentEnv('dry-run', template.name));
    if (r.errors.length) throw new AppError('INVALID_INPUT', `cannot expand template named ${template.name} (${r.errors.map((e) => e.message).join('; ')})`, { diagnostics: r.errors.map((e) => dmDiagnostic(e)) });
    return { expandedConfig: r.config, layout: r.layout };
  }
}
