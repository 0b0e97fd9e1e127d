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
  coerceLabelSet,
  compileTemplateCached,
  deployName,
  evalCriteria,
  instanceId,
  renderParamTree,
  renderTemplate,
  type LangError,
} from '../lang';
import type { Bundle, Component, LabelOperations } from '../model/kinds';
import { SYSTEM_NAMESPACE } from '../model/kinds';
import type { PolicyUser } from '../model/users';
import type { ClaimRef, PolicyIndex } from './policy';
import type { ClaimOutcome, ClaimStatus, InstanceCode, Target, TraceStep } from './types';

/** Deeper service chains are treated as cycles whose keys change each round. */
export const MAX_SERVICE_DEPTH = 32;

/** What one claim says about one instance. */
export interface Contribution {
  key: string;
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
}

export interface ClaimResult {
  key: string;
  outcome: ClaimOutcome;
  contributions: Map<string, Contribution>;
}

class ClaimFailure extends Error {
  constructor(
    message: string,
    readonly status: Exclude<ClaimStatus, 'resolved'> = 'error',
  ) {
    super(message);
  }
}

interface Node {
  depth: number;
  /** Namespace the service reference is relative to. */
  namespace: string;
  serviceRef: string;
  labels: Record<string, string>;
  /** Where this level's components announce discovery values. */
  discovery: Record<string, unknown>;
  /** The service-component instance we arrived through (none at depth 0). */
  arrivalKey?: string;
  /** Bundle keys on the way here, for cycle detection. */
  path: string[];
}

export function claimKey(c: { namespace: string; name: string }): string {
  return `${c.namespace}/${c.name}`;
}

export function resolveClaim(index: PolicyIndex, claim: ClaimRef, opts: { trace?: boolean } = {}): ClaimResult {
  return new ClaimWalk(index, claim, opts.trace !== false).run();
}

class ClaimWalk {
  private readonly trace: TraceStep[] = [];
  private readonly contributions = new Map<string, Contribution>();
  private readonly key: string;
  private user!: PolicyUser;
  /** Aptomi's `Claim.ID`: namespace/claim/name. */
  private readonly claimId: string;

  constructor(
    private readonly index: PolicyIndex,
    private readonly claim: ClaimRef,
    private readonly tracing: boolean,
  ) {
    this.key = claimKey(claim);
    this.claimId = `${claim.namespace}/claim/${claim.name}`;
  }

  private step(depth: number, kind: TraceStep['kind'], message: string, data?: Record<string, unknown>) {
    if (this.tracing) this.trace.push(data ? { depth, kind, message, data } : { depth, kind, message });
  }

  run(): ClaimResult {
    const { claim } = this;
    let status: ClaimStatus = 'resolved';
    const errors: string[] = [];
    let rootKey: string | undefined;
    this.step(0, 'claim', `claim ${this.key}: user ${claim.spec.user} wants service ${claim.spec.service}`);
    try {
      const user = this.index.user(claim.spec.user);
      if (!user) throw new ClaimFailure(`claim '${this.key}' refers to non-existing user '${claim.spec.user}'`);
      this.user = user;
      // User labels overwrite claim labels (Aptomi: claim first, then user).
      const labels = { ...(claim.spec.labels ?? {}), ...user.labels };
      this.step(0, 'user', `user ${user.name} found; starting with ${Object.keys(labels).length} labels (user labels override claim labels)`, {
        labels: { ...labels },
      });
      rootKey = this.resolveNode({ depth: 0, namespace: claim.namespace, serviceRef: claim.spec.service, labels, discovery: {}, path: [] });
      this.step(0, 'instance', `claim resolved: ${this.contributions.size} instances`, { instance: rootKey });
    } catch (e) {
      if (!(e instanceof ClaimFailure)) throw e;
      status = e.status;
      errors.push(e.message);
      this.step(0, e.status === 'rejected' ? 'reject' : 'error', e.message);
      this.contributions.clear();
    }
    const outcome: ClaimOutcome = {
      namespace: claim.namespace,
      name: claim.name,
      user: claim.spec.user,
      service: claim.spec.service,
      status,
      errors,
      instances: [...this.contributions.keys()].sort(),
      trace: this.trace,
    };
    if (status === 'resolved' && rootKey) outcome.instance = rootKey;
    return { key: this.key, outcome, contributions: this.contributions };
  }

  /** Resolves one service level; returns the bundle instance key. */
  private resolveNode(node: Node): string {
    const { index } = this;
    const d = node.depth;
    if (d > MAX_SERVICE_DEPTH) {
      throw new ClaimFailure(`service chain deeper than ${MAX_SERVICE_DEPTH} levels at '${node.serviceRef}' (a cycle whose allocation keys change?)`);
    }
    const svc = index.service(node.serviceRef, node.namespace);
    if (!svc) throw new ClaimFailure(`service '${qualified(node.serviceRef, node.namespace)}' does not exist (claim '${this.key}', depth ${d})`);
    const svcName = `${svc.namespace}/${svc.name}`;
    this.step(d, 'service', `service ${svcName}`);

    if (index.enforceConsumeAcl) {
      const roles = index.roles(this.user);
      if (!canConsume(roles, svc.namespace)) {
        throw new ClaimFailure(
          `user '${this.user.name}' may not consume service '${svcName}': consuming needs a service-consumer, namespace-admin or domain-admin role in namespace '${svc.namespace}'`,
          'rejected',
        );
      }
      this.step(d, 'acl', `user ${this.user.name} may consume services in namespace ${svc.namespace}`);
    }

    const labels = node.labels;
    this.applyLabelOps(labels, svc.spec['change-labels'], d, `service ${svcName}`);

    // First matching context, in declared order.
    const params = coerceLabelSet(labels);
    let context: NonNullable<typeof svc.spec.contexts>[number] | undefined;
    for (const ctx of svc.spec.contexts ?? []) {
      const m = evalCriteria(ctx.criteria, params, index.exprCache);
      if (!m.ok) throw new ClaimFailure(`unable to test context '${ctx.name}' of service '${svcName}': ${m.error.message}`);
      this.step(d, 'context', `context ${ctx.name}: ${m.value.matched ? 'matched' : 'did not match'} (${m.value.reason})`, {
        context: ctx.name,
        matched: m.value.matched,
      });
      if (m.value.matched) {
        context = ctx;
        break;
      }
    }
    if (!context) throw new ClaimFailure(`unable to find matching context within service '${svcName}'`);

    const bundle = index.bundle(context.allocation.bundle, svc.namespace);
    if (!bundle) throw new ClaimFailure(`bundle '${qualified(context.allocation.bundle, svc.namespace)}' of context '${context.name}' in service '${svcName}' does not exist`);
    if (bundle.namespace !== svc.namespace) {
      throw new ClaimFailure(`bundle '${bundle.namespace}/${bundle.name}' must be in the namespace of service '${svcName}'`);
    }
    this.step(d, 'bundle', `bundle ${bundle.namespace}/${bundle.name}`);
    this.applyLabelOps(labels, context['change-labels'], d, `context ${context.name}`);

    // Allocation keys see the labels before rules run (as in Aptomi).
    const keys: string[] = [];
    const keyData = { User: this.userView(), Claim: this.claimView(), Labels: labels };
    for (const src of context.allocation.keys ?? []) {
      keys.push(this.render(src, keyData, `allocation key of context '${context.name}' in service '${svcName}'`));
    }
    if (keys.length > 0) this.step(d, 'keys', `allocation keys: ${keys.join(', ')}`, { keys });

    this.processRules(labels, svc.namespace, bundle, d, svc.name);

    const target = this.target(labels, svc.namespace);
    this.step(d, 'target', `target: cluster ${target.clusterNamespace}/${target.cluster}, namespace ${target.namespace}`, { ...target });

    const prefix = `${target.clusterNamespace}#${target.cluster}#${target.namespace}#${svc.namespace}#${svc.name}#${context.name}${keys.map((k) => `#${k}`).join('')}#`;
    const bundleKey = prefix + 'root';
    if (node.path.includes(bundleKey)) {
      throw new ClaimFailure(`bundle cycle detected: ${[...node.path, bundleKey].map(shortKey).join(' → ')}`);
    }
    const path = [...node.path, bundleKey];

    const base = {
      namespace: svc.namespace,
      service: svc.name,
      context: context.name,
      allocationKeys: keys,
      bundle: bundle.name,
      target,
      labels: { ...labels },
      depth: d,
    };
    this.record({ ...base, key: bundleKey, component: 'root', code: null, discovery: {}, edges: [], after: [] });
    if (node.arrivalKey) pushUnique(this.contributions.get(node.arrivalKey)!.edges, bundleKey);
    this.step(d, 'instance', `bundle instance ${bundleKey}`, { key: bundleKey });

    const bundleInstance = deployName(bundleKey);
    const bundleId = instanceId(bundleKey);
    const compKeys = new Map<string, string>();
    // Component criteria see the labels after rules ran.
    let compParams: Record<string, unknown> | undefined;
    for (const comp of sortComponents(bundle.spec)) {
      if (comp.criteria) {
        compParams ??= coerceLabelSet(labels);
        const m = evalCriteria(comp.criteria, compParams, index.exprCache);
        if (!m.ok) throw new ClaimFailure(`unable to test criteria of component '${comp.name}' in bundle '${bundle.namespace}/${bundle.name}': ${m.error.message}`);
        if (!m.value.matched) {
          this.step(d, 'component', `component ${comp.name} skipped (${m.value.reason})`, { component: comp.name, included: false });
          continue;
        }
      }
      const key = prefix + comp.name;
      compKeys.set(comp.name, key);
      const own = deployName(key);
      const discoveryData = {
        User: this.userView(),
        Labels: labels,
        Target: { Namespace: target.namespace, Cluster: target.cluster },
        Discovery: {
          ...node.discovery,
          instance: own,
          Instance: own,
          instanceid: instanceId(key),
          instanceId: instanceId(key),
          InstanceId: instanceId(key),
          Bundle: { Instance: bundleInstance, instance: bundleInstance, InstanceId: bundleId, instanceId: bundleId, instanceid: bundleId },
          bundle: { Instance: bundleInstance, instance: bundleInstance, InstanceId: bundleId, instanceId: bundleId, instanceid: bundleId },
        },
      };
      const discovery = this.renderTree(comp.discovery, discoveryData, `discovery of component '${comp.name}' in bundle '${bundle.namespace}/${bundle.name}'`);
      // The component announces itself (and its discovery values) to the components after it.
      const announced: Record<string, unknown> = { instance: own, ...discovery };
      node.discovery[comp.name] = announced;

      let code: InstanceCode | null = null;
      if (comp.code) {
        const params = this.renderTree(comp.code.params, discoveryData, `code parameters of component '${comp.name}' in bundle '${bundle.namespace}/${bundle.name}'`);
        code = { type: comp.code.type, params };
      }
      const after = (comp.dependencies ?? []).map((dep) => compKeys.get(dep)).filter((k): k is string => k !== undefined);
      this.record({ ...base, key, component: comp.name, code, discovery, edges: [], after });
      pushUnique(this.contributions.get(bundleKey)!.edges, key);
      this.step(d, 'component', `component ${comp.name}${comp.service ? ` → service ${comp.service}` : ''}`, { component: comp.name, included: true, key });

      if (comp.service) {
        this.resolveNode({
          depth: d + 1,
          namespace: svc.namespace,
          serviceRef: comp.service,
          labels: { ...labels },
          discovery: announced,
          arrivalKey: key,
          path,
        });
      }
    }
    return bundleKey;
  }

  /** Record (or merge, when a claim reaches one instance twice) a contribution. */
  private record(c: Contribution) {
    const prev = this.contributions.get(c.key);
    if (!prev) {
      this.contributions.set(c.key, c);
      return;
    }
    if (!jsonEqual(prev.code?.params, c.code?.params)) throw new ClaimFailure(`conflicting code parameters for instance '${c.key}' within claim '${this.key}'`);
    if (!jsonEqual(prev.discovery, c.discovery)) throw new ClaimFailure(`conflicting discovery parameters for instance '${c.key}' within claim '${this.key}'`);
    prev.depth = Math.min(prev.depth, c.depth);
    for (const a of c.after) pushUnique(prev.after, a);
  }

  private processRules(labels: Record<string, string>, namespace: string, bundle: { namespace: string; name: string; spec: Bundle }, d: number, service: string) {
    const { index } = this;
    const bundleView = { Namespace: bundle.namespace, Name: bundle.name, Labels: bundle.spec.labels ?? {}, Kind: 'bundle' };
    const claimView = this.claimView();
    const namespaces = namespace === SYSTEM_NAMESPACE ? [namespace] : [namespace, SYSTEM_NAMESPACE];
    for (const ns of namespaces) {
      const rules = index.rulesIn(ns);
      if (rules.length === 0) continue;
      // Aptomi builds the expression parameters once per namespace pass: a
      // label changed by one rule is seen by the next namespace's rules only.
      const params: Record<string, unknown> = { ...coerceLabelSet(labels), Bundle: bundleView, Claim: claimView };
      let matchedCount = 0;
      for (const rule of rules) {
        const m = evalCriteria(rule.spec.criteria, params, index.exprCache);
        if (!m.ok) throw new ClaimFailure(`error while processing rule '${rule.namespace}/${rule.name}': ${m.error.message}`);
        if (!m.value.matched) continue;
        matchedCount++;
        const actions = rule.spec.actions;
        const changed = this.applyLabelOps(labels, actions['change-labels'], d, null);
        this.step(d, 'rule', `rule ${rule.namespace}/${rule.name} (weight ${rule.spec.weight}) matched: ${m.value.reason}${changed ? `; ${changed}` : ''}`, {
          rule: `${rule.namespace}/${rule.name}`,
          weight: rule.spec.weight,
          ...(actions.claim ? { claim: actions.claim } : {}),
          ...(actions.ingress ? { ingress: actions.ingress } : {}),
        });
        if (actions.claim === 'reject') {
          throw new ClaimFailure(
            `rules do not allow claim '${this.key}' ('${this.claim.spec.user}' -> '${service}'): processing '${service}', tree depth ${d} (rule '${rule.namespace}/${rule.name}')`,
            'rejected',
          );
        }
      }
      this.step(d, 'rule', `${rules.length} rule${rules.length === 1 ? '' : 's'} in namespace ${ns} checked, ${matchedCount} matched`, { namespace: ns });
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

  /** Set then remove; returns a description of what changed (empty when nothing did). */
  private applyLabelOps(labels: Record<string, string>, ops: LabelOperations | null | undefined, d: number, source: string | null): string {
    if (!ops) return '';
    const changes: string[] = [];
    for (const [k, v] of Object.entries(ops.set ?? {})) {
      if (labels[k] !== v) changes.push(`${k}=${v}`);
      labels[k] = v;
    }
    for (const k of Object.keys(ops.remove ?? {})) {
      if (k in labels) changes.push(`-${k}`);
      delete labels[k];
    }
    const text = changes.length ? `labels ${changes.join(', ')}` : '';
    if (source && text) this.step(d, 'labels', `${source} changed ${text}`, { changes });
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

  private render(src: string, data: unknown, what: string): string {
    const t = compileTemplateCached(src, this.index.templateCache);
    const r = t.ok ? renderTemplate(t.value, data) : t;
    if (!r.ok) throw new ClaimFailure(`${what}: ${describe(r.error)}`);
    return r.value;
  }

  private renderTree(tree: Record<string, unknown> | null | undefined, data: unknown, what: string): Record<string, unknown> {
    if (!tree) return {};
    const r = renderParamTree(tree, data, this.index.templateCache);
    if (!r.ok) throw new ClaimFailure(`${what}: ${describe(r.error)}`);
    return r.value as Record<string, unknown>;
  }
}

function pushUnique<T>(list: T[], v: T) {
  if (!list.includes(v)) list.push(v);
}

function describe(e: LangError): string {
  return e.message;
}

function qualified(ref: string, namespace: string): string {
  return ref.includes('/') ? ref : `${namespace}/${ref}`;
}

/** The readable part of an instance key (service#context…). */
function shortKey(key: string): string {
  return key.split('#').slice(3, -1).join('#');
}

/**
 * Components with their dependencies first, otherwise in declared order
 * (Aptomi's topological sort: depth-first, post-order). Validation already
 * refused unknown dependencies and cycles.
 */
export function sortComponents(bundle: Bundle): Component[] {
  const comps = bundle.components ?? [];
  const byName = new Map(comps.map((c) => [c.name, c]));
  const done = new Set<string>();
  const out: Component[] = [];
  const visit = (c: Component, depth: number) => {
    if (done.has(c.name) || depth > comps.length) return;
    done.add(c.name);
    for (const dep of c.dependencies ?? []) {
      const dc = byName.get(dep);
      if (dc) visit(dc, depth + 1);
    }
    out.push(c);
  };
  for (const c of comps) visit(c, 0);
  return out;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return (a ?? null) === (b ?? null) || (isEmpty(a) && isEmpty(b));
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) if (!(k in bo) || !jsonEqual(ao[k], bo[k])) return false;
  return true;
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'object' && Object.keys(v as object).length === 0);
}
