/**
 * PolicyRepo, UserRepo and ResolutionRepo on drizzle (PGlite or
 * PostgreSQL); `drizzleRepos` adds the revision and tenant stores.
 */
import { DrizzleEstateRepository } from './estate';
import { DrizzleResourceRepository } from './resources';
import { DrizzleTokenRepository } from './tokens';
import { DrizzleLinkRepository } from './links';
import { DrizzleSessionRepository } from './sessions';
import { and, desc, eq, gt, inArray, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { shareReads } from './fresh-reads';
import { generationsTouching } from './policy-changes';
import { SharedHeads } from './shared-heads';
import type { Db } from '../db/client';
import { deepFreeze } from '../engine/values';
import { policyChanges, policyGenerations, policyHead, policyObjects } from '../db/schema';
import {
  objectIdKey,
  planCommit,
  type CommitRequest,
  type CommitResult,
  type GenerationInfo,
  type ObjectFilter,
  type ObjectId,
  type PolicyRepo,
  type Repos,
  type StoredObject,
} from './types';
import { DrizzleRevisionRepository } from './revisions';
import { sendNow } from './send-now';
import { DrizzleTenantRepository } from './tenants';
import { DrizzleResolutionRepo } from './resolutions';
import { DrizzleUserRepo } from './users';

type GenRow = typeof policyGenerations.$inferSelect;
type ObjRow = typeof policyObjects.$inferSelect;

const toGeneration = (r: GenRow): GenerationInfo => ({
  generation: r.generation,
  author: r.author,
  message: r.message,
  createdAt: r.createdAt,
  changes: r.changes,
  restoredFrom: r.restoredFrom,
});

const toObject = (r: ObjRow): StoredObject => ({
  kind: r.kind,
  namespace: r.namespace,
  name: r.name,
  text: r.text,
  spec: r.spec,
  generation: r.createdGeneration,
});

/** Rows visible at `generation`: written at or before it, not yet superseded then. */
function visibleAt(generation: number | undefined): SQL {
  if (generation === undefined) return isNull(policyObjects.supersededGeneration);
  return and(
    lte(policyObjects.createdGeneration, generation),
    or(isNull(policyObjects.supersededGeneration), gt(policyObjects.supersededGeneration, generation)),
  )!;
}

/** Bound of the policy snapshot, and of the exclusive-mode cache of newest objects read by id (it starts over when full). */
const MAX_HEAD_OBJECTS = 20_000;

/** The whole policy as of one generation, in listObjects' order (kind, namespace, name, bytewise); specs frozen. */
type Snapshot = { generation: number; objects: StoredObject[]; byKey?: Map<string, StoredObject> };

/** The order of the whole policy, kept or read: PostgreSQL's C collation (bytewise), as the embedded database and the test servers are made. */
const byKeyOrder = (a: StoredObject, b: StoredObject) => byteCompare(a.kind, b.kind) || byteCompare(a.namespace, b.namespace) || byteCompare(a.name, b.name);

/** `from` with the objects of `changed` keys replaced by `current` (their versions now; a key absent from it was deleted). */
function carried(from: Snapshot, generation: number, changed: ReadonlySet<string>, current: StoredObject[], limit: number): Snapshot | undefined {
  const kept = changed.size === 0 ? from.objects : from.objects.filter((o) => !changed.has(objectIdKey(o)));
  if (kept.length + current.length > limit) return undefined;
  if (current.length === 0) return { generation, objects: kept };
  // Both sorted: merged rather than sorted again (a few objects into thousands, at every generation).
  const added = current.map(frozen).sort(byKeyOrder);
  const objects: StoredObject[] = [];
  let i = 0;
  for (const o of added) {
    while (i < kept.length && byKeyOrder(kept[i]!, o) < 0) objects.push(kept[i++]!);
    objects.push(o);
  }
  while (i < kept.length) objects.push(kept[i++]!);
  return { generation, objects };
}

/** A snapshot's object by key, as a shallow copy (its spec is frozen). */
function lookUp(snap: Snapshot, key: string): StoredObject | undefined {
  snap.byKey ??= new Map(snap.objects.map((o) => [objectIdKey(o), o]));
  const o = snap.byKey.get(key);
  return o && { ...o };
}

/** The in-memory form of listObjects' filter (the snapshot is in listObjects' order already). */
function matches(o: StoredObject, f: ObjectFilter): boolean {
  return (!f.kind || o.kind === f.kind) && (!f.namespace || o.namespace === f.namespace) && (!f.names || f.names.includes(o.name));
}

/** Cached objects are handed out as shallow copies sharing their spec, so the spec is frozen. */
function frozen(o: StoredObject): StoredObject {
  deepFreeze(o.spec);
  return o;
}

/**
 * PostgreSQL's C collation: UTF-8 bytes, that is code points. UTF-16 code
 * units order the same way except a surrogate pair against U+E000–U+FFFF, so
 * the first difference is compared as code points.
 */
export function byteCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

export class DrizzlePolicyRepo implements PolicyRepo {
  /** `snapshotLimit`: the most objects the kept policy may hold (tests lower it). */
  constructor(
    private readonly db: Db,
    private readonly opts: { exclusive?: boolean; snapshotLimit?: number; heads?: SharedHeads } = {},
  ) {
    this.heads = opts.exclusive ? undefined : (opts.heads ?? new SharedHeads(db));
  }

  /** On a shared database: the head (with the access version) as requests share it (shared-heads.ts); forgotten when this process commits. */
  private readonly heads: SharedHeads | undefined;

  /** The head as this process last read or moved it (exclusive mode only: no other process moves it). */
  private knownHead: number | undefined;

  /**
   * The reads every request makes, built once: drizzle otherwise builds a
   * query's SQL anew on each run, and on PostgreSQL under load that building
   * was a tenth of the request thread.
   */
  private get prepared() {
    return (this.preparedReads ??= this.prepareReads());
  }

  private preparedReads: ReturnType<DrizzlePolicyRepo['prepareReads']> | undefined;

  private prepareReads() {
    const objectKey = and(eq(policyObjects.kind, sql.placeholder('kind')), eq(policyObjects.namespace, sql.placeholder('namespace')), eq(policyObjects.name, sql.placeholder('name')));
    const at = sql.placeholder('generation');
    return {
      head: this.db.select().from(policyHead).where(eq(policyHead.id, 1)).prepare('keelson_policy_head'),
      liveObject: this.db.select().from(policyObjects).where(and(objectKey, isNull(policyObjects.supersededGeneration))).limit(1).prepare('keelson_live_object'),
      objectAt: this.db
        .select()
        .from(policyObjects)
        .where(and(objectKey, lte(policyObjects.createdGeneration, at), or(isNull(policyObjects.supersededGeneration), gt(policyObjects.supersededGeneration, at))))
        .limit(1)
        .prepare('keelson_object_at'),
      // Of the objects the generations in (from, to] changed, the versions visible at `from` or at `to`: per key, the one
      // visible at `to` is its version now, and a key with none was deleted. Versions in between are not read (a claim
      // saved thousands of times while this process kept its snapshot would otherwise come back thousands of times).
      changedBetween: this.db
        .select()
        .from(policyObjects)
        .where(
          and(
            sql`(${policyObjects.kind}, ${policyObjects.namespace}, ${policyObjects.name}) in (select c.kind, c.namespace, c.name from ${policyGenerations} g, jsonb_to_recordset(g.changes) as c(kind text, namespace text, name text) where g.generation > ${sql.placeholder('from')} and g.generation <= ${sql.placeholder('to')})`,
            lte(policyObjects.createdGeneration, sql.placeholder('to')),
            or(isNull(policyObjects.supersededGeneration), gt(policyObjects.supersededGeneration, sql.placeholder('from'))),
            or(lte(policyObjects.createdGeneration, sql.placeholder('from')), isNull(policyObjects.supersededGeneration), gt(policyObjects.supersededGeneration, sql.placeholder('to'))),
          ),
        )
        .prepare('keelson_changed_between'),
      generationsBefore: this.db
        .select()
        .from(policyGenerations)
        .where(lt(policyGenerations.generation, sql.placeholder('before')))
        .orderBy(desc(policyGenerations.generation))
        .limit(sql.placeholder('limit'))
        .prepare('keelson_generations_before'),
      touching: this.db
        .select()
        .from(policyGenerations)
        .where(inArray(policyGenerations.generation, generationsTouching(this.db, sql.placeholder('kind'), sql.placeholder('name'), sql.placeholder('limit'))))
        .orderBy(desc(policyGenerations.generation))
        .prepare('keelson_generations_touching'),
    };
  }

  async head(): Promise<number> {
    if (this.opts.exclusive && this.knownHead !== undefined) return this.knownHead;
    const head = this.heads ? (await this.heads.read()).policy : await this.readHead();
    this.note(head);
    return head;
  }

  private async readHead(): Promise<number> {
    return (await this.prepared.head.execute())[0]?.generation ?? 0;
  }

  /** The highest head this process has read or made: every generation up to it is written whole, and never changes. */
  private highest = 0;

  /** Generations only grow: what is known is the highest seen, whatever order reads and commits finish in. */
  private note(head: number) {
    this.highest = Math.max(this.highest, head);
    if (this.opts.exclusive) this.knownHead = Math.max(this.knownHead ?? 0, head);
  }

  /**
   * The whole policy as of the newest generation read whole. What a
   * generation holds never changes, so it answers every read of that
   * generation; a read of a newer one carries it forward by what the
   * generations between changed (this process's commits carry it too). A
   * save reads the policy several times (admission, resolution, the
   * revision's plan), the objects page reads all of it: on the embedded
   * database those reads were the largest share of a save's statement time,
   * and on PostgreSQL, where another process may move the head at any time,
   * parsing every object's spec again for each of them was a large share of
   * the request thread. Reading only what changed since costs one statement
   * per generation, joined by every request that needs it.
   */
  private snapshot: Snapshot | undefined;
  private get snapshotLimit(): number {
    return this.opts.snapshotLimit ?? MAX_HEAD_OBJECTS;
  }
  /** Snapshots being carried forward, by generation: requests that need the same one wait for one read. */
  private readonly advancing = new Map<number, Promise<Snapshot | undefined>>();

  async listObjects(filter: ObjectFilter = {}): Promise<StoredObject[]> {
    // The head, pinned: a commit finishing meanwhile does not change what generation `at` holds.
    const at = filter.generation ?? (await this.head());
    const whole = !filter.kind && !filter.namespace && !filter.names;
    const snap = await this.snapshotAt(at);
    if (snap) return snap.objects.filter((o) => matches(o, filter)).map((o) => ({ ...o }));
    if (!whole) return this.queryObjects({ ...filter, generation: at });
    const objects = await this.queryObjects({ generation: at });
    // The newest generation read is kept (a read of an older one, say for a diff, does not displace it) — but only one
    // that exists: a read past the head answers the head's objects, which that generation, once written, will not hold.
    if (at <= this.highest && objects.length <= this.snapshotLimit && (!this.snapshot || this.snapshot.generation < at)) this.snapshot = { generation: at, objects: objects.map(frozen) };
    return objects.map((o) => ({ ...o }));
  }

  /**
   * The snapshot of generation `at`, if there is one or one to carry forward
   * to it; `undefined` for an older generation, one past the highest head
   * seen, or with nothing kept yet (a whole read then starts one).
   */
  private snapshotAt(at: number): Snapshot | undefined | Promise<Snapshot | undefined> {
    const snap = this.snapshot;
    if (snap?.generation === at) return snap;
    if (!snap || snap.generation > at || at > this.highest) return undefined;
    let carrying = this.advancing.get(at);
    if (!carrying) {
      carrying = this.carryForward(snap, at).finally(() => this.advancing.delete(at));
      this.advancing.set(at, carrying);
    }
    return carrying;
  }

  private async carryForward(from: Snapshot, at: number): Promise<Snapshot | undefined> {
    const rows = await this.prepared.changedBetween.execute({ from: from.generation, to: at });
    const changed = new Set<string>();
    const current: StoredObject[] = [];
    for (const r of rows) {
      changed.add(objectIdKey(r));
      if (r.supersededGeneration === null || r.supersededGeneration > at) current.push(toObject(r));
    }
    const next = carried(from, at, changed, current, this.snapshotLimit);
    if (next && (!this.snapshot || this.snapshot.generation < at)) this.snapshot = next;
    // Grown past the bound: dropped, or every later read would read ever more of what changed since it, for nothing.
    if (!next && this.snapshot === from) this.snapshot = undefined;
    return next;
  }

  private async queryObjects(filter: ObjectFilter): Promise<StoredObject[]> {
    const conds: SQL[] = [visibleAt(filter.generation)];
    if (filter.kind) conds.push(eq(policyObjects.kind, filter.kind));
    if (filter.namespace) conds.push(eq(policyObjects.namespace, filter.namespace));
    if (filter.names) conds.push(filter.names.length ? inArray(policyObjects.name, [...filter.names]) : sql`false`);
    const rows = await this.db
      .select()
      .from(policyObjects)
      .where(and(...conds))
      .orderBy(policyObjects.kind, policyObjects.namespace, policyObjects.name);
    // In the C collation's order, as a kept snapshot is (on a database made with it the rows already come so, and the
    // sort is cheap): a server made with a locale orders otherwise, and what a process answered, and the policy it
    // resolved, would then depend on whether it had read the policy whole yet.
    return rows.map(toObject).sort(byKeyOrder);
  }

  /**
   * Exclusive mode: objects of the newest generation read by id (null: none
   * there), kept until a commit touches them. Every service read and write
   * looks its claim up by name; on the embedded database that lookup was the
   * largest share of statement time under load.
   */
  private readonly headObjects = new Map<string, StoredObject | null>();
  /** Commits finished; a read a commit overtook is not kept. */
  private commits = 0;

  async getObject(id: ObjectId, generation?: number): Promise<StoredObject | undefined> {
    if (!this.opts.exclusive) {
      // A shared database: the head's objects from the snapshot carried to it, when one is kept.
      const at = generation ?? (await this.head());
      const snap = await this.snapshotAt(at);
      return snap ? lookUp(snap, objectIdKey(id)) : this.readObject(id, at);
    }
    // The head's objects are kept whether the head is asked for by number or not (the editor opens an object at the
    // head it read first): with no other writer, what the head holds is what is live until this process commits.
    const cacheable = generation === undefined || generation === this.knownHead;
    const key = objectIdKey(id);
    const snap = this.snapshot;
    if (snap && snap.generation === (generation ?? this.knownHead)) return lookUp(snap, key);
    if (cacheable) {
      const hit = this.headObjects.get(key);
      // A shallow copy, as the in-memory repository answers.
      if (hit !== undefined) return hit === null ? undefined : { ...hit };
    }
    const commits = this.commits;
    const found = await this.readObject(id, generation);
    if (cacheable && commits === this.commits) {
      if (this.headObjects.size >= MAX_HEAD_OBJECTS) this.headObjects.clear();
      this.headObjects.set(key, found ? frozen(found) : null);
    }
    return cacheable && found ? { ...found } : found;
  }

  private async readObject(id: ObjectId, generation?: number): Promise<StoredObject | undefined> {
    const key = { kind: id.kind, namespace: id.namespace, name: id.name };
    const rows = generation === undefined ? await this.prepared.liveObject.execute(key) : await this.prepared.objectAt.execute({ ...key, generation });
    return rows[0] ? toObject(rows[0]) : undefined;
  }

  async listGenerations(opts: { limit?: number; before?: number; touching?: { kind: string; name: string } } = {}): Promise<GenerationInfo[]> {
    if (opts.touching && opts.before === undefined) {
      // A service's history: every history page asks it.
      const rows = await this.prepared.touching.execute({ kind: opts.touching.kind, name: opts.touching.name, limit: opts.limit ?? 100 });
      return rows.map(toGeneration);
    }
    if (opts.before !== undefined && !opts.touching) {
      // What changed since the generation a console's resolver session holds: asked on every generation another console wrote.
      return (await this.prepared.generationsBefore.execute({ before: opts.before, limit: opts.limit ?? 100 })).map(toGeneration);
    }
    const conds: SQL[] = [];
    if (opts.before !== undefined) conds.push(lt(policyGenerations.generation, opts.before));
    if (opts.touching) conds.push(inArray(policyGenerations.generation, generationsTouching(this.db, opts.touching.kind, opts.touching.name, opts.limit ?? 100, opts.before)));
    const rows = await this.db
      .select()
      .from(policyGenerations)
      .where(conds.length ? and(...conds) : undefined)
      .orderBy(desc(policyGenerations.generation))
      .limit(opts.limit ?? 100);
    return rows.map(toGeneration);
  }

  async getGeneration(generation: number): Promise<GenerationInfo | undefined> {
    const rows = await this.db.select().from(policyGenerations).where(eq(policyGenerations.generation, generation));
    return rows[0] ? toGeneration(rows[0]) : undefined;
  }

  async commit(req: CommitRequest): Promise<CommitResult> {
    let result: CommitResult;
    const written: StoredObject[] = [];
    const closed = new Set<string>();
    try {
      // A base behind a head already read is a conflict whatever the locked head says (heads only move on), so it is
      // answered without queueing for the lock: behind a few writers that took up to 150 ms under load, and an editor's
      // save, whose base is the generation its page was loaded at, then queued again for its real attempt.
      const known = await this.head();
      result = known > req.baseGeneration ? { status: 'conflict', head: known } : await this.commitOnce(req, { written, closed });
    } finally {
      // Whatever became of it, reads that overlapped it are not kept, and what it touched is read again.
      this.commits++;
      this.heads?.forget();
      for (const o of [...req.upserts, ...req.deletes]) this.headObjects.delete(objectIdKey(o));
    }
    if (result.status === 'committed') {
      this.advanceSnapshot(req.baseGeneration, result.generation.generation, written, closed);
      this.note(result.generation.generation);
    } else if (result.status === 'conflict') this.note(result.head);
    return result;
  }

  /**
   * The snapshot of the generation a commit was based on, carried to the one
   * it made: without this every save's first reads of its new generation
   * (admission, the changed objects, clusters, ACL rules) went to the
   * database. The written rows are as the database returned them (jsonb's
   * key order), so a reader cannot tell the carried snapshot from a fresh read.
   * The commit made `base + 1` on `base`, so no other process wrote between.
   */
  private advanceSnapshot(base: number, generation: number, written: StoredObject[], closed: Set<string>): void {
    const snap = this.snapshot;
    if (!snap || snap.generation !== base || generation !== base + 1) return;
    this.snapshot = carried(snap, generation, new Set([...closed, ...written.map(objectIdKey)]), written, this.snapshotLimit);
  }

  /**
   * Two round trips inside the transaction: the head locked and the touched
   * objects read together, then every write together. Statements sent
   * together run one after another in the order sent (one connection, one
   * session), so the read still begins after the lock is granted and sees
   * what its previous holder committed; they only stop waiting for each
   * other's answers. On the embedded database a transaction holds the one
   * connection between its statements, each answer a turn of the busy
   * request thread: seven turns per save were what every read waited out.
   */
  private async commitOnce(req: CommitRequest, track: { written: StoredObject[]; closed: Set<string> }): Promise<CommitResult> {
    return this.db.transaction(async (tx) => {
      const touched = [...req.upserts, ...req.deletes];
      // Lock the head row first: concurrent writers queue here, and the loser then sees the moved generation and gets a conflict.
      const locked = sendNow(tx.select().from(policyHead).where(eq(policyHead.id, 1)).for('update'));
      const reading = touched.length === 0 ? [] : sendNow(tx.select().from(policyObjects).where(liveVersionOf(touched)));
      const [headRows, liveRows] = await Promise.all([locked, reading]);
      const head = headRows[0]?.generation ?? 0;
      if (head !== req.baseGeneration) return { status: 'conflict', head } as const;
      const live = new Map<string, StoredObject>();
      for (const r of liveRows) live.set(objectIdKey(r), toObject(r));
      const plan = planCommit(req, live);
      if (plan.missing.length > 0) return { status: 'missing', missing: plan.missing } as const;
      if (plan.changes.length === 0) return { status: 'unchanged', generation: head } as const;

      const generation = head + 1;
      const closing = [...plan.writes.filter((w) => live.has(objectIdKey(w))), ...plan.deletes];
      // The head moves, and the changes are indexed by key, in one statement (the head's row is locked since the first).
      const changes = JSON.stringify(plan.changes.map((c) => ({ kind: c.kind, name: c.name, namespace: c.namespace })));
      // Closed before the new versions are inserted (sent first, so run first): at most one open version per key.
      const closed = closing.length === 0 ? undefined : sendNow(tx.update(policyObjects).set({ supersededGeneration: generation }).where(liveVersionOf(closing)));
      // Chunked to stay far below the bind-parameter limit on huge writes.
      const inserted = chunks(plan.writes, 500).map((part) => {
        const insert = tx.insert(policyObjects).values(part.map((w) => ({ kind: w.kind, namespace: w.namespace, name: w.name, text: w.text, spec: w.spec, createdGeneration: generation })));
        return sendNow(insert.returning());
      });
      const recorded = sendNow(
        tx.insert(policyGenerations).values({ generation, author: req.author, message: req.message, changes: plan.changes, restoredFrom: req.restoredFrom ?? null }).returning(),
      );
      const moved = sendNow(
        tx.execute(sql`
          with moved as (update ${policyHead} set generation = ${generation}::int where ${policyHead.id} = 1)
          insert into ${policyChanges} (kind, name, generation, namespace)
          select c.kind, c.name, ${generation}::int, c.namespace from jsonb_to_recordset(${changes}::jsonb) as c(kind text, name text, namespace text)
          on conflict do nothing`),
      );
      const [, written, [row]] = await Promise.all([closed, Promise.all(inserted), recorded, moved]);
      for (const rows of written) track.written.push(...rows.map(toObject));
      for (const c of closing) track.closed.add(objectIdKey(c));
      return { status: 'committed', generation: toGeneration(row!) } as const;
    });
  }
}

/**
 * The live (not superseded) version of each object named. The keys travel as
 * one JSON parameter: a row-value IN list of a few hundred tuples overflows
 * PGlite's stack (the whole process aborts).
 */
function liveVersionOf(ids: readonly ObjectId[]): SQL | undefined {
  const keys = JSON.stringify(ids.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name })));
  return and(
    isNull(policyObjects.supersededGeneration),
    sql`(${policyObjects.kind}, ${policyObjects.namespace}, ${policyObjects.name}) in (select k.kind, k.namespace, k.name from jsonb_to_recordset(${keys}::jsonb) as k(kind text, namespace text, name text))`,
  );
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * `exclusive`: this process is the database's only writer (the embedded
 * PGlite), so reads asked on every request (the policy head, a reader's
 * tenant) may be answered from what this process last read or wrote.
 */
export function drizzleRepos(db: Db, opts: { exclusive?: boolean } = {}): Repos {
  if (!opts.exclusive) shareReads();
  // One pair of heads for all of them: the head a request reads also tells the access repositories whether what they kept holds.
  const heads = opts.exclusive ? undefined : new SharedHeads(db);
  return {
    policy: new DrizzlePolicyRepo(db, { ...opts, heads }),
    users: new DrizzleUserRepo(db, { ...opts, heads }),
    resolutions: new DrizzleResolutionRepo(db),
    revisions: new DrizzleRevisionRepository(db),
    tenants: new DrizzleTenantRepository(db, { ...opts, heads }),
    estate: new DrizzleEstateRepository(db, { ...opts, heads }),
    resources: new DrizzleResourceRepository(db),
    tokens: new DrizzleTokenRepository(db, opts),
    links: new DrizzleLinkRepository(db),
    sessions: new DrizzleSessionRepository(db, { ...opts, heads }),
  };
}
