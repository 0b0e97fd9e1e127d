/**
 * Policy objects: browse, read, write (as generations) and history.
 * Every write is one generation; a write names the generation it was based
 * on and is refused when the head has moved since.
 */
import { parseDocument } from 'yaml';
import { sortDiagnostics, type Diagnostic } from '../engine/diagnostics';
import { jsonSchemaForKind, KNOWN_KINDS, normaliseKind } from '../engine/model/kinds';
import { objectKey, type AnyLoadedObject } from '../engine/model/validate';
import { credentialMarker, credentialsOf } from '../engine/model/credentials';
import type { ExpandInput, ExpandResult, JsonObject, TemplateEnv } from '../engine/dm';
import { deploymentEnv, type Deployment } from '../engine/model/sources/dm';
import type { GenerationInfo, ObjectId, Repos, StoredObject } from '../repo/types';
import type { TemplateFetcher } from './dm-templates';
import { InlineResolver } from '../resolver';
import type { Actor, MaybeActor } from './actor';
import { AccessService } from './access';
import { PolicyAdmission, refuseErrors } from './admission';
import { AppError, isAppError, notFound, unauthorized } from '../errors';
import type {
  ApplyTextInput,
  DeleteInput,
  DeleteTextInput,
  GenerationView,
  ListGenerationsInput,
  ListObjectsInput,
  ObjectListing,
  ObjectView,
  PolicyDiff,
  SaveObjectInput,
  SaveObjectResult,
  Schemas,
  WriteResult,
} from './policy.types';

export type { ObjectListing, ObjectSummary, WriteResult } from './policy.types';

/** How often an editor's save is tried again on a newer generation that did not change its object. */
const EDIT_ATTEMPTS = 5;
/** How many of the newest generations that touched an object's kind and name are read to tell whether it changed. */
const TOUCH_CHECK = 50;

export class PolicyService {
  private readonly access: AccessService;
  /** Request text becomes objects only through here: rights first, then the reading (./admission.ts). */
  readonly admission: PolicyAdmission;

  constructor(
    private readonly repos: Repos,
    /** Called after each new generation (resolution and its revision start in the background). */
    private readonly onGeneration: (generation: number, opts: { author: MaybeActor; accept: boolean }) => void = () => {},
    access?: AccessService,
    /** Deployment Manager templates referenced by URL: fetched at save, expanded on a resolver thread to find the ones templates name. */
    private readonly dmTemplates?: { fetcher: TemplateFetcher; expand: (input: ExpandInput, env: TemplateEnv, validateSchema?: boolean) => Promise<ExpandResult> },
    admission?: PolicyAdmission,
  ) {
    this.access = access ?? new AccessService(repos, []);
    this.admission = admission ?? new PolicyAdmission(this.access, new InlineResolver());
  }

  /**
   * Deployments whose types name templates by URL get those templates (and
   * their schemas and schema imports) in `imports`, as DM's manager added
   * them to the manifest; the object's text gains them too, so what is
   * stored is what expands. Runs after the writer's rights were checked: an
   * anonymous or unauthorised request makes the server fetch nothing.
   */
  private async fetchTemplates(objects: AnyLoadedObject[], diagnostics: Diagnostic[], file?: string): Promise<{ objects: AnyLoadedObject[]; diagnostics: Diagnostic[] }> {
    const dm = this.dmTemplates;
    if (!dm || !objects.some((o) => o.kind === 'deployment')) return { objects, diagnostics };
    const out: AnyLoadedObject[] = [];
    const notes: Diagnostic[] = [];
    for (const o of objects) {
      if (o.kind !== 'deployment') {
        out.push(o);
        continue;
      }
      const d = o.spec as Deployment;
      const given = d.imports ?? {};
      const env = deploymentEnv(o.namespace, o.name);
      const r = await dm.fetcher.resolve(d.configuration.resources, given, (imports) => dm.expand({ config: d.configuration as JsonObject, imports }, env, d.validateSchema));
      const ref = `deployment/${o.namespace}/${o.name}`;
      for (const w of r.warnings) notes.push({ code: 'schema', severity: 'warning', message: w, object: ref, line: o.pos.line, column: o.pos.column });
      const added = Object.keys(r.imports).filter((k) => !(k in given));
      if (added.length === 0) {
        out.push(o);
        continue;
      }
      const again = await this.admission.withImports(o.text, file, o, Object.fromEntries(added.map((k) => [k, r.imports[k]])));
      refuseErrors(again.diagnostics);
      out.push(...again.objects);
      notes.push({ code: 'schema', severity: 'info', message: `Fetched ${added.length} file${added.length === 1 ? '' : 's'} into imports: ${added.join(', ')}.`, object: ref, line: o.pos.line, column: o.pos.column });
    }
    return { objects: out, diagnostics: sortDiagnostics([...diagnostics, ...notes]) };
  }

  /** Objects as this actor may see them: credentials (as each kind declares them) only for their audience. */
  private async visible<T extends StoredObject>(actor: Actor, objects: T[]): Promise<T[]> {
    return this.access.redactObjects(actor, objects);
  }

  private requireSignedIn(actor: MaybeActor, what: string) {
    if (!actor) throw unauthorized(what);
    return actor;
  }

  async head(actor: MaybeActor): Promise<number> {
    this.requireSignedIn(actor, 'read policy');
    return this.repos.policy.head();
  }

  async listObjects(actor: MaybeActor, q: ListObjectsInput = {}): Promise<ObjectListing> {
    this.requireSignedIn(actor, 'read policy');
    const generation = q.generation ?? (await this.repos.policy.head());
    const all = await this.repos.policy.listObjects({ generation });
    const byKind: Record<string, number> = {};
    const byNamespace: Record<string, number> = {};
    for (const o of all) {
      byKind[o.kind] = (byKind[o.kind] ?? 0) + 1;
      byNamespace[o.namespace] = (byNamespace[o.namespace] ?? 0) + 1;
    }
    const needle = q.search?.trim().toLowerCase();
    const kind = q.kind ? normaliseKind(q.kind) ?? q.kind : undefined;
    const objects = all
      .filter((o) => (!kind || o.kind === kind) && (!q.namespace || o.namespace === q.namespace))
      .filter((o) => !needle || `${o.kind}/${o.namespace}/${o.name}`.toLowerCase().includes(needle))
      .map(({ kind: k, namespace, name, generation: g }) => ({ kind: k, namespace, name, generation: g }));
    return { generation, objects, counts: { byKind, byNamespace, total: all.length } };
  }

  async getObject(actor: MaybeActor, id: ObjectId, generation?: number): Promise<ObjectView> {
    this.requireSignedIn(actor, 'read policy');
    const kind = normaliseKind(id.kind);
    if (!kind) throw new AppError('NOT_FOUND', `Unknown kind "${id.kind}"; known kinds: ${KNOWN_KINDS.join(', ')}.`);
    // The head first, and the object as that generation holds it: the editor saves on `head`, and a save conflicts only
    // when its object changed after its base. Read the other way round (as it once was), a change committed between
    // the two reads was inside the base, and the save silently undid it.
    const head = await this.repos.policy.head();
    const obj = await this.repos.policy.getObject({ ...id, kind }, generation ?? head);
    if (!obj) throw notFound(`${kind} ${id.namespace}/${id.name}${generation ? ` at generation ${generation}` : ''}`);
    const [[shown], readOnlyReason] = await Promise.all([
      this.visible(actor!, [obj]),
      // The same checks saving and deleting make, asked before the user types anything.
      this.whyReadOnly(actor!, { kind, namespace: id.namespace, name: id.name }),
    ]);
    return { ...shown!, head, canEdit: readOnlyReason === null, readOnlyReason };
  }

  /** Why `actor` may not change or delete the object (null: they may). */
  private async whyReadOnly(actor: Actor, id: ObjectId): Promise<string | null> {
    // Both checks at once (each reads the database); the manage check's refusal is the one shown when both refuse.
    const [manage, authors] = await Promise.allSettled([this.access.assertManage(actor, [id], 'change policy'), this.access.assertClaimAuthors(actor, [], [id], 'change')]);
    for (const r of [manage, authors]) {
      if (r.status === 'fulfilled') continue;
      const e: unknown = r.reason;
      if (isAppError(e) && e.code === 'FORBIDDEN') return e.message;
      throw e;
    }
    return null;
  }

  /** Create or update every object in `text` as one generation. */
  async apply(actor: MaybeActor, input: ApplyTextInput & { file?: string }): Promise<WriteResult> {
    const { who, objects, diagnostics } = await this.admission.admit(actor, input.text, { verb: 'change policy', claimVerb: 'save', file: input.file });
    refuseErrors(diagnostics);
    if (objects.length === 0) {
      throw new AppError('INVALID_INPUT', 'The text holds no policy objects. Nothing was saved.', { diagnostics });
    }
    const fetched = await this.fetchTemplates(objects, diagnostics, input.file);
    await this.keepSecrets(fetched.objects);
    return this.commit(who, input.baseGeneration, input.message, fetched.objects, [], fetched.diagnostics, undefined, input.accept);
  }

  /**
   * Create or update objects as one generation, as `apply` does for text:
   * for objects a service built from checked input (an Axebow create,
   * update, restart or rollback), committed as built — not written out as
   * YAML and read again.
   */
  async applyObjects(actor: MaybeActor, input: { objects: readonly AnyLoadedObject[]; baseGeneration: number; message?: string; accept?: boolean }): Promise<WriteResult> {
    const { who, objects, diagnostics } = await this.admission.admitObjects(actor, input.objects, { verb: 'change policy', claimVerb: 'save' });
    refuseErrors(diagnostics);
    if (objects.length === 0) throw new AppError('INVALID_INPUT', 'No policy objects to write. Nothing was saved.');
    const fetched = await this.fetchTemplates(objects, diagnostics);
    await this.keepSecrets(fetched.objects);
    return this.commit(who, input.baseGeneration, input.message, fetched.objects, [], fetched.diagnostics, undefined, input.accept);
  }

  /**
   * Save from the editor. An object's page saves exactly that object:
   * renaming through the editor would silently fork it, so it is refused.
   * The new-object editor creates every object in the text (a YAML list or
   * `---` documents of any kinds) as one generation, as a file applied would.
   */
  async saveObject(actor: MaybeActor, input: SaveObjectInput): Promise<SaveObjectResult> {
    const { who, objects, diagnostics } = await this.admission.admit(actor, input.text, { verb: 'change policy', claimVerb: 'save' });
    refuseErrors(diagnostics);
    if (input.id ? objects.length !== 1 : objects.length === 0) {
      throw new AppError('INVALID_INPUT', `The editor must hold ${input.id ? 'exactly one object' : 'at least one object'} (found ${objects.length}). Nothing was saved.`, {
        diagnostics,
      });
    }
    if (input.id) {
      const obj = objects[0]!;
      const want = `${normaliseKind(input.id.kind) ?? input.id.kind}/${input.id.namespace}/${input.id.name}`;
      if (objectKey(obj) !== want) {
        throw new AppError(
          'INVALID_INPUT',
          `This page edits ${want}; the text now describes ${objectKey(obj)}. Change kind, namespace or name by creating a new object. Nothing was saved.`,
          { diagnostics: [{ code: 'schema', severity: 'error', message: `expected ${want}`, line: obj.pos.line, column: obj.pos.column, object: objectKey(obj) }] },
        );
      }
    } else {
      // Creating never overwrites: each object that exists already is named, with its line.
      const existing = (await Promise.all(objects.map(async (o) => ((await this.repos.policy.getObject(o)) ? o : null)))).filter((o) => o !== null);
      if (existing.length > 0) {
        const names = existing.map((o) => `${o.kind} ${o.namespace}/${o.name}`).join(', ');
        throw new AppError('CONFLICT', `${names} already exist${existing.length === 1 ? 's' : ''}; open ${existing.length === 1 ? 'it' : 'each'} to edit. Nothing was saved.`, {
          diagnostics: existing.map((o) => ({ code: 'duplicate_object' as const, severity: 'error' as const, message: `${o.kind} ${o.namespace}/${o.name} already exists`, line: o.pos.line, column: o.pos.column, object: objectKey(o) })),
        });
      }
    }
    const fetched = await this.fetchTemplates(objects, diagnostics);
    await this.keepSecrets(fetched.objects);
    const ids = objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name }));
    let base = input.baseGeneration;
    for (let attempt = 1; ; attempt++) {
      try {
        const r = await this.commit(who, base, input.message, fetched.objects, [], fetched.diagnostics, undefined, input.accept);
        return { ...r, object: ids[0]!, objects: ids };
      } catch (e) {
        // Others' writes since the editor loaded the object are no conflict unless one changed this object (or made
        // it, for a new one): on a console that services are created through, several a second, the policy nearly
        // always moved while someone edited, and every save was refused. The save goes on the newest generation,
        // as a create through the API does; a change to the object itself is the conflict the editor shows.
        const head = isAppError(e) && e.code === 'CONFLICT' ? (e.details?.head as number | undefined) : undefined;
        // A base past the head was never loaded: no save goes on from it.
        if (head === undefined || head < input.baseGeneration || attempt >= EDIT_ATTEMPTS) throw e;
        const untouched = await Promise.all(ids.map((id) => this.untouchedSince(id, input.baseGeneration)));
        if (!untouched.every(Boolean)) throw e;
        base = head;
      }
    }
  }

  /** Whether no generation after `base` changed the object (false when that cannot be told from the newest few). */
  private async untouchedSince(id: ObjectId, base: number): Promise<boolean> {
    const touching = await this.repos.policy.listGenerations({ limit: TOUCH_CHECK, touching: { kind: id.kind, name: id.name } });
    for (const g of touching) {
      if (g.generation <= base) return true;
      if (g.changes.some((c) => c.kind === id.kind && c.namespace === id.namespace && c.name === id.name)) return false;
    }
    // Every one listed is newer and none was this object: untouched, unless the list was cut short.
    return touching.length < TOUCH_CHECK;
  }

  async delete(actor: MaybeActor, input: DeleteInput): Promise<WriteResult> {
    const who = this.requireSignedIn(actor, 'change policy');
    const ids = input.ids.map((id) => {
      const kind = normaliseKind(id.kind);
      if (!kind) throw new AppError('INVALID_INPUT', `Unknown kind "${id.kind}"; known kinds: ${KNOWN_KINDS.join(', ')}.`);
      return { ...id, kind };
    });
    if (ids.length === 0) throw new AppError('INVALID_INPUT', 'Nothing to delete.');
    await this.access.assertManage(who, ids, 'delete policy');
    await this.access.assertClaimAuthors(who, [], ids, 'delete');
    return this.commit(who, input.baseGeneration, input.message, [], ids, [], undefined, input.accept);
  }

  /** Delete the objects that the YAML `text` describes (CLI `keelson delete`). */
  async deleteText(actor: MaybeActor, input: DeleteTextInput): Promise<WriteResult> {
    const { objects, diagnostics } = await this.admission.admit(actor, input.text, { verb: 'delete policy', claimVerb: 'delete' });
    refuseErrors(diagnostics);
    return this.delete(actor, { ...input, ids: objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name })) });
  }

  private async commit(
    actor: Actor,
    baseGeneration: number,
    message: string | undefined,
    objects: AnyLoadedObject[],
    deletes: ObjectId[],
    diagnostics: Diagnostic[],
    restoredFrom?: number,
    accept = false,
  ): Promise<WriteResult> {
    const res = await this.repos.policy.commit({
      baseGeneration,
      author: actor.name,
      message: message?.trim() || defaultMessage(objects, deletes),
      upserts: objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, text: o.text, spec: o.spec })),
      deletes,
      restoredFrom,
    });
    switch (res.status) {
      case 'conflict':
        throw new AppError(
          'CONFLICT',
          `The policy changed since you loaded it (you edited generation ${baseGeneration}; it is now at ${res.head}). Reload to see the changes, then save again. Nothing was saved.`,
          { details: { head: res.head } },
        );
      case 'missing':
        throw new AppError(
          'NOT_FOUND',
          `Cannot delete what does not exist: ${res.missing.map((m) => `${m.kind} ${m.namespace}/${m.name}`).join(', ')}. Nothing was deleted.`,
        );
      case 'unchanged':
        return { generation: res.generation, changed: false, changes: [], diagnostics };
      case 'committed':
        this.onGeneration(res.generation.generation, { author: actor, accept });
        return { generation: res.generation.generation, changed: true, changes: res.generation.changes, diagnostics };
    }
  }

  async listGenerations(actor: MaybeActor, opts: ListGenerationsInput = {}): Promise<GenerationInfo[]> {
    this.requireSignedIn(actor, 'read policy history');
    return this.repos.policy.listGenerations(opts);
  }

  async getGeneration(actor: MaybeActor, generation: number): Promise<GenerationView> {
    this.requireSignedIn(actor, 'read policy history');
    const head = await this.repos.policy.head();
    if (generation < 0 || generation > head) throw notFound(`Generation ${generation}`);
    const info = generation === 0 ? null : ((await this.repos.policy.getGeneration(generation)) ?? null);
    return { info, objects: await this.visible(actor!, await this.repos.policy.listObjects({ generation })) };
  }

  /** The whole policy of two generations as YAML, for a side-by-side diff. */
  async diff(actor: MaybeActor, from: number, to: number): Promise<PolicyDiff> {
    const [a, b] = await Promise.all([this.getGeneration(actor, from), this.getGeneration(actor, to)]);
    const index = (objs: StoredObject[]) => new Map(objs.map((o) => [objectKey(o), o]));
    const ia = index(a.objects);
    const ib = index(b.objects);
    const changed: ObjectId[] = [];
    for (const k of new Set([...ia.keys(), ...ib.keys()])) {
      const x = ia.get(k);
      const y = ib.get(k);
      if (!x || !y || x.text !== y.text) {
        const o = (x ?? y)!;
        changed.push({ kind: o.kind, namespace: o.namespace, name: o.name });
      }
    }
    return { from: policyAsYaml(a.objects), to: policyAsYaml(b.objects), changed };
  }

  /**
   * Restore the policy of an earlier generation as a new generation. It works
   * on the stored generations, never on what the restorer is shown (that is
   * redacted): an object the restore leaves as it is needs no right at all —
   * not even to read its credentials — and each one it changes or deletes
   * needs the right to write it. Only those are written, as stored.
   */
  async restore(actor: MaybeActor, input: { generation: number; baseGeneration: number; message?: string }): Promise<WriteResult> {
    const who = this.requireSignedIn(actor, 'change policy');
    const head = await this.repos.policy.head();
    if (input.generation < 0 || input.generation > head) throw notFound(`Generation ${input.generation}`);
    const [target, current] = await Promise.all([
      this.repos.policy.listObjects({ generation: input.generation }),
      this.repos.policy.listObjects({ generation: input.baseGeneration }),
    ]);
    const keep = new Set(target.map(objectKey));
    const deletes = current.filter((o) => !keep.has(objectKey(o))).map(({ kind, namespace, name }) => ({ kind, namespace, name }));
    const now = new Map(current.map((o) => [objectKey(o), o]));
    const changed = target.filter((o) => now.get(objectKey(o))?.text !== o.text);
    await this.access.assertManage(who, [...changed, ...deletes], 'roll back');
    await this.access.assertClaimAuthors(who, changed, deletes, 'roll back');
    const res = await this.repos.policy.commit({
      baseGeneration: input.baseGeneration,
      author: who.name,
      message: input.message?.trim() || `Restore generation ${input.generation}`,
      upserts: changed.map(({ kind, namespace, name, text, spec }) => ({ kind, namespace, name, text, spec })),
      deletes,
      restoredFrom: input.generation,
    });
    if (res.status === 'conflict') {
      throw new AppError('CONFLICT', `The policy changed since you loaded it (now at generation ${res.head}). Reload and try again.`);
    }
    if (res.status === 'missing') throw new AppError('CONFLICT', 'The policy changed while restoring. Reload and try again.');
    if (res.status === 'unchanged') return { generation: res.generation, changed: false, changes: [], diagnostics: [] };
    this.onGeneration(res.generation.generation, { author: who, accept: false });
    return { generation: res.generation.generation, changed: true, changes: res.generation.changes, diagnostics: [] };
  }

  /** JSON Schemas per kind for the editor (no rights needed: they describe the language). */
  schemas(): Schemas {
    return Object.fromEntries(KNOWN_KINDS.map((k) => [k, jsonSchemaForKind(k)])) as Schemas;
  }

  /** The redaction placeholder must never be saved as a credential (someone copied what they were shown). */
  private async keepSecrets(objects: AnyLoadedObject[]) {
    for (const o of objects) {
      const decl = credentialsOf(o.kind);
      if (!decl) continue;
      // Anywhere in the object: a redacted copy shows the placeholder wherever a credential was repeated, too.
      const marker = credentialMarker(decl);
      const path = pathOf(o.spec, (v) => typeof v === 'string' && v.includes(marker));
      if (!path) continue;
      const line = o.locate?.(path).line ?? o.pos.line;
      throw new AppError('INVALID_INPUT', `${o.kind} ${o.namespace}/${o.name}, line ${line}: ${path.join('.')} shows "${marker}"; paste the real value or remove the field. Nothing was saved.`);
    }
  }
}

export const REDACTED = credentialMarker(credentialsOf('cluster')!);

export const REDACTED_VALUE = credentialMarker(credentialsOf('typeinstance')!);

/** The path of the first value inside `v` that `test` accepts. */
function pathOf(v: unknown, test: (x: unknown) => boolean, path: (string | number)[] = []): (string | number)[] | undefined {
  if (test(v)) return path;
  if (v && typeof v === 'object') {
    for (const [k, x] of Array.isArray(v) ? v.map((y, i) => [i, y] as const) : Object.entries(v)) {
      const found = pathOf(x, test, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}

function defaultMessage(objects: AnyLoadedObject[], deletes: ObjectId[]): string {
  const parts: string[] = [];
  if (objects.length === 1) parts.push(`Save ${objects[0]!.kind} ${objects[0]!.namespace}/${objects[0]!.name}`);
  else if (objects.length > 1) parts.push(`Apply ${objects.length} objects`);
  if (deletes.length === 1) parts.push(`Delete ${deletes[0]!.kind} ${deletes[0]!.namespace}/${deletes[0]!.name}`);
  else if (deletes.length > 1) parts.push(`Delete ${deletes.length} objects`);
  return parts.join('; ');
}

/** Objects in a stable order, each under a header comment naming it. */
export function policyAsYaml(objects: readonly StoredObject[]): string {
  return [...objects]
    .sort((a, b) => objectKey(a).localeCompare(objectKey(b)))
    .map((o) => `# ${objectKey(o)}\n${o.text.replace(/\s+$/, '')}\n`)
    .join('---\n');
}
