/**
 * Deployment Manager's read API over Keelson's history (reference dm.md §5).
 * Nothing is stored for it: a deployment's manifests are the policy
 * generations that changed its object — `manifest-<generation>`, its
 * configuration then, expanded again by the same pure engine (so the
 * same answer every time) — and a generation that deleted it is its empty
 * manifest. Its status is that of the revision of its newest manifest.
 * Deployments are named `namespace/name` (DM's names were global).
 * Everything here is policy, which every signed-in user reads. DM's
 * writes (create, update, delete) are saves of the deployment object
 * through the policy service, as the console's are: nothing of their own.
 */
import { LineCounter, parseDocument, stringify } from 'yaml';
import type { JsonObject, LayoutResource } from '../engine/dm';
import { formatPath, objectRef, type Diagnostic } from '../engine/diagnostics';
import { dmDiagnostic } from '../engine/dm/types';
import { deploymentEnv, type Deployment } from '../engine/model/sources/dm';
import type { Repos } from '../repo/types';
import type { ResolutionService } from './resolution';
import { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, isAppError, notFound, unauthorized } from '../errors';
import type { DmDeployment, DmManifest, DmTemplate, DmTypeInstance, DmWriteOptions, DmWriteResult } from './dm.types';
import type { PolicyService } from './policy';
import type { RevisionService } from './revisions';

/** How far back manifests are looked for (generations). */
const HISTORY_DEPTH = 2000;

function parseRef(ref: string, field?: string): { namespace: string; name: string } {
  const i = ref.indexOf('/');
  if (i <= 0 || i === ref.length - 1) throw new AppError('INVALID_INPUT', `${field ? `${field}: ` : ''}A deployment is named namespace/name, not "${ref}".`);
  return { namespace: ref.slice(0, i), name: ref.slice(i + 1) };
}

/** Every node of a layout with its JSON path (`$.resources[0].resources[1]`), in order. */
function walkLayout(resources: readonly LayoutResource[], at = '$'): { node: LayoutResource; path: string }[] {
  return resources.flatMap((node, i) => {
    const path = `${at}.resources[${i}]`;
    return [{ node, path }, ...walkLayout(node.resources ?? [], path)];
  });
}

/** An error on a field of the request, for the deployment it would have written. */
function fieldError(namespace: string, name: string, path: (string | number)[], message: string, at?: { line: number; column: number }): Diagnostic {
  return { code: 'schema', severity: 'error', message, object: objectRef('deployment', namespace, name), path, ...(at ?? {}) };
}

function refuse(namespace: string, name: string, path: (string | number)[], message: string, at?: { line: number; column: number }): never {
  const field = formatPath(path);
  const where = at ? ` (line ${at.line}, column ${at.column})` : '';
  throw new AppError('INVALID_INPUT', `${field}${where}: ${message}. Nothing was saved.`, { diagnostics: [fieldError(namespace, name, path, message, at)] });
}

/**
 * A DM Template as a deployment object: `content` is the configuration
 * (YAML; empty is a configuration of no resources, as DM took it), each
 * import is filed under its name (its path decides the language where
 * the name does not). Bad YAML names the field and its line.
 */
function deploymentDocument(namespace: string, name: string, template: DmTemplate, settings: { target: string; k8sNamespace?: string; validateSchema?: boolean }): Record<string, unknown> {
  let configuration: unknown = { resources: [] };
  if (template.content.trim() !== '') {
    const lines = new LineCounter();
    const doc = parseDocument(template.content, { prettyErrors: false, lineCounter: lines });
    const bad = doc.errors[0];
    if (bad) {
      const at = lines.linePos(bad.pos[0]);
      refuse(namespace, name, ['content'], `the configuration is not YAML: ${bad.message.split('\n')[0]}`, { line: at.line, column: at.col });
    }
    configuration = doc.toJS({ maxAliasCount: 100 }) ?? { resources: [] };
    if (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration)) refuse(namespace, name, ['content'], 'the configuration must be a mapping with resources:');
    const c = configuration as Record<string, unknown>;
    if (c.resources === undefined || c.resources === null) c.resources = [];
  }
  const imports: Record<string, string | { content: string; path: string }> = {};
  template.imports.forEach((i, n) => {
    const key = i.name ?? i.path;
    if (!key) refuse(namespace, name, ['imports', n, 'name'], 'an import needs a name (or a path)');
    if (key in imports) refuse(namespace, name, ['imports', n, 'name'], `${key} is imported twice`);
    imports[key] = i.path ? { content: i.content, path: i.path } : i.content;
  });
  return {
    kind: 'deployment',
    metadata: { namespace, name },
    ...settings,
    configuration,
    ...(Object.keys(imports).length ? { imports } : {}),
  };
}

/**
 * A save refused for what the object holds, in words about the request:
 * the lines the policy's diagnostics give are of the object this service
 * wrote, not of anything the caller sent, so they are dropped, and each
 * error names its field (`configuration` for the template's; DM's message
 * quotes the template and its own line). A template that fails to expand
 * is DM's "cannot expand template", a 422: the request was well formed.
 */
function templateFailure(e: unknown, ref: string): unknown {
  // DM's words for a name taken (the object's lines are of text the caller never saw).
  if (isAppError(e) && e.code === 'CONFLICT' && e.diagnostics?.some((d) => d.code === 'duplicate_object')) {
    return new AppError('CONFLICT', `Deployment ${ref} already exists; update it with PUT /deployments/${encodeURIComponent(ref)}. Nothing was saved.`);
  }
  if (!isAppError(e) || e.code !== 'INVALID_INPUT' || !e.diagnostics?.length) return e;
  // DM wraps every expansion failure so (reference dm.md §2); the deployment's check reports it on its configuration.
  const expansionFailed = (d: Diagnostic) => d.message.startsWith('ExpansionError');
  const diagnostics = e.diagnostics.map(({ line: _l, column: _c, endLine: _el, endColumn: _ec, file: _f, ...d }) => (expansionFailed(d) && !d.path ? { ...d, path: ['configuration'] } : d));
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.some(expansionFailed)) {
    return new AppError('INVALID_INPUT', `cannot expand template named ${ref} (${errors.map((d) => d.message).join('; ')}). Nothing was saved.`, { diagnostics, details: { restCode: 'UnprocessableEntity', restStatus: 422 } });
  }
  const named = errors.map((d) => `${d.path?.length ? `${formatPath(d.path)}: ` : ''}${d.message}`);
  return new AppError('INVALID_INPUT', `Deployment ${ref} is not valid: ${named.join('; ')}. Nothing was saved.`, { diagnostics });
}


export class DmService {
  constructor(
    private readonly repos: Repos,
    private readonly resolution: ResolutionService,
    private readonly access: AccessService = new AccessService(repos, []),
    /** Writes go through the policy like any other (rights, size, duplicates, template fetch, secrets), and make a revision. */
    private readonly writes?: { policy: PolicyService; revisions: RevisionService },
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

  /**
   * DM's `POST /deployments`: a Template (`name` = `namespace/name`) becomes
   * a deployment object, saved as the console saves a new object — so one
   * that exists already is a conflict, and nothing is written.
   */
  async create(actor: MaybeActor, template: DmTemplate, opts: DmWriteOptions = {}): Promise<DmWriteResult> {
    const { namespace, name } = parseRef(template.name, 'name');
    const who = await this.mayWrite(actor, namespace, name, 'create deployments');
    if (!opts.target) throw new AppError('INVALID_INPUT', `target: name the Keelson cluster deployment ${template.name} deploys to (query parameter target). Nothing was saved.`, { diagnostics: [fieldError(namespace, name, ['target'], 'required: the Keelson cluster its primitives go to')] });
    const document = deploymentDocument(namespace, name, template, { target: opts.target, ...(opts.k8sNamespace ? { k8sNamespace: opts.k8sNamespace } : {}) });
    return this.save(who, template.name, async () => this.writer().policy.saveObject(who, { text: stringify(document), baseGeneration: await this.repos.policy.head(), message: opts.message ?? `Create deployment ${template.name} (DM API)` }));
  }

  /**
   * DM's `PUT /deployments/<d>`: the deployment's configuration and imports
   * replaced (its cluster and settings kept unless `target` names another).
   * Resources left out are deleted — DM kept them running, a defect its
   * authors noted — so an empty configuration deletes every resource.
   */
  async update(actor: MaybeActor, ref: string, template: DmTemplate, opts: DmWriteOptions = {}): Promise<DmWriteResult> {
    const { namespace, name } = parseRef(ref);
    const who = await this.mayWrite(actor, namespace, name, 'update deployments');
    // DM took the body's name and ignored the path's; two names for one write is a mistake to refuse.
    if (template.name !== ref) throw new AppError('INVALID_INPUT', `name: the body names deployment ${template.name}, the path ${ref}; they must be the same. Nothing was saved.`, { diagnostics: [fieldError(namespace, name, ['name'], `must be ${ref}`)] });
    const base = await this.repos.policy.head();
    const current = await this.repos.policy.getObject({ kind: 'deployment', namespace, name }, base);
    if (!current) throw notFound(`Deployment ${ref}`);
    const was = current.spec as Deployment;
    const document = deploymentDocument(namespace, name, template, {
      target: opts.target ?? was.target,
      ...((opts.k8sNamespace ?? was.k8sNamespace) ? { k8sNamespace: opts.k8sNamespace ?? was.k8sNamespace } : {}),
      ...(was.validateSchema !== undefined ? { validateSchema: was.validateSchema } : {}),
    });
    const id = { kind: 'deployment', namespace, name };
    return this.save(who, ref, () => this.writer().policy.saveObject(who, { id, text: stringify(document), baseGeneration: base, message: opts.message ?? `Update deployment ${ref} (DM API)` }));
  }

  /** DM's `DELETE /deployments/<d>`: the object deleted (a generation, whose manifest is the empty one); answered with the deployment, now Deleted. */
  async remove(actor: MaybeActor, ref: string, opts: Pick<DmWriteOptions, 'message'> = {}): Promise<DmWriteResult> {
    const { namespace, name } = parseRef(ref);
    if (!actor) throw unauthorized('delete deployments');
    const r = await this.writer().policy.delete(actor, { ids: [{ kind: 'deployment', namespace, name }], baseGeneration: await this.repos.policy.head(), message: opts.message ?? `Delete deployment ${ref} (DM API)` });
    return this.answer(actor, ref, r.generation);
  }

  private writer() {
    if (!this.writes) throw new AppError('INTERNAL', 'Deployment Manager writes are not wired to the policy service.');
    return this.writes;
  }

  /** Rights before work: the right to the deployment's namespace, asked before its configuration is read. */
  private async mayWrite(actor: MaybeActor, namespace: string, name: string, verb: string) {
    this.writer();
    return this.access.assertManage(actor, [{ kind: 'deployment', namespace, name }], verb);
  }

  /**
   * The save (it reads the object on the admission threads, under their
   * budget, and refuses one that does not expand), on the newest
   * generation, answered with the deployment in DM's shape, its generation
   * and its revision (waited for, as an Axebow write waits).
   */
  private async save(who: Actor, ref: string, write: () => Promise<{ generation: number; changed: boolean }>): Promise<DmWriteResult> {
    let r;
    try {
      r = await write();
    } catch (e) {
      throw templateFailure(e, ref);
    }
    return this.answer(who, ref, r.generation);
  }

  private async answer(who: Actor, ref: string, generation: number): Promise<DmWriteResult> {
    const revision = await this.writer().revisions.byGeneration(who, generation, { wait: true });
    return { ...(await this.deployment(who, ref)), generation, revision };
  }
}
