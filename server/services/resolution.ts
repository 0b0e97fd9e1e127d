/**
 * Resolution on the server: every policy generation gets its desired state,
 * computed once (after the write, in the background, or on first read) and
 * stored. The newest session stays in memory, so a generation that changed
 * only claims is re-resolved incrementally, and decision traces for the
 * claim page come from it without resolving everything again.
 */
import type { RoleGrant } from '../engine/acl';
import type { PolicyUser } from '../engine/model/users';
import { normaliseKind, type Kind, type ObjectOfKind } from '../engine/model/kinds';
import { ResolveSession, type ClaimOutcome, type DesiredState, type PolicyObjectInput } from '../engine/resolve';
import type { Repos, ResolutionSummary, StoredObject } from '../repo/types';
import type { MaybeActor } from './actor';
import { notFound, unauthorized } from './errors';

export interface ResolutionView extends ResolutionSummary {
  state: DesiredState;
}

interface Cached {
  generation: number;
  usersKey: string;
  session: ResolveSession;
  state: DesiredState;
}

/** How many generations' views stay in memory: the newest and the few a revision or comparison reads beside it. */
const RECENT_VIEWS = 3;

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
  ) {}

  /** The resolution of a generation (default: the newest), computing it if needed. */
  async get(actor: MaybeActor, generation?: number): Promise<ResolutionView> {
    if (!actor) throw unauthorized('see resolutions');
    const head = await this.repos.policy.head();
    const gen = generation ?? head;
    if (gen < 0 || gen > head) throw notFound(`Generation ${gen}`);
    return this.ensure(gen);
  }

  /** One claim's outcome with its decision trace. */
  async claim(actor: MaybeActor, input: { namespace: string; name: string; generation?: number }): Promise<{ generation: number; outcome: ClaimOutcome }> {
    const view = await this.get(actor, input.generation);
    const key = `${input.namespace}/${input.name}`;
    const stored = view.state.claims.find((c) => c.namespace === input.namespace && c.name === input.name);
    if (!stored) throw notFound(`Claim ${key} at generation ${view.generation}`);
    const session = await this.sessionFor(view.generation);
    const traced = session.explain(key);
    // The stored outcome has the merge's verdict (conflicts); the trace adds the decisions.
    return { generation: view.generation, outcome: traced ? { ...stored, trace: [...traced.trace, ...stored.trace] } : stored };
  }

  /**
   * Resolve objects that are not stored (an unsaved edit's preview) with the
   * same users, domain admins and tenant grants as a stored generation, so
   * the preview and the revision that saving makes agree.
   */
  async resolveDraft(objects: readonly PolicyObjectInput[]): Promise<DesiredState> {
    const [users, grants] = await Promise.all([this.users(), this.grants()]);
    return new ResolveSession({ objects, users, domainAdmins: this.domainAdmins, extraGrants: grants }, { trace: false }).state();
  }

  /** Compute and store in the background (after a write); errors are logged, reads retry. */
  schedule(generation: number): void {
    void this.ensure(generation).catch((e) => console.error(`resolution of generation ${generation} failed:`, e));
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
    const stored = await this.repos.resolutions.get(generation);
    if (stored) return stored as ResolutionView;
    const started = performance.now();
    const { state } = await this.resolve(generation);
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
    await this.repos.resolutions.put(view);
    return view;
  }

  private async sessionFor(generation: number): Promise<ResolveSession> {
    if (this.cached?.generation === generation) return this.cached.session;
    return (await this.resolve(generation)).session;
  }

  private resolve(generation: number): Promise<{ session: ResolveSession; state: DesiredState }> {
    const run = this.queue.then(() => this.resolveNow(generation));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolve a generation, incrementally from the cached one when only claims changed. */
  private async resolveNow(generation: number): Promise<{ session: ResolveSession; state: DesiredState }> {
    const users = await this.users();
    const grants = await this.grants();
    // Who the users are and what they may consume: a change there means a full resolution.
    const usersKey = JSON.stringify([users.map((u) => [u.name, u.labels, u.secrets]), [...grants]]);
    const prev = this.cached;
    if (prev && prev.usersKey === usersKey && prev.generation < generation) {
      const gens = await this.repos.policy.listGenerations({ before: generation + 1, limit: generation - prev.generation });
      const changes = gens.filter((g) => g.generation > prev.generation).flatMap((g) => g.changes);
      if (gens.length === generation - prev.generation && changes.every((c) => c.kind === 'claim')) {
        const keys = new Set(changes.map((c) => `${c.namespace}/${c.name}`));
        const now = await this.repos.policy.listObjects({ generation, kind: 'claim' });
        const upserts = now.filter((o) => keys.has(`${o.namespace}/${o.name}`)).map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as ObjectOfKind['claim'] }));
        const present = new Set(upserts.map((c) => `${c.namespace}/${c.name}`));
        const state = prev.session.updateClaims({ upserts, deletes: [...keys].filter((k) => !present.has(k)) });
        this.cached = { generation, usersKey, session: prev.session, state };
        return { session: prev.session, state };
      }
    }
    const objects = await this.repos.policy.listObjects({ generation });
    const session = new ResolveSession({ objects: objects.map(toPolicyInput), users, domainAdmins: this.domainAdmins, extraGrants: grants }, { trace: false });
    const state = session.state();
    // Only the newest generation is worth keeping warm.
    if (!this.cached || this.cached.generation <= generation) this.cached = { generation, usersKey, session, state };
    return { session, state };
  }
}

/** A stored object as the engine takes it. */
export function toPolicyInput(o: StoredObject): PolicyObjectInput {
  return { kind: (normaliseKind(o.kind) ?? o.kind) as Kind, namespace: o.namespace, name: o.name, spec: o.spec as ObjectOfKind[Kind] };
}
