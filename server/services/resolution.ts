/**
 * Resolution on the server: every policy generation gets its desired state,
 * computed once (after the write, in the background, or on first read) and
 * stored. The newest session stays in memory, so a generation that changed
 * only claims is re-resolved incrementally, and decision traces for the
 * claim page come from it without resolving everything again.
 */
import type { RoleGrant } from '../engine/acl';
import { errorAt, failuresOf, objectRef, parseObjectRef, type Diagnostic } from '../engine/diagnostics';
import { locateField } from '../engine/model/source';
import type { PolicyUser } from '../engine/model/users';
import { normaliseKind, type Kind, type ObjectOfKind } from '../engine/model/kinds';
import type { ClaimOutcome, DesiredState, PolicyObjectInput } from '../engine/resolve';
import type { ExpandInput, ExpandResult, TemplateEnv } from '../engine/dm';
import type { Instance } from '../engine/state';
import { measure, type ProbeMeasure, type ProbeMeasured } from '../engine/plan/usage';
import { createResolver, isResolverFailure, type Resolver } from '../resolver';
import type { Repos, ResolutionSummary, StoredObject } from '../repo/types';
import type { MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import type { RequestKind } from './resolution.types';
import { loggable } from '../db/log-safe';

export interface ResolutionView extends ResolutionSummary {
  state: DesiredState;
}

/** Which generation the resolver's warm session holds, for which users, and weighed against which deployed generation. */
interface Cached {
  generation: number;
  usersKey: string;
  deployedFrom: number | null;
}

/** The claims resolved in the deployed generation `from`, with their specs as deployed (EngineInput.deployedClaims). */
interface Deployed {
  from: number;
  claims: Map<string, string>;
}

/** Past this many changed objects a full resolution is as quick as listing them one kind at a time. */
const MAX_INCREMENTAL_CHANGES = 1000;

/** Up to this many changed objects are read one by one rather than by listing their kinds. */
const FEW_CHANGES = 16;

/** How many generations' views stay in memory: the newest and the few a revision or comparison reads beside it. */
const RECENT_VIEWS = 3;
/** How far past the warm session a generation is moved to from there rather than read from storage (see `compute`). */
const NEAR_GENERATIONS = 8;
/** How long a resolution's store waits for what it is stored after (storeResolutionsAfter) at most. */
const STORE_WAIT_MS = 2_000;

/** When `p` settles, or after `ms` — whichever comes first (the timer does not outlive it). */
function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    p.then(done, done);
  });
}

/** Who the users are and what they may consume: a change there means a full resolution. */
function usersKeyOf(users: readonly PolicyUser[], grants: Map<string, RoleGrant[]>): string {
  return JSON.stringify([users.map((u) => [u.name, u.labels, u.secrets]), [...grants]]);
}

export class ResolutionService {
  private cached: Cached | undefined;
  private readonly inFlight = new Map<number, Promise<ResolutionView>>();
  /**
   * Views read recently, newest last. A generation's stored resolution never
   * changes, so every page and panel that asks for it again (a claim page
   * asks twice) is served without reading and parsing the stored state anew.
   */
  private readonly recent = new Map<number, ResolutionView>();
  /** Resolutions run one at a time: they share (and update) the cached session. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repos: Repos,
    private readonly users: () => Promise<PolicyUser[]>,
    private readonly domainAdmins: readonly string[] = [],
    /** Role grants from tenant membership (consume rights). */
    private readonly grants: () => Promise<Map<string, RoleGrant[]>> = async () => new Map(),
    /** Where resolutions run (worker threads on the server; inline by default). */
    private readonly resolver: Resolver = createResolver(),
  ) {}

  async close(): Promise<void> {
    await this.stored();
    return this.resolver.close();
  }

  /**
   * The resolution of a generation, computing it if needed. Without a
   * generation: the newest — but while the newest is still being resolved
   * here, the newest one already resolved serves readers who did not write
   * since (see `written`): under a steady stream of writes every read
   * would otherwise wait for a resolution. A caller whose own write is newer
   * waits for it, so what one writes one reads.
   */
  async get(actor: MaybeActor, generation?: number): Promise<ResolutionView> {
    if (!actor) throw unauthorized('see resolutions');
    const head = await this.repos.policy.head();
    const gen = generation ?? head;
    if (gen < 0 || gen > head) throw notFound(`Generation ${gen}`);
    if (generation === undefined && !this.recent.has(head) && this.inFlight.has(head)) {
      const ready = this.newestReady(head, this.written.get(actor.id) ?? 0);
      if (ready) return ready;
    }
    return this.ensure(gen);
  }

  /** The newest view kept in memory, at or below `head` and not older than `atLeast`. */
  private newestReady(head: number, atLeast: number): ResolutionView | undefined {
    let best: ResolutionView | undefined;
    for (const v of this.recent.values()) if (v.generation <= head && v.generation >= atLeast && (!best || v.generation > best.generation)) best = v;
    return best;
  }

  /**
   * Each writer's newest generation written through this process (bounded:
   * the oldest writers are forgotten first, and a forgotten writer simply
   * waits for the newest resolution, as everybody did before).
   */
  private readonly written = new Map<string, number>();

  /**
   * One claim's outcome; with its decision trace unless `trace: false`
   * (a summary, or a caller after its instances): the trace is a second
   * resolution of the claim, and of the whole policy when the warm session
   * holds another generation.
   */
  async claim(actor: MaybeActor, input: { namespace: string; name: string; kind?: RequestKind; generation?: number }, opts: { trace?: boolean } = {}): Promise<{ generation: number; outcome: ClaimOutcome }> {
    let view = await this.get(actor, input.generation);
    const key = `${input.namespace}/${input.name}`;
    const find = (v: ResolutionView) => v.state.claims.find((c) => c.namespace === input.namespace && c.name === input.name && (input.kind === undefined || (c.kind ?? 'claim') === input.kind));
    let stored = find(view);
    // Served from the newest resolved generation while a newer one resolves, and the claim is newer than that: wait for it.
    if (!stored && input.generation === undefined) {
      const head = await this.repos.policy.head();
      if (view.generation < head) stored = find((view = await this.ensure(head)));
    }
    if (!stored) throw notFound(`${input.kind && input.kind !== 'claim' ? `${input.kind[0]!.toUpperCase()}${input.kind.slice(1)}` : 'Claim'} ${key} at generation ${view.generation}`);
    // Only Aptomi claims have a decision trace to explain (by namespace/name: another kind's outcome must not take a claim's trace).
    const traced = opts.trace === false || stored.kind !== undefined ? undefined : await this.explain(view.generation, key);
    // The stored outcome has the merge's verdict (conflicts); the trace adds the decisions.
    const outcome = traced ? { ...stored, trace: [...traced.trace, ...stored.trace] } : { ...stored };
    if (outcome.diagnostics) outcome.diagnostics = await this.locate(outcome.diagnostics, view.generation);
    return { generation: view.generation, outcome };
  }

  /**
   * Positions for a claim's diagnostics: the engine names the object and the
   * field (and the line inside a template); the object's stored text says
   * where that is, so the console can open the editor on the line.
   */
  private async locate(diagnostics: readonly Diagnostic[], generation: number): Promise<Diagnostic[]> {
    return Promise.all(
      diagnostics.map(async (d) => {
        const id = d.object ? parseObjectRef(d.object) : undefined;
        if (!id || !d.path) return d;
        const o = await this.repos.policy.getObject(id, generation);
        const pos = o && locateField(o.text, d.path, d.line !== undefined ? { line: d.line, column: d.column } : undefined);
        return pos ? { ...d, ...pos } : { ...d, line: undefined, column: undefined };
      }),
    );
  }

  /**
   * Resolve objects that are not stored (an unsaved edit's preview) with the
   * same users, domain admins and tenant grants as a stored generation, so
   * the preview and the revision that saving makes agree.
   */
  async resolveDraft(objects: readonly PolicyObjectInput[]): Promise<DesiredState> {
    const [users, grants, deployed] = await Promise.all([this.users(), this.grants(), this.deployedFor()]);
    return this.resolver.run({ op: 'draft', input: { objects, users, domainAdmins: this.domainAdmins, extraGrants: grants, ...deployedInput(deployed) } });
  }

  /** Where the deployed generation is read from (the accepted revision's; none by default). */
  private deployedGeneration: () => Promise<number | null> = async () => null;
  private deployedSeen: Deployed | undefined;

  readDeployedGenerationFrom(read: () => Promise<number | null>): void {
    this.deployedGeneration = read;
  }

  /**
   * The claims a resolution of `generation` (default: the next one) weighs
   * conflicts against: those resolved in the deployed generation, which keep
   * shared instances a newer claim disagrees on. None for the deployed
   * generation itself or older ones (they were resolved against their own).
   */
  private async deployedFor(generation = Infinity): Promise<Deployed | undefined> {
    const from = await this.deployedGeneration();
    if (from === null || from >= generation) return undefined;
    if (this.deployedSeen?.from === from) return this.deployedSeen;
    const [view, objects] = await Promise.all([this.ensure(from), this.repos.policy.listObjects({ generation: from, kind: 'claim' })]);
    const resolved = new Set(view.state.claims.filter((c) => c.status === 'resolved').map((c) => `${c.namespace}/${c.name}`));
    // The spec as the engine is given it (toPolicyInput): a claim changed since is weighed as a new one.
    const claims = new Map(objects.filter((o) => resolved.has(`${o.namespace}/${o.name}`)).map((o) => [`${o.namespace}/${o.name}`, JSON.stringify(toPolicyInput(o).spec)]));
    return (this.deployedSeen = { from, claims });
  }

  /**
   * The newest generation's desired state with some new claims added (a
   * service being placed, before it is written). From the warm session when
   * it holds that generation for the same users — the claims go in and come
   * out again, so the cost is theirs, not the policy's — else a draft of the
   * whole policy, as `resolveDraft`.
   */
  async withNewClaims(claims: readonly PolicyObjectInput[]): Promise<DesiredState> {
    const head = await this.repos.policy.head();
    await this.resolvedBelow(head);
    const probed = await this.onWarmSession(head, await this.deployedFor(), () => this.resolver.run({ op: 'probe', generation: head, claims }));
    return probed ?? this.draftWithNewClaims(head, claims);
  }

  /**
   * `withNewClaims`, measured: the tenants' usage and the claims' costs that
   * admission weighs. On the warm session they are measured on its thread,
   * so the whole state never crosses to this one (at 600 services that
   * copy, and the sums, were most of what placing a service cost here).
   */
  async measureWithNewClaims(claims: readonly PolicyObjectInput[], m: ProbeMeasure): Promise<ProbeMeasured> {
    const head = await this.repos.policy.head();
    await this.resolvedBelow(head);
    const probed = await this.onWarmSession(head, await this.deployedFor(), () => this.resolver.run({ op: 'probeMeasure', generation: head, claims, measure: m }));
    return probed ?? measure(await this.draftWithNewClaims(head, claims), m);
  }

  /**
   * Run `probe` behind the queue on the warm session at `head`, for the
   * current users; null when it cannot be brought there. A session a few
   * generations behind (another console wrote them) is moved on first: its
   * state stays on the resolver thread, so this costs the changes, where a
   * draft costs the whole policy.
   */
  private async onWarmSession<T>(head: number, deployed: Deployed | undefined, probe: () => Promise<T | null>): Promise<T | null> {
    return this.onQueue(async () => ((await this.advanceSession(head, false, deployed)) ? probe() : null));
  }

  /**
   * Wait for the resolutions this process is running of generations the
   * warm session must pass to reach `head`. The session cannot pass one
   * still being resolved (it would then be resolved in full), so a probe
   * arriving meanwhile took a draft of the whole policy — at 600 services,
   * hundreds of milliseconds on a resolver thread and the whole state
   * crossing to this one — exactly when writes come fastest. Waiting costs
   * the resolution that was coming anyway; the probe then moves the session
   * on by the changes. A few rounds at most (new generations keep coming).
   */
  private async resolvedBelow(head: number): Promise<void> {
    for (let round = 0; round < 3; round++) {
      const from = this.cached?.generation ?? 0;
      const running = [...this.inFlight].filter(([g]) => g > from && g < head).map(([, p]) => p.catch(() => undefined));
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  private async draftWithNewClaims(head: number, claims: readonly PolicyObjectInput[]): Promise<DesiredState> {
    const current = (await this.repos.policy.listObjects({ generation: head })).map(toPolicyInput);
    return this.resolveDraft([...current, ...claims]);
  }

  /**
   * A Deployment Manager configuration expanded on a resolver thread, where
   * Python templates may run (and be stopped) without holding up requests.
   */
  async expandDm(input: ExpandInput, env: TemplateEnv, validateSchema?: boolean): Promise<ExpandResult> {
    return this.resolver.run({ op: 'dmExpand', input, env, ...(validateSchema === false ? { validateSchema } : {}) });
  }

  /** Compute and store in the background (after a write); errors are logged, reads retry. */
  schedule(generation: number, writer?: string): void {
    this.writtenHere.add(generation);
    for (const old of this.writtenHere) if (this.writtenHere.size > 1000) this.writtenHere.delete(old);
    if (writer !== undefined) {
      this.written.delete(writer);
      this.written.set(writer, generation);
      for (const old of this.written.keys()) if (this.written.size > 10_000) this.written.delete(old);
    }
    void this.ensure(generation).catch((e) => console.error(`resolution of generation ${generation} failed: ${loggable(e)}`));
  }

  ensure(generation: number): Promise<ResolutionView> {
    const seen = this.recent.get(generation);
    if (seen) {
      this.recent.delete(generation);
      this.recent.set(generation, seen);
      return Promise.resolve(seen);
    }
    let p = this.inFlight.get(generation);
    if (!p) {
      p = this.compute(generation)
        .then((view) => {
          this.recent.set(generation, view);
          for (const old of this.recent.keys()) if (this.recent.size > RECENT_VIEWS) this.recent.delete(old);
          return view;
        })
        .finally(() => this.inFlight.delete(generation));
      this.inFlight.set(generation, p);
    }
    return p;
  }

  private async compute(generation: number): Promise<ResolutionView> {
    // A generation a few past the warm session is moved to from there: its change crosses from the resolver thread
    // and is built here from the state before (state-delta.ts), where the stored row — the whole state, gzipped —
    // is read and parsed whole on this thread (11 ms for 500 services, for every generation the other console wrote
    // first), and one's own generations were asked for first though never stored yet. The row is read when the
    // session cannot move there (another console changed users, too many changes), before resolving in full.
    const near = this.cached !== undefined && this.cached.generation <= generation && generation - this.cached.generation <= NEAR_GENERATIONS;
    const readStored = () => this.repos.resolutions.get(generation) as Promise<ResolutionView | undefined>;
    const storedFirst = near ? undefined : await readStored();
    if (storedFirst) return storedFirst;
    const started = performance.now();
    let state: DesiredState;
    try {
      // Read before the queue: the deployed generation's own resolution may need a turn of it.
      const deployed = await this.deployedFor(generation);
      // One turn of the queue, as before: nothing else moves the session between the attempt and the full resolution.
      const got = await this.onQueue(async (): Promise<DesiredState | ResolutionView> => {
        const warm = await this.advanceSession(generation, true, deployed);
        return warm ?? (near ? await readStored() : undefined) ?? this.resolveFull(generation, deployed);
      });
      if ('state' in got) return got;
      state = got;
    } catch (e) {
      if (!(isResolverFailure(e))) throw e;
      // Over budget: every claim of the generation fails with the reason, and
      // what the previous generation would deploy is held back as it was, so
      // the revision changes nothing until the policy is fixed.
      const prior = generation > 1 ? await this.ensure(generation - 1).catch(() => undefined) : undefined;
      state = unresolvedState(await this.repos.policy.listObjects({ generation, kind: 'claim' }), prior?.state, generation, e.reason);
    }
    const view: ResolutionView = {
      generation,
      createdAt: new Date(),
      durationMs: Math.round(performance.now() - started),
      claimsTotal: state.claims.length,
      claimsResolved: state.claims.filter((c) => c.status === 'resolved').length,
      claimsRejected: state.claims.filter((c) => c.status === 'rejected').length,
      claimsError: state.claims.filter((c) => c.status === 'error').length,
      instances: state.instances.length,
      state,
    };
    this.store(view);
    return view;
  }

  /**
   * Stored after the view is handed out, not before: what waits for a new
   * generation (its revision, a writer's answer) needs the state, not the
   * row, and on the embedded database statements run one at a time, so a
   * revision's insert queued behind a few hundred kilobytes of state waited
   * for them. A stored resolution is a cache (any process recomputes a
   * missing one from the stored policy); `stored()` waits for the writes.
   */
  private store(view: ResolutionView): void {
    const foreign = !this.writtenHere.has(view.generation);
    const first = this.storeAfter(view.generation);
    const write = (first ? settledWithin(first, STORE_WAIT_MS) : new Promise<void>((resolve) => setTimeout(resolve, 0)))
      // Another console wrote this generation and stores its resolution: unless it has not (it stopped first), serialising
      // and sending the whole state again would only replace the row with the same.
      .then(async () => (foreign && (await this.repos.resolutions.has(view.generation)) ? undefined : this.repos.resolutions.put(view)))
      .catch((e) => {
        // The database closed under a write still queued (the process stopping, a test ending): the
        // resolution is a cache, recomputed when read, and there is nothing to report.
        if (closedUnder(e)) return;
        console.error(`storing the resolution of generation ${view.generation} failed (it is recomputed when read): ${loggable(e)}`);
      })
      .finally(() => this.storing.delete(write));
    this.storing.add(write);
  }

  private readonly storing = new Set<Promise<void>>();

  /**
   * What a generation's resolution is stored after: its revision being
   * computed (RevisionService.computing), which the writer waits for. On the
   * embedded database statements run one at a time, and the state (tens of
   * kilobytes, gzipped) went in first: every create's answer waited for it
   * (27 ms at the median under load, 113 ms at the 99th percentile).
   */
  private storeAfter: (generation: number) => Promise<unknown> | undefined = () => undefined;

  storeResolutionsAfter(first: (generation: number) => Promise<unknown> | undefined): void {
    this.storeAfter = first;
  }

  /** Generations written through this process (their resolutions are stored without asking first); the newest thousand. */
  private readonly writtenHere = new Set<number>();

  /** Resolutions computed so far are stored (tests, shutdown). */
  async stored(): Promise<void> {
    while (this.storing.size > 0) await Promise.all([...this.storing]);
  }

  /**
   * A claim's outcome with its decision trace: from the warm session when it
   * holds this generation; otherwise from a one-off resolution on a preview
   * lane, so that reading an older generation's trace never holds up the
   * resolutions of new ones queued behind the session.
   */
  private async explain(generation: number, key: string): Promise<ClaimOutcome | undefined> {
    const run = this.onQueue(async () => (this.cached?.generation === generation ? this.resolver.run({ op: 'explain', generation, key }) : null));
    try {
      const warm = await run;
      if (warm) return warm.outcome;
      const { input } = await this.fullInput(generation);
      return (await this.resolver.run({ op: 'explainDraft', key, input }))?.outcome;
    } catch (e) {
      if (isResolverFailure(e)) throw new AppError('INVALID_INPUT', `The decision trace of ${key} could not be computed: resolving generation ${generation} ${e.reason}.`);
      throw e;
    }
  }

  /** `work` after everything queued for the resolver thread before it. */
  private onQueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async fullInput(generation: number, deployed?: Deployed) {
    const [users, grants, objects] = await Promise.all([this.users(), this.grants(), this.repos.policy.listObjects({ generation })]);
    // Who the users are and what they may consume: a change there means a full resolution.
    const usersKey = usersKeyOf(users, grants);
    return { usersKey, input: { objects: objects.map(toPolicyInput), users, domainAdmins: this.domainAdmins, extraGrants: grants, ...deployedInput(deployed) } };
  }

  /** Resolve a generation in full (the warm session could not be moved there); the session then holds it. */
  private async resolveFull(generation: number, deployed: Deployed | undefined): Promise<DesiredState> {
    const { input, usersKey } = await this.fullInput(generation, deployed);
    if (!this.cached || this.cached.generation <= generation) this.cached = undefined;
    const state = await this.resolver.run({ op: 'full', generation, input });
    // The resolver keeps the newest generation's session warm.
    if (!this.cached || this.cached.generation <= generation) this.cached = { generation, usersKey, deployedFrom: deployed?.from ?? null };
    return state;
  }

  /**
   * Bring the warm session to `generation` from the changes since the one it
   * holds, for the same users; with `withState`, that generation's state
   * (crossing from the resolver thread), else only whether it could. Null or
   * false when it cannot: no session, a newer one, other users or grants,
   * too many changes, or a change the engine cannot absorb in place.
   * Runs on the queue (its callers are queued).
   */
  private async advanceSession(generation: number, withState: true, deployed: Deployed | undefined): Promise<DesiredState | null>;
  private async advanceSession(generation: number, withState: false, deployed: Deployed | undefined): Promise<boolean>;
  private async advanceSession(generation: number, withState: boolean, deployed: Deployed | undefined): Promise<DesiredState | boolean | null> {
    const prev = this.cached;
    if (!prev || prev.generation > generation) return withState ? null : false;
    const [users, grants] = await Promise.all([this.users(), this.grants()]);
    const usersKey = usersKeyOf(users, grants);
    if (prev.usersKey !== usersKey) return withState ? null : false;
    const deployedFrom = deployed?.from ?? null;
    // Another generation deployed since: the session weighs conflicts again against its claims, on the way.
    const redeploy = prev.deployedFrom === deployedFrom ? {} : { deployedClaims: deployed?.claims ?? new Map<string, string>() };
    if (prev.generation === generation && !redeploy.deployedClaims) return withState ? this.resolver.run({ op: 'state', generation }) : true;
    const no = withState ? null : false;
    // Moving on for a probe must not pass a generation still being resolved here: the session cannot go back, so
    // that one would be resolved in full. The probe takes a draft instead, as it did before sessions moved on.
    if (!withState) for (const g of this.inFlight.keys()) if (g > prev.generation && g < generation) return no;
    const gens = prev.generation === generation ? [] : await this.repos.policy.listGenerations({ before: generation + 1, limit: generation - prev.generation });
    const changes = gens.filter((g) => g.generation > prev.generation).flatMap((g) => g.changes);
    // Which changes the engine can absorb in place is the engine's business
    // (engine/index.ts); the service only hands it what changed.
    if (gens.length !== generation - prev.generation || changes.length > MAX_INCREMENTAL_CHANGES) return no;
    const ref = (o: { kind: string; namespace: string; name: string }) => `${o.kind}/${o.namespace}/${o.name}`;
    const keys = new Set(changes.map(ref));
    // A few changes (a service written through the API: one) are read by key; more, by name within their kind and namespace.
    const now =
      keys.size <= FEW_CHANGES
        ? (await Promise.all(uniqueBy(changes, ref).map((c) => this.repos.policy.getObject({ kind: c.kind, namespace: c.namespace, name: c.name }, generation)))).filter((o) => o !== undefined)
        : (await Promise.all(byKindAndNamespace(changes).map(([kind, namespace, names]) => this.repos.policy.listObjects({ generation, kind, namespace, names })))).flat();
    const upserts = now.filter((o) => keys.has(ref(o))).map(toPolicyInput);
    const present = new Set(upserts.map(ref));
    const deletes = changes.filter((c) => !present.has(ref(c))).map((c) => ({ kind: c.kind, namespace: c.namespace, name: c.name }));
    this.cached = undefined; // until the update answers: a failure leaves the session unknown
    const change = { from: prev.generation, generation, upserts, deletes: uniqueBy(deletes, ref), ...redeploy };
    const moved = withState ? await this.resolver.run({ op: 'update', ...change }) : await this.resolver.run({ op: 'advance', ...change });
    if (moved) this.cached = { generation, usersKey, deployedFrom };
    return moved ?? no;
  }
}

/**
 * The state of a generation whose resolution ran out of budget: each claim
 * fails with the reason; the instances the previous generation had are held
 * back (they carry an error, so the plan leaves what runs as it was).
 */
export function unresolvedState(claims: readonly StoredObject[], prior: DesiredState | undefined, generation: number, reason: string): DesiredState {
  const message = `not resolved: resolving generation ${generation} ${reason}; simplify the policy or raise the budget`;
  const held: Instance[] = (prior?.instances ?? []).map((i) => ({ ...i, error: `held back: ${message}` }));
  return {
    claims: claims.map((o) => {
      const spec = o.spec as Partial<ObjectOfKind['claim']>;
      return { namespace: o.namespace, name: o.name, user: String(spec.user ?? ''), service: String(spec.service ?? ''), status: 'error' as const, ...failuresOf([errorAt('limit', message, { object: objectRef('claim', o.namespace, o.name) })]), instances: [], trace: [] };
    }),
    instances: held,
    errors: [errorAt('limit', message, { object: `generation ${generation}` })],
  };
}

function deployedInput(deployed: Deployed | undefined): { deployedClaims?: Map<string, string> } {
  return deployed ? { deployedClaims: deployed.claims } : {};
}

/** A stored object as the engine takes it. */
export function toPolicyInput(o: StoredObject): PolicyObjectInput {
  return { kind: (normaliseKind(o.kind) ?? o.kind) as Kind, namespace: o.namespace, name: o.name, spec: o.spec as ObjectOfKind[Kind] };
}

/** Changes grouped by kind and namespace, names in chunks a single query takes comfortably. */
function byKindAndNamespace(changes: readonly { kind: string; namespace: string; name: string }[]): [string, string, string[]][] {
  const out: [string, string, string[]][] = [];
  const open = new Map<string, [string, string, string[]]>();
  const seen = new Set<string>();
  for (const c of changes) {
    const k = `${c.kind}\n${c.namespace}`;
    if (seen.has(`${k}\n${c.name}`)) continue;
    seen.add(`${k}\n${c.name}`);
    let g = open.get(k);
    if (!g || g[2].length >= 500) {
      g = [c.kind, c.namespace, []];
      open.set(k, g);
      out.push(g);
    }
    g[2].push(c.name);
  }
  return out;
}

function uniqueBy<T>(items: readonly T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => (seen.has(key(t)) ? false : (seen.add(key(t)), true)));
}

/** The error of a statement sent after the embedded database was closed (PGlite's own, or its thread's). */
function closedUnder(e: unknown): boolean {
  for (let x = e as { message?: unknown; cause?: unknown } | undefined, depth = 0; x && depth < 5; x = x.cause as typeof x, depth++) {
    if (typeof x.message === 'string' && /PGlite is closed|The embedded database is closed/.test(x.message)) return true;
  }
  return false;
}
