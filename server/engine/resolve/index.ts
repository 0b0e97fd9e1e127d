/**
 * Resolution: policy + users → desired state with per-claim outcomes.
 *
 * `resolvePolicy` resolves everything once. A `ResolveSession` keeps the
 * indexed policy and every claim's result, so when only claims change (the
 * common edit), `update` re-resolves just those claims and re-merges only
 * the instances they touch.
 */
import { errorAt, type Diagnostic } from '../diagnostics';
import type { PolicyUser } from '../model/users';
import { claimKey, resolveClaim } from './claim';
import type { ClaimResult } from './claim-types';
import { DesiredStateBuilder } from './merge';
import { PolicyIndex, type ClaimRef, type PolicyInput, type PolicyObjectInput } from './policy';
import type { ClaimOutcome, DesiredState } from '../state/types';

export type { ClaimOutcome, ClaimStatus, DesiredState, Instance, InstanceCode, Target, TraceStep } from '../state/types';
export type { PolicyInput, PolicyObjectInput } from './policy';
export { sortComponents } from './claim';
export { MAX_SERVICE_DEPTH } from './claim-types';

export interface ResolveOptions {
  /** Record decision traces (default true). */
  trace?: boolean;
}

export function resolvePolicy(input: PolicyInput, opts: ResolveOptions = {}): DesiredState {
  return new ResolveSession(input, opts).state();
}

export class ResolveSession {
  private index: PolicyIndex;
  private readonly builder: DesiredStateBuilder;
  /**
   * Claim key → the claim spec it was resolved from. Kept as given and
   * compared as JSON only when a claim comes back: inputs are plain data
   * the session never changes, and callers must not change them either.
   */
  private readonly resolvedFrom = new Map<string, ClaimRef['spec']>();
  /** Claims whose last outcome ran out of its time (ClaimOutcome.timedOut): resolved again by every update. */
  private readonly timedOut = new Set<string>();
  private readonly opts: ResolveOptions;
  /** PolicyInput.deployedClaims: claim key → its spec as deployed (JSON). */
  private deployed: ReadonlyMap<string, string>;

  constructor(input: PolicyInput, opts: ResolveOptions = {}) {
    this.opts = opts;
    this.index = new PolicyIndex(input);
    this.builder = new DesiredStateBuilder();
    this.deployed = input.deployedClaims ?? new Map();
    if (this.deployed.size > 0) for (const [key, c] of this.index.claims) this.builder.markDeployed(key, this.deployedAsIs(key, c.spec));
    for (const c of this.index.claims.values()) this.resolve(c);
  }

  /** Whether a claim is deployed as it is: a deployed claim changed since is a new claim again. */
  private deployedAsIs(key: string, spec: ClaimRef['spec'] | undefined): boolean {
    const was = this.deployed.get(key);
    return was !== undefined && spec !== undefined && was === JSON.stringify(spec);
  }

  private resolve(c: ClaimRef): ClaimResult {
    const r = resolveClaim(this.index, c, { trace: this.opts.trace });
    this.builder.set(r);
    this.resolvedFrom.set(r.key, c.spec);
    if (r.outcome.timedOut) this.timedOut.add(r.key);
    else this.timedOut.delete(r.key);
    return r;
  }

  /**
   * Apply a change that touches only claims: `upserts` are new or changed
   * claims, `deletes` claim keys (`ns/name`). Everything else in the policy
   * (services, bundles, rules, clusters, users) must be unchanged — start a
   * new session otherwise.
   */
  updateClaims(change: { upserts?: readonly ClaimRef[]; deletes?: readonly string[] }): DesiredState {
    this.absorbClaims(change);
    return this.state();
  }

  /**
   * `updateClaims` without building the state. Claims that ran out of their
   * time are resolved again whatever the change (an empty one too): the
   * clock, not the policy, decided them, and an update is the next chance.
   */
  absorbClaims(change: { upserts?: readonly ClaimRef[]; deletes?: readonly string[] }): void {
    // Keep the index's claims current (explain() and later updates read them).
    for (const key of change.deletes ?? []) this.index.claims.delete(key);
    for (const c of change.upserts ?? []) this.index.claims.set(claimKey(c), c);
    for (const key of change.deletes ?? []) {
      this.builder.markDeployed(key, false);
      this.builder.remove(key);
      this.resolvedFrom.delete(key);
      this.timedOut.delete(key);
    }
    this.index.forgetTimedOut();
    const again = new Set(this.timedOut);
    for (const c of change.upserts ?? []) {
      const key = claimKey(c);
      const prev = this.resolvedFrom.get(key);
      if (!again.delete(key) && prev !== undefined && JSON.stringify(prev) === JSON.stringify(c.spec)) continue;
      if (this.deployed.size > 0) this.builder.markDeployed(key, this.deployedAsIs(key, c.spec));
      this.resolve(c);
    }
    for (const key of again) this.resolve(this.index.claims.get(key)!);
  }

  /** The deployed generation changed (PolicyInput.deployedClaims): conflicts are weighed again against its claims. */
  setDeployedClaims(claims: ReadonlyMap<string, string>): void {
    this.deployed = claims;
    for (const key of [...this.builder.deployedClaims()]) if (!claims.has(key)) this.builder.markDeployed(key, false);
    for (const key of claims.keys()) this.builder.markDeployed(key, this.deployedAsIs(key, this.index.claims.get(key)?.spec));
  }

  /** One claim resolved again with its full decision trace (for the claim page). */
  explain(claimKeyOrRef: string): ClaimOutcome | undefined {
    const c = this.index.claims.get(claimKeyOrRef);
    return c && resolveClaim(this.index, c, { trace: true }).outcome;
  }

  state(): DesiredState {
    const s = this.builder.build();
    s.errors = this.index.aclRules.length > 0 ? aclErrors(this.index) : [];
    return s;
  }

  users(): readonly PolicyUser[] {
    return [...this.index.users.values()];
  }
}

/** ACL rules whose criteria fail to evaluate for some user. */
function aclErrors(index: PolicyIndex): Diagnostic[] {
  const seen = new Map<string, string>();
  for (const u of index.users.values()) {
    for (const e of index.roles(u).errors) {
      const object = e.slice(0, e.indexOf(':'));
      if (!seen.has(object)) seen.set(object, e);
    }
  }
  return [...seen].map(([object, message]) => errorAt('evaluation', message, { object }));
}

/** Split objects into the claim part and the rest (to decide whether a session can be updated). */
export function claimsOf(objects: readonly PolicyObjectInput[]): ClaimRef[] {
  return objects.filter((o) => o.kind === 'claim').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as ClaimRef['spec'] }));
}
export { toResolveOutput, type ResolveOutput } from './output';
