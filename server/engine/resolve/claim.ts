/**
 * Resolving one claim: the walk Aptomi's resolver does (reference
 * aptomi.md §3), in its order, producing the claim's instance contributions
 * and a decision trace. A claim that fails contributes nothing. What each
 * level does besides walking (rules, labels, target, templates, criteria,
 * the trace) is in ./claim-steps.ts; the walk's types in ./claim-types.ts.
 *
 * Per service level ("node"):
 *   service lookup (+ consume ACL) → service change-labels → first matching
 *   context → bundle (same namespace) → context change-labels → allocation
 *   keys → rules (service namespace, then system) → target → bundle key
 *   (cycle check) → components in dependency order (criteria, discovery,
 *   code params, or a child node for a service component).
 */
import { canConsume } from '../acl';
import { coerceLabelSet } from '../lang';
import { pastDeadline } from '../host-clock';
import type { Bundle, Service } from '../model/kinds';
import { objectRef, type Diagnostic } from '../diagnostics';
import { instanceKey } from '../state/key';
import { paramsEqual, qualifiedReference } from '../values';
import type { ClaimRef, PolicyIndex } from './policy';
import type { InstanceNames } from './level';
import {
  ClaimFailure,
  MAX_LEVELS_PER_CLAIM,
  MAX_SERVICE_DEPTH,
  MAX_TRACE_STEPS,
  type ClaimResult,
  type Contribution,
  type Frame,
  type LevelDecision,
  type MemoResult,
  type Node,
} from './claim-types';
import { ClaimSteps, copyObject, EMPTY } from './claim-steps';
export { sortComponents } from './policy';
import type { ClaimOutcome, ClaimStatus, InstanceCode, Target } from '../state/types';

/** An empty map no one writes to: `record` replaces it before the first write. */
const NO_CONTRIBUTIONS: Map<string, Contribution> = new Map();
const EMPTY_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>;


export function claimKey(c: { namespace: string; name: string }): string {
  return `${c.namespace}/${c.name}`;
}

export function resolveClaim(index: PolicyIndex, claim: ClaimRef, opts: { trace?: boolean } = {}): ClaimResult {
  return new ClaimWalk(index, claim, opts.trace !== false).run();
}

class ClaimWalk extends ClaimSteps {
  private levels = 0;
  /** NO_CONTRIBUTIONS until the first is recorded: most claims only replay a memo's map. */
  private contributions: Map<string, Contribution> = NO_CONTRIBUTIONS;
  /** The memoised walk this claim replayed at its root, when that was all it did. */
  private wholeReplay: MemoResult | null = null;
  private readonly memo: boolean;

  constructor(index: PolicyIndex, claim: ClaimRef, tracing: boolean) {
    super(index, claim, tracing, claimKey(claim));
    // Traces must show every decision, so a traced walk never replays.
    this.memo = !tracing && index.memoEnabled;
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
}

function pushUnique<T>(list: T[], v: T) {
  if (!list.includes(v)) list.push(v);
}

/** The readable part of an instance key (service#context…). */
const shortKey = instanceKey.levelName;

function sameCode(a: InstanceCode, b: InstanceCode): boolean {
  return a.type === b.type && paramsEqual(a.params, b.params);
}

