/**
 * Resolving one claim: the walk Aptomi's resolver does (reference
 * aptomi.md §3), in its order, producing the claim's instance contributions
 * and a decision trace. A claim that fails contributes nothing.
 *
 * Per service level ("node"):
 *   service lookup (+ consume ACL) → service change-labels → first matching
 *   context → bundle (same namespace) → context change-labels → allocation
 *   keys → rules (service namespace, then system) → target → bundle key
 *   (cycle check) → components in dependency order (criteria, discovery,
 *   code params, or a child node for a service component).
 */
import { canConsume } from '../acl';
import {
  coerceLabel,
  coerceLabelSet,
  compileTemplateCached,
  criteriaMatch,
  evalCriteria,
  renderPlan,
  renderTemplate,
  type Criteria,
  type LangError,
} from '../lang';
import { pastDeadline, unitDeadline } from '../host-clock';
import type { Deadline } from '../lang/budget';
import type { Bundle, LabelOperations, Service } from '../model/kinds';
import { SYSTEM_NAMESPACE } from '../model/kinds';
import type { PolicyUser } from '../model/users';
import { objectRef, type Diagnostic, type DiagnosticCode } from '../diagnostics';
import { instanceKey } from '../state/key';
import type { SecretAudience } from '../state/types';
import { paramsEqual, qualifiedReference } from '../values';
import type { ClaimRef, InstanceNames, Level, PolicyIndex } from './policy';
export { sortComponents } from './policy';
import type { ClaimOutcome, ClaimStatus, InstanceCode, Target, TraceStep } from '../state/types';

/** Deeper service chains are treated as cycles whose keys change each round. */
export const MAX_SERVICE_DEPTH = 32;
/**
 * Service levels one claim may walk. Depth alone does not bound the walk:
 * two components using the same next service at each of 30 levels make 2^30
 * paths, and a traced walk never replays (every decision is recorded), so
 * such a policy would run the process out of memory. Over budget, the
 * claim fails with the reason; the rest of the policy resolves.
 */
export const MAX_LEVELS_PER_CLAIM = 20_000;
/** Trace steps kept per claim; later steps are counted, not kept. */
export const MAX_TRACE_STEPS = 5_000;

/** What one claim says about one instance. */
export interface Contribution {
  key: string;
  /** The instance's names (the level computed them once; the merge would otherwise parse every key again). */
  names: InstanceNames;
  namespace: string;
  service: string;
  context: string;
  allocationKeys: string[];
  bundle: string;
  component: string;
  target: Target;
  /** Shared by the root and components of one level: never mutated after recording. */
  labels: Readonly<Record<string, string>>;
  code: InstanceCode | null;
  discovery: Record<string, unknown>;
  edges: string[];
  after: string[];
  depth: number;
  /** Owned by the memo and shared between claims: copy before changing (see `owned`). */
  shared: boolean;
  /** Rendered from templates that could read credentials, and who may see them whole. */
  sensitive?: SecretAudience;
}

export interface ClaimResult {
  key: string;
  outcome: ClaimOutcome;
  /** Read-only: a claim that only replayed a memoised walk shares the memo's map. */
  contributions: ReadonlyMap<string, Contribution>;
  /** `contributions` is a memo's map, shared with other claims. */
  shared?: boolean;
}

/** Where a failure sits in the policy: the object and field to open, and the position inside a template. */
interface FailureSite {
  code: DiagnosticCode;
  object?: string;
  path?: (string | number)[];
  /** Line and column inside the template or expression at `path` (1-based). */
  line?: number;
  column?: number;
}

class ClaimFailure extends Error {
  constructor(
    message: string,
    readonly status: Exclude<ClaimStatus, 'resolved'> = 'error',
    readonly site: FailureSite = { code: status === 'rejected' ? 'claim_rejected' : 'claim_error' },
    /** Time decided it, on a clock other than the claim's own (an Interface choice's). */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** `kafka.addresses[0].url` (a parameter path as the template language reports it) as path segments. */
function paramPath(path: string | undefined): (string | number)[] {
  if (!path) return [];
  const out: (string | number)[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1]) out.push(m[1]);
    for (const i of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(i[1]));
  }
  return out;
}

interface Node {
  depth: number;
  /** Namespace the service reference is relative to. */
  namespace: string;
  serviceRef: string;
  /**
   * The labels arriving at this level and the same labels coerced for
   * expressions (kept in step), built on demand: a level whose decision is
   * memoised never needs its own copies.
   */
  incoming: () => { labels: Record<string, string>; params: Record<string, unknown> };
  /**
   * Identity of the arriving labels' content (order included), in two parts,
   * for the decision memo. Each part is a string the index keeps (its hash is
   * computed once), so a lookup never hashes a long concatenation.
   */
  labelsKey: () => readonly [string, string];
  /** Where this level's components announce discovery values. */
  discovery: Record<string, unknown>;
  /** The service-component instance we arrived through (none at depth 0). */
  arrivalKey?: string;
  /** Bundle keys on the way here, for cycle detection. */
  path: string[];
  /** Identity of what `discovery` holds on arrival (the parent component's announcement). */
  inboundSig: string;
  /** Where the reference to this level's service is written (for a failure's diagnostic); depth 0 is the claim. */
  site?: () => FailureSite;
}

/**
 * Bookkeeping of one level being walked, for memoisation: what its subtree
 * recorded and announced, and which claim-specific inputs it read.
 */
interface Frame {
  parent: Frame | null;
  user: boolean;
  claim: boolean;
  /** Set when the subtree merged into instances recorded outside it (a diamond): not reusable. */
  tainted: boolean;
  contributions: Contribution[];
  announced: [string, Record<string, unknown>][];
  rootKeys: string[];
  maxDepth: number;
}

/**
 * What one service level decides from the labels arriving at it: context,
 * bundle, labels after every change, allocation keys, target and instance
 * level. It depends on nothing else unless the user or the claim was read
 * (keys, rules, ACL), so it is memoised per (service, arriving labels) when
 * neither was.
 */
export interface LevelDecision {
  svc: { namespace: string; name: string };
  context: { name: string };
  bundle: { namespace: string; name: string; spec: Bundle };
  keys: string[];
  target: Target;
  level: Level;
  /** The labels after every change, interned at the level (memo keys use their identity). */
  labels: Record<string, string>;
  /** The same labels as walked (children copy them), and coerced for expressions; never changed. */
  live: Record<string, string>;
  params: Record<string, unknown>;
}

const READ_USER = 1;
const READ_CLAIM = 2;

/** A level's walk, reusable by any claim that reaches it with the same inputs. */
export interface MemoResult {
  depth: number;
  contributions: Contribution[];
  announced: [string, Record<string, unknown>][];
  rootKeys: string[];
  maxDepth: number;
  /** The contributions' keys, sorted: the outcome of every claim that replays this walk whole (set on first use). */
  sortedKeys?: string[];
  /**
   * The contributions by key, as a claim replaying this walk whole at its
   * root sees them (depths shifted by the walk's own depth): every such
   * claim's result shares it (set on first use).
   */
  byKey?: ReadonlyMap<string, Contribution>;
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
/** An empty map no one writes to: `record` replaces it before the first write. */
const NO_CONTRIBUTIONS: Map<string, Contribution> = new Map();
const EMPTY_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * A shallow copy by key. Label and discovery maps are built key by key, so
 * V8 keeps them in dictionary mode, where `{...obj}` is several times slower
 * than this loop (measured: 5 µs vs 1 µs for 30 labels).
 */
export function copyObject<T>(o: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) out[keys[i]!] = o[keys[i]!]!;
  return out;
}

export function claimKey(c: { namespace: string; name: string }): string {
  return `${c.namespace}/${c.name}`;
}

export function resolveClaim(index: PolicyIndex, claim: ClaimRef, opts: { trace?: boolean } = {}): ClaimResult {
  return new ClaimWalk(index, claim, opts.trace !== false).run();
}

class ClaimWalk {
  private readonly trace: TraceStep[] = [];
  private traceDropped = 0;
  private levels = 0;
  /** NO_CONTRIBUTIONS until the first is recorded: most claims only replay a memo's map. */
  private contributions: Map<string, Contribution> = NO_CONTRIBUTIONS;
  /** The memoised walk this claim replayed at its root, when that was all it did. */
  private wholeReplay: MemoResult | null = null;
  /** Innermost level being walked (memoisation bookkeeping); null outside levels. */
  private frame: Frame | null = null;
  private readonly memo: boolean;
  private readonly key: string;
  private user!: PolicyUser;
  /** Aptomi's `Claim.ID`: namespace/claim/name. */
  private readonly claimId: string;
  /** When this claim must be done, on the host's clock (host-clock.ts); none without one. */
  private readonly deadline: Deadline | undefined = unitDeadline();
  /** The same, as the options every template and expression of this claim runs with (made once: they run millions of times). */
  private readonly budget: { deadline: Deadline } | undefined = this.deadline ? { deadline: this.deadline } : undefined;

  constructor(
    private readonly index: PolicyIndex,
    private readonly claim: ClaimRef,
    private readonly tracing: boolean,
  ) {
    this.key = claimKey(claim);
    this.claimId = `${claim.namespace}/claim/${claim.name}`;
    // Traces must show every decision, so a traced walk never replays.
    this.memo = !tracing && index.memoEnabled;
  }

  /** Note that the current subtree read the user or the claim (its result is theirs alone). */
  private uses(what: 'user' | 'claim') {
    if (this.frame) this.frame[what] = true;
    this.reads |= what === 'user' ? READ_USER : READ_CLAIM;
  }

  /** What the current level decision read (READ_USER | READ_CLAIM); see `decide`. */
  private reads = 0;

  /** Callers test `this.tracing` first, so that an untraced walk never builds the message. */
  private step(depth: number, kind: TraceStep['kind'], message: string, data?: Record<string, unknown>) {
    if (!this.tracing) return;
    if (this.trace.length >= MAX_TRACE_STEPS) {
      this.traceDropped++;
      return;
    }
    this.trace.push(data ? { depth, kind, message, data } : { depth, kind, message });
  }

  run(): ClaimResult {
    const { claim } = this;
    let status: ClaimStatus = 'resolved';
    let timedOut = false;
    const errors: string[] = [];
    const diagnostics: Diagnostic[] = [];
    let rootKey: string | undefined;
    if (this.tracing) this.step(0, 'claim', `claim ${this.key}: user ${claim.spec.user} wants service ${claim.spec.service}`);
    try {
      const user = this.index.user(claim.spec.user);
      if (!user) {
        throw new ClaimFailure(`claim '${this.key}' refers to non-existing user '${claim.spec.user}'`, 'error', {
          code: 'invalid_reference',
          object: objectRef('claim', claim.namespace, claim.name),
          path: ['user'],
        });
      }
      this.user = user;
      const claimLabels = claim.spec.labels ?? EMPTY_LABELS;
      const build = () => {
        // User labels overwrite claim labels (Aptomi: claim first, then user).
        const labels = copyObject(claimLabels);
        for (const k of Object.keys(user.labels)) labels[k] = user.labels[k]!;
        return { labels, params: coerceLabelSet(labels) };
      };
      let incoming = build;
      if (this.tracing) {
        const built = build();
        this.step(0, 'user', `user ${user.name} found; starting with ${Object.keys(built.labels).length} labels (user labels override claim labels)`, {
          labels: copyObject(built.labels),
        });
        incoming = () => built;
      }
      const { index } = this;
      rootKey = this.resolveNode({
        depth: 0,
        namespace: claim.namespace,
        serviceRef: claim.spec.service,
        incoming,
        // The same claim labels and user labels always merge into the same
        // labels. A claim's labels are keyed afresh: a caller may hand the
        // same spec object back changed (ResolveSession.updateClaims).
        labelsKey: () => [claimLabels === EMPTY_LABELS ? '' : JSON.stringify(claimLabels), index.labelsKey(user.labels)],
        discovery: {},
        path: [],
        inboundSig: '',
      });
      if (this.tracing) this.step(0, 'instance', `claim resolved: ${this.contributions.size} instances`, { instance: rootKey });
    } catch (e) {
      if (!(e instanceof ClaimFailure)) throw e;
      status = e.status;
      // Whatever failed — a template, an expression, the walk — a claim past its time may have failed for that alone
      // (a rule's rejection is the policy's answer, whenever it came).
      timedOut = e.timedOut || (e.status === 'error' && pastDeadline(this.deadline));
      errors.push(e.message);
      const { code, object, path, line, column } = e.site;
      diagnostics.push({
        code,
        severity: 'error',
        message: e.message,
        ...(object ? { object } : {}),
        ...(path ? { path } : {}),
        ...(line !== undefined ? { line, ...(column !== undefined ? { column } : {}) } : {}),
      });
      if (this.tracing) this.step(0, e.status === 'rejected' ? 'reject' : 'error', e.message);
      // Let go of the map: the one held may be a memo's (see `replay`).
      this.contributions = NO_CONTRIBUTIONS;
    }
    if (this.traceDropped > 0) {
      this.trace.push({ depth: 0, kind: 'claim', message: `trace cut at ${MAX_TRACE_STEPS} steps; ${this.traceDropped} later steps not recorded` });
    }
    const outcome: ClaimOutcome = {
      namespace: claim.namespace,
      name: claim.name,
      user: claim.spec.user,
      service: claim.spec.service,
      status,
      errors,
      ...(diagnostics.length > 0 ? { diagnostics } : {}),
      instances: this.sortedInstanceKeys(),
      trace: this.trace,
      ...(timedOut ? { timedOut: true as const } : {}),
    };
    if (status === 'resolved' && rootKey) outcome.instance = rootKey;
    const shared = this.wholeReplay !== null && this.contributions === this.wholeReplay.byKey;
    return shared ? { key: this.key, outcome, contributions: this.contributions, shared } : { key: this.key, outcome, contributions: this.contributions };
  }

  /** Resolves one service level; returns the bundle instance key. */
  private resolveNode(node: Node): string {
    const { index } = this;
    const d = node.depth;
    if (d > MAX_SERVICE_DEPTH) {
      throw new ClaimFailure(`service chain deeper than ${MAX_SERVICE_DEPTH} levels at '${node.serviceRef}' (a cycle whose allocation keys change?)`);
    }
    if (++this.levels > MAX_LEVELS_PER_CLAIM) {
      throw new ClaimFailure(
        `claim '${this.key}' walks more than ${MAX_LEVELS_PER_CLAIM} service levels (at '${node.serviceRef}', depth ${d}): components that use the same services fan out; give them allocation keys or share one component`,
      );
    }
    // Each template and expression looks at the clock as it runs; this is for a walk of many quick ones.
    if (pastDeadline(this.deadline)) {
      throw new ClaimFailure(`claim '${this.key}' ran out of its time (${this.deadline!.ms} ms) at service '${node.serviceRef}' (depth ${d})`);
    }
    const svc = index.service(node.serviceRef, node.namespace);
    if (!svc) {
      throw new ClaimFailure(
        `service '${qualifiedReference(node.serviceRef, node.namespace)}' does not exist (claim '${this.key}', depth ${d})`,
        'error',
        d === 0 ? { code: 'invalid_reference', object: objectRef('claim', this.claim.namespace, this.claim.name), path: ['service'] } : (node.site?.() ?? { code: 'invalid_reference' }),
      );
    }
    const svcName = svc.key;
    if (this.tracing) this.step(d, 'service', `service ${svcName}`);

    if (index.enforceConsumeAcl) {
      this.uses('user');
      const roles = index.roles(this.user);
      if (!canConsume(roles, svc.namespace)) {
        throw new ClaimFailure(
          `user '${this.user.name}' may not consume service '${svcName}': consuming needs a service-consumer, namespace-admin or domain-admin role in namespace '${svc.namespace}'`,
          'rejected',
        );
      }
      if (this.tracing) this.step(d, 'acl', `user ${this.user.name} may consume services in namespace ${svc.namespace}`);
    }

    // The level's decision (context, bundle, labels, keys, rules, target)
    // depends only on the arriving labels unless it read the user or the
    // claim; claims of many users with the same labels share it.
    let decision: LevelDecision | undefined;
    const labelsKey = this.memo ? node.labelsKey() : undefined;
    if (labelsKey) decision = index.decisionLookup(svcName, labelsKey);
    if (!decision) {
      const outer = this.reads;
      this.reads = 0;
      decision = this.decide(node, svc, svcName, d);
      if (labelsKey && this.reads === 0) index.decisionStore(svcName, labelsKey, decision);
      this.reads |= outer;
    }
    const { context, bundle, keys, target, level, labels: sharedLabels, live, params } = decision;
    const bundleKey = level.rootKey;
    if (node.path.includes(bundleKey)) {
      throw new ClaimFailure(`bundle cycle detected: ${[...node.path, bundleKey].map(shortKey).join(' → ')}`);
    }

    // Everything below depends only on this level, its labels, what arrived
    // in discovery and (if read) the user and claim: another claim arriving
    // with the same inputs gets the same subtree, so it is replayed.
    let sig = '';
    if (this.memo) {
      // What arrived in discovery matters only to a bundle whose templates read it.
      sig = index.bundleReadsDiscovery(bundle.spec) ? node.inboundSig : '';
      const hit = index.memoLookup(level, sharedLabels, sig, this.user.name, this.key);
      if (hit && d + hit.result.maxDepth - hit.result.depth <= MAX_SERVICE_DEPTH && !hit.result.rootKeys.some((k) => node.path.includes(k))) {
        if (hit.user) this.uses('user');
        if (hit.claim) this.uses('claim');
        this.replay(hit.result, node, d);
        return bundleKey;
      }
    }
    const path = [...node.path, bundleKey];
    const frame: Frame = { parent: this.frame, user: false, claim: false, tainted: false, contributions: [], announced: [], rootKeys: [bundleKey], maxDepth: d };
    this.frame = frame;
    try {
      this.walkLevel(node, { svc, context, bundle, keys, target, level, labels: sharedLabels, liveLabels: live, params, path, d });
    } finally {
      this.frame = frame.parent;
    }
    if (frame.parent) {
      const p = frame.parent;
      p.user ||= frame.user;
      p.claim ||= frame.claim;
      p.tainted ||= frame.tainted;
      for (const c of frame.contributions) p.contributions.push(c);
      for (const k of frame.rootKeys) p.rootKeys.push(k);
      p.maxDepth = Math.max(p.maxDepth, frame.maxDepth);
    }
    if (this.memo && !frame.tainted) {
      index.memoStore(level, sharedLabels, sig, { user: frame.user, claim: frame.claim }, this.user.name, this.key, {
        depth: d,
        contributions: frame.contributions,
        announced: frame.announced,
        rootKeys: frame.rootKeys,
        maxDepth: frame.maxDepth,
      });
    }
    return bundleKey;
  }

  /** A level's decision, walked: see `LevelDecision`. */
  private decide(node: Node, svc: { namespace: string; name: string; spec: Service }, svcName: string, d: number): LevelDecision {
    const { index } = this;
    // `labels` (strings) and `params` (the same labels coerced for
    // expressions) change together, so neither is rebuilt per test.
    const { labels, params } = node.incoming();
    this.applyLabelOps(labels, params, svc.spec['change-labels'], d, `service ${svcName}`);

    // First matching context, in declared order.
    let context: NonNullable<typeof svc.spec.contexts>[number] | undefined;
    for (const ctx of svc.spec.contexts ?? []) {
      const matched = this.matches(ctx.criteria, params, 'context', ctx.name, svcName);
      if (this.tracing) {
        if (this.tracing) this.step(d, 'context', `context ${ctx.name}: ${matched ? 'matched' : 'did not match'} (${this.reason})`, { context: ctx.name, matched });
      }
      if (matched) {
        context = ctx;
        break;
      }
    }
    if (!context) {
      throw new ClaimFailure(`unable to find matching context within service '${svcName}'`, 'error', {
        code: 'claim_error',
        object: objectRef('service', svc.namespace, svc.name),
        path: ['contexts'],
      });
    }
    const contextIndex = (svc.spec.contexts ?? []).indexOf(context);

    const bundle = index.bundle(context.allocation.bundle, svc.namespace);
    if (!bundle) {
      throw new ClaimFailure(`bundle '${qualifiedReference(context.allocation.bundle, svc.namespace)}' of context '${context.name}' in service '${svcName}' does not exist`, 'error', {
        code: 'invalid_reference',
        object: objectRef('service', svc.namespace, svc.name),
        path: ['contexts', contextIndex, 'allocation', 'bundle'],
      });
    }
    if (bundle.namespace !== svc.namespace) {
      throw new ClaimFailure(`bundle '${bundle.namespace}/${bundle.name}' must be in the namespace of service '${svcName}'`);
    }
    if (this.tracing) this.step(d, 'bundle', `bundle ${bundle.namespace}/${bundle.name}`);
    this.applyLabelOps(labels, params, context['change-labels'], d, `context ${context.name}`);

    // Allocation keys see the labels before rules run (as in Aptomi).
    const keys: string[] = [];
    const allocKeys = context.allocation.keys;
    if (allocKeys && allocKeys.length > 0) {
      for (const src of allocKeys) {
        if (index.templateReads(src, 'User')) this.uses('user');
        if (index.templateReads(src, 'Claim')) this.uses('claim');
        // Keys become instance names (keys, GitOps paths, commit messages): never from secrets.
        if (index.templateMayReadSecrets(src, false)) {
          throw new ClaimFailure(
            `allocation key of context '${context.name}' in service '${svcName}' could read user secrets (${JSON.stringify(src.length > 80 ? `${src.slice(0, 77)}...` : src)}): keys name instances, so they may use .User.Name, .User.Labels and labels, not secrets`,
          );
        }
      }
      const keyData = { User: this.userView(), Claim: this.claimView(), Labels: labels };
      allocKeys.forEach((src, k) =>
        keys.push(
          this.render(src, keyData, `allocation key of context '${context.name}' in service '${svcName}'`, {
            object: objectRef('service', svc.namespace, svc.name),
            path: ['contexts', contextIndex, 'allocation', 'keys', k],
          }),
        ),
      );
      if (this.tracing) this.step(d, 'keys', `allocation keys: ${keys.join(', ')}`, { keys });
    }

    this.processRules(labels, params, svc.namespace, bundle, d, svc.name);

    const target = this.target(labels, svc.namespace);
    if (this.tracing) this.step(d, 'target', `target: cluster ${target.clusterNamespace}/${target.cluster}, namespace ${target.namespace}`, { ...target });

    const prefix = instanceKey.prefix({ clusterNamespace: target.clusterNamespace, cluster: target.cluster, k8sNamespace: target.namespace, namespace: svc.namespace, service: svc.name, context: context.name, allocationKeys: keys });
    const level = index.level(prefix);
    // This level's labels do not change any more: children get copies.
    return { svc, context, bundle, keys, target, level, labels: level.internLabels(labels), live: labels, params };
  }

  private sortedInstanceKeys(): string[] {
    const whole = this.wholeReplay;
    // Every key came from that walk, once each: its sorted list is ours.
    if (whole && whole.contributions.length === this.contributions.size) return (whole.sortedKeys ??= whole.contributions.map((c) => c.key).sort()).slice();
    return [...this.contributions.keys()].sort();
  }

  /** A memoised level: its instances and announcements, as if walked. */
  private replay(hit: MemoResult, node: Node, d: number) {
    const shift = d - hit.depth;
    if (d === 0 && this.contributions.size === 0) {
      this.wholeReplay = hit;
      // The claim is this walk and nothing more (at the root there is no
      // frame, arrival or reader of announcements): share one map, which
      // nobody changes, instead of recording each contribution. Shifted
      // copies are marked shared too, so that no one changes them either.
      this.contributions = (hit.byKey ??= new Map(hit.contributions.map((c) => [c.key, shift === 0 ? c : { ...c, depth: c.depth + shift, shared: true }]))) as Map<
        string,
        Contribution
      >;
      return;
    }
    for (const c of hit.contributions) this.record(shift === 0 ? c : { ...c, depth: c.depth + shift, shared: false });
    if (node.arrivalKey) pushUnique(this.owned(node.arrivalKey).edges, hit.rootKeys[0]!);
    // A root level's announcements have no reader (no later sibling sees them).
    if (d > 0) for (const [name, announced] of hit.announced) node.discovery[name] = announced;
    const f = this.frame;
    if (f) {
      for (const k of hit.rootKeys) f.rootKeys.push(k);
      f.maxDepth = Math.max(f.maxDepth, d + hit.maxDepth - hit.depth);
    }
  }

  /** The component loop of one level (and, through service components, the levels below). */
  private walkLevel(
    node: Node,
    l: Omit<LevelDecision, 'live'> & { liveLabels: Record<string, string>; path: string[]; d: number },
  ) {
    const { index } = this;
    const { svc, context, bundle, keys, target, level, labels, params, path, d } = l;
    const bundleKey = level.rootKey;
    // This level's labels do not change any more (children get copies), so
    // the root and every component share one object. Contributions are
    // built with one fixed shape: spreading a shared base object here was
    // the resolver's single most expensive line (V8 dictionary-mode clones).
    const contribution = (key: string, names: InstanceNames, component: string, code: InstanceCode | null, discovery: Record<string, unknown>, after: string[]): Contribution => ({
      key,
      names,
      namespace: svc.namespace,
      service: svc.name,
      context: context.name,
      allocationKeys: keys,
      bundle: bundle.name,
      component,
      target,
      labels,
      code,
      discovery,
      edges: [],
      after,
      depth: d,
      shared: false,
    });
    const root = this.record(contribution(bundleKey, level.rootNames, 'root', null, EMPTY, []));
    if (node.arrivalKey) pushUnique(this.owned(node.arrivalKey).edges, bundleKey);
    if (this.tracing) this.step(d, 'instance', `bundle instance ${bundleKey}`, { key: bundleKey });

    const bundleNames = level.rootNames;
    const bundleView = {
      Instance: bundleNames.deployName,
      instance: bundleNames.deployName,
      InstanceId: bundleNames.instanceId,
      instanceId: bundleNames.instanceId,
      instanceid: bundleNames.instanceId,
    };
    const userView = this.userView();
    const targetView = { Namespace: target.namespace, Cluster: target.cluster };
    const compKeys = new Map<string, string>();
    for (const comp of index.componentsOf(bundle.spec)) {
      if (comp.criteria) {
        // Component criteria see the labels after rules ran.
        if (!this.matches(comp.criteria, params, 'component', comp.name, `${bundle.namespace}/${bundle.name}`)) {
          if (this.tracing) this.step(d, 'component', `component ${comp.name} skipped (${this.reason})`, { component: comp.name, included: false });
          continue;
        }
      }
      if (comp.interfaceError) {
        throw new ClaimFailure(`component ${comp.name} of bundle ${bundle.namespace}/${bundle.name}: ${comp.interfaceError}`, 'error', undefined, comp.interfaceTimedOut === true);
      }
      if (index.componentReadsUser(comp)) this.uses('user');
      const { key, names: own } = level.component(comp.name);
      compKeys.set(comp.name, key);
      // Both spellings: Aptomi's code and examples use Instance/InstanceId,
      // its documentation instance/instanceid.
      const discoveryView = copyObject(node.discovery);
      discoveryView.instance = own.deployName;
      discoveryView.Instance = own.deployName;
      discoveryView.instanceid = own.instanceId;
      discoveryView.instanceId = own.instanceId;
      discoveryView.InstanceId = own.instanceId;
      discoveryView.Bundle = bundleView;
      discoveryView.bundle = bundleView;
      const data: Record<string, unknown> = { User: userView, Labels: labels, Target: targetView, Discovery: discoveryView };
      if (comp.injected) data.Capact = comp.injected;
      const discovery = level.internDiscovery(comp.name, this.renderTree(comp.discovery, data, 'discovery', comp.name, bundle, ['discovery']), paramsEqual);
      // The component announces itself (and its discovery values) to the components after it.
      const announced: Record<string, unknown> = { instance: own.deployName };
      for (const k of Object.keys(discovery)) announced[k] = discovery[k];
      node.discovery[comp.name] = announced;
      this.frame?.announced.push([comp.name, announced]);

      let code: InstanceCode | null = null;
      if (comp.code) {
        const rendered = this.renderTree(comp.code.params, data, 'code parameters', comp.name, bundle, ['code', 'params']);
        code = level.internCode<InstanceCode>(comp.name, { type: comp.code.type, params: rendered }, sameCode);
      }
      const after: string[] = [];
      for (const dep of comp.dependencies ?? []) {
        const k = compKeys.get(dep);
        if (k !== undefined) after.push(k);
      }
      const c = contribution(key, own, comp.name, code, discovery, after);
      // Rendered from credentials: shown whole only to their audience (injected Hub TypeInstances: domain admins; user secrets: the namespace's admins).
      const audience = index.componentAudience(comp);
      if (audience) c.sensitive = audience;
      this.record(c);
      pushUnique(root.edges, key);
      const via = comp.service ? ` → service ${comp.service}` : comp.implementation ? ` → interface ${comp.interface}: Implementation ${comp.implementation}` : '';
      if (this.tracing) this.step(d, 'component', `component ${comp.name}${via}`, { component: comp.name, included: true, key });

      if (comp.service) {
        this.resolveNode({
          depth: d + 1,
          namespace: svc.namespace,
          serviceRef: comp.service,
          incoming: () => ({ labels: copyObject(l.liveLabels), params: copyObject(params) }),
          labelsKey: () => ['', index.labelsKey(l.liveLabels)],
          discovery: announced,
          arrivalKey: key,
          path,
          inboundSig: `${key}@${index.objectId(discovery)}`,
          site: () => ({
            code: 'invalid_reference',
            object: objectRef('bundle', bundle.namespace, bundle.name),
            path: ['components', (bundle.spec.components ?? []).findIndex((c) => c.name === comp.name), 'service'],
          }),
        });
      }
    }
  }

  /**
   * Record a contribution, or merge it into the one this claim already has
   * for that instance (a claim reaching one instance twice). Returns the
   * claim's own, mutable contribution.
   */
  private record(c: Contribution): Contribution {
    if (this.contributions === NO_CONTRIBUTIONS) this.contributions = new Map();
    const prev = this.contributions.get(c.key);
    if (!prev) {
      this.contributions.set(c.key, c);
      this.frame?.contributions.push(c);
      return c;
    }
    // The subtree met something recorded outside it: its result is not
    // self-contained, so it must not be replayed elsewhere.
    if (this.frame) this.frame.tainted = true;
    if (prev.code !== c.code && !paramsEqual(prev.code?.params, c.code?.params)) throw new ClaimFailure(`conflicting code parameters for instance '${c.key}' within claim '${this.key}'`);
    if (prev.discovery !== c.discovery && !paramsEqual(prev.discovery, c.discovery)) {
      throw new ClaimFailure(`conflicting discovery parameters for instance '${c.key}' within claim '${this.key}'`);
    }
    const own = this.owned(c.key);
    own.depth = Math.min(own.depth, c.depth);
    for (const a of c.after) pushUnique(own.after, a);
    for (const e of c.edges) pushUnique(own.edges, e);
    return own;
  }

  /** This claim's contribution for `key`, copied first if it is shared with the memo. */
  private owned(key: string): Contribution {
    const c = this.contributions.get(key)!;
    if (!c.shared) return c;
    const copy: Contribution = { ...c, edges: [...c.edges], after: [...c.after], shared: false };
    this.contributions.set(key, copy);
    return copy;
  }

  private processRules(
    labels: Record<string, string>,
    params: Record<string, unknown>,
    namespace: string,
    bundle: { namespace: string; name: string; spec: Bundle },
    d: number,
    service: string,
  ) {
    const { index } = this;
    const namespaces = namespace === SYSTEM_NAMESPACE ? [namespace] : [namespace, SYSTEM_NAMESPACE];
    for (const ns of namespaces) if (index.rulesReadClaim(ns)) this.uses('claim');
    let bundleView: Record<string, unknown> | undefined;
    for (const ns of namespaces) {
      const rules = index.rulesIn(ns);
      if (rules.length === 0) continue;
      bundleView ??= { Namespace: bundle.namespace, Name: bundle.name, Labels: bundle.spec.labels ?? {}, Kind: 'bundle' };
      // Aptomi builds the expression parameters once per namespace pass: a
      // label changed by one rule is seen by the next namespace's rules only.
      const snapshot = copyObject(params);
      snapshot.Bundle = bundleView;
      snapshot.Claim = this.claimView();
      let matchedCount = 0;
      for (const rule of rules) {
        const m = criteriaMatch(rule.spec.criteria, snapshot, index.exprCache, this.budget);
        if (!m.ok) {
          throw new ClaimFailure(`error while processing rule '${rule.namespace}/${rule.name}': ${m.error.message}`, 'error', {
            code: 'expression',
            object: objectRef('rule', rule.namespace, rule.name),
            path: ['criteria', ...paramPath(m.error.path)],
          });
        }
        if (!m.value) continue;
        matchedCount++;
        const actions = rule.spec.actions;
        const changed = this.applyLabelOps(labels, params, actions['change-labels'], d, null);
        const reason = this.tracing ? explain(rule.spec.criteria, snapshot, index, this.budget) : '';
        if (this.tracing)
          this.step(d, 'rule', `rule ${rule.namespace}/${rule.name} (weight ${rule.spec.weight}) matched: ${reason}${changed ? `; ${changed}` : ''}`, {
          rule: `${rule.namespace}/${rule.name}`,
          weight: rule.spec.weight,
          ...(actions.claim ? { claim: actions.claim } : {}),
          ...(actions.ingress ? { ingress: actions.ingress } : {}),
        });
        if (actions.claim === 'reject') {
          throw new ClaimFailure(
            `rules do not allow claim '${this.key}' ('${this.claim.spec.user}' -> '${service}'): processing '${service}', tree depth ${d} (rule '${rule.namespace}/${rule.name}')`,
            'rejected',
            { code: 'claim_rejected', object: objectRef('rule', rule.namespace, rule.name), path: ['actions', 'claim'] },
          );
        }
      }
      if (this.tracing) this.step(d, 'rule', `${rules.length} rule${rules.length === 1 ? '' : 's'} in namespace ${ns} checked, ${matchedCount} matched`, { namespace: ns });
    }
  }

  private target(labels: Record<string, string>, namespace: string): Target {
    const t = labels.target;
    if (!t) throw new ClaimFailure(`label 'target' is not set: no rule or label chose a cluster (service namespace '${namespace}')`);
    const dot = t.indexOf('.');
    const clusterRef = dot < 0 ? t : t.slice(0, dot);
    const suffix = dot < 0 ? '' : t.slice(dot + 1);
    const cluster = this.index.cluster(clusterRef, namespace);
    if (!cluster) throw new ClaimFailure(`cluster '${clusterRef}' from label target='${t}' does not exist`);
    return {
      clusterNamespace: cluster.namespace,
      cluster: cluster.name,
      namespace: suffix || cluster.spec.config?.defaultnamespace || 'default',
    };
  }

  /** Set then remove (labels and their coerced twins); returns what changed, or ''. */
  private applyLabelOps(
    labels: Record<string, string>,
    params: Record<string, unknown>,
    ops: LabelOperations | null | undefined,
    d: number,
    source: string | null,
  ): string {
    if (!ops) return '';
    const changes: string[] = [];
    if (ops.set) {
      for (const k of Object.keys(ops.set)) {
        const v = ops.set[k]!;
        if (labels[k] !== v) changes.push(`${k}=${v}`);
        labels[k] = v;
        params[k] = coerceLabel(v);
      }
    }
    if (ops.remove) {
      for (const k of Object.keys(ops.remove)) {
        if (k in labels) changes.push(`-${k}`);
        delete labels[k];
        delete params[k];
      }
    }
    const text = changes.length ? `labels ${changes.join(', ')}` : '';
    if (this.tracing && source && text) this.step(d, 'labels', `${source} changed ${text}`, { changes });
    return text;
  }

  private userView() {
    const u = this.user;
    return { Name: u.name, ID: u.name, Labels: u.labels, Secrets: u.secrets };
  }

  private claimView() {
    const c = this.claim;
    return {
      Namespace: c.namespace,
      Name: c.name,
      Kind: 'claim',
      ID: this.claimId,
      User: c.spec.user,
      Service: c.spec.service,
      Labels: c.spec.labels ?? {},
    };
  }

  private render(src: string, data: unknown, what: string, at: { object: string; path: (string | number)[] }): string {
    const t = compileTemplateCached(src, this.index.templateCache);
    const r = t.ok ? renderTemplate(t.value, data, this.budget) : t;
    if (!r.ok) throw new ClaimFailure(`${what}: ${describe(r.error)}`, 'error', { code: 'template', ...at, line: r.error.line, column: r.error.column });
    return r.value;
  }

  private renderTree(
    tree: Record<string, unknown> | null | undefined,
    data: unknown,
    what: string,
    component: string,
    bundle: { namespace: string; name: string; spec: Bundle },
    field: readonly string[],
  ): Record<string, unknown> {
    if (!tree) return EMPTY;
    const plan = this.index.plan(tree);
    const r = plan.ok ? renderPlan(plan.value, data, this.budget) : plan;
    if (!r.ok) {
      const ci = (bundle.spec.components ?? []).findIndex((c) => c.name === component);
      throw new ClaimFailure(`${what} of component '${component}' in bundle '${bundle.namespace}/${bundle.name}': ${describe(r.error)}`, 'error', {
        code: 'template',
        object: objectRef('bundle', bundle.namespace, bundle.name),
        path: ['components', ci, ...field, ...paramPath(r.error.path)],
        line: r.error.line,
        column: r.error.column,
      });
    }
    return r.value as Record<string, unknown>;
  }

  /** Why the last `matches` decided as it did (only when tracing). */
  private reason = '';

  /**
   * Criteria test of a context or component. The explanation costs a second
   * evaluation, so it is produced (into `reason`) only when tracing; error
   * messages are built only on failure.
   */
  private matches(criteria: Criteria | null | undefined, params: Record<string, unknown>, what: 'context' | 'component', name: string, owner: string): boolean {
    if (this.tracing) {
      const m = evalCriteria(criteria, params, this.index.exprCache, this.budget);
      if (!m.ok) throw criteriaFailure(what, name, owner, m.error);
      this.reason = m.value.reason;
      return m.value.matched;
    }
    const m = criteriaMatch(criteria, params, this.index.exprCache, this.budget);
    if (!m.ok) throw criteriaFailure(what, name, owner, m.error);
    return m.value;
  }
}

function pushUnique<T>(list: T[], v: T) {
  if (!list.includes(v)) list.push(v);
}

function criteriaFailure(what: 'context' | 'component', name: string, owner: string, e: LangError): ClaimFailure {
  const subject = what === 'context' ? `context '${name}' of service '${owner}'` : `criteria of component '${name}' in bundle '${owner}'`;
  return new ClaimFailure(`unable to test ${subject}: ${e.message}`);
}

function explain(criteria: Criteria | null | undefined, params: Record<string, unknown>, index: PolicyIndex, budget: { deadline: Deadline } | undefined): string {
  const m = evalCriteria(criteria, params, index.exprCache, budget);
  return m.ok ? m.value.reason : m.error.message;
}

function describe(e: LangError): string {
  return e.message;
}


/** The readable part of an instance key (service#context…). */
const shortKey = instanceKey.levelName;

function sameCode(a: InstanceCode, b: InstanceCode): boolean {
  return a.type === b.type && paramsEqual(a.params, b.params);
}

