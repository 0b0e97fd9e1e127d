/**
 * A policy snapshot indexed for resolution: objects by namespace and name,
 * rules sorted, users by lower-case name, and shared caches of compiled
 * expressions and templates. Built once per policy generation and reused for
 * every claim (and across incremental re-resolutions).
 */
import { computeRoles, type AclRuleRef, type RoleGrant, type UserRoles } from '../acl';
import { compileParamTree, type CompiledExpr, type CompiledTemplate, type ParamPlan, type Result } from '../lang';
import type { AclRule, Bundle, Claim, Cluster, Component, Kind, ObjectOfKind, Rule, Service } from '../model/kinds';
import type { LevelDecision, MemoResult } from './claim-types';
import { Level, memoSubKey } from './level';
import { compileTemplateCached } from '../lang/gotemplate';
import { templateMayReadSecrets, templateReadsRoot } from '../lang/gotemplate/reads';
import { SYSTEM_NAMESPACE } from '../model/kinds';
import { USER_SECRETS_AUDIENCE, type PolicyUser } from '../model/users';
import { credentialsOf } from '../model/credentials';
import { strictestAudience, type SecretAudience } from '../state/types';
import { CAPACT_INPUT_KINDS } from '../capact/input';
import { CapactChooser, type EffectiveComponent } from './capact';

export interface PolicyObjectInput<K extends Kind = Kind> {
  kind: K;
  namespace: string;
  name: string;
  spec: ObjectOfKind[K];
}

export interface PolicyInput {
  objects: readonly PolicyObjectInput[];
  users: readonly PolicyUser[];
  /** Users who are always domain admins (Aptomi's domainAdminOverrides). */
  domainAdmins?: readonly string[];
  /**
   * Check consume rights on every service a claim reaches. Default: only when
   * the policy holds `aclrule` objects, so offline fragments without ACL
   * rules resolve for every user.
   */
  enforceConsumeAcl?: boolean;
  /** Role grants that do not come from ACL rules (tenant membership), by lower-case user name. */
  extraGrants?: ReadonlyMap<string, readonly RoleGrant[]>;
  /**
   * The claims resolved in the deployed generation: claim key (`ns/name`) →
   * its spec as deployed, as JSON. Where claims conflict on a shared
   * instance, those still as deployed keep it and the others fail
   * (stability first) — a deployed claim changed since is new again; without
   * any, every claim on it fails, as in Aptomi.
   */
  deployedClaims?: ReadonlyMap<string, string>;
  /**
   * Reuse the walk of a level for claims arriving with the same inputs
   * (default true). Off only to check that reuse changes nothing.
   */
  memo?: boolean;
}

export interface RuleRef {
  namespace: string;
  name: string;
  spec: Rule;
}

export interface ClaimRef {
  namespace: string;
  name: string;
  spec: Claim;
}

type ByName<T> = Map<string, T>;

export class PolicyIndex {
  readonly services = new Map<string, ByName<Service>>();
  readonly bundles = new Map<string, ByName<Bundle>>();
  readonly clusters = new Map<string, ByName<Cluster>>();
  /** Claims by `ns/name`. */
  readonly claims = new Map<string, ClaimRef>();
  /** Rules per namespace, by weight then name. */
  readonly rules = new Map<string, RuleRef[]>();
  readonly aclRules: AclRuleRef[] = [];
  readonly users = new Map<string, PolicyUser>();
  readonly enforceConsumeAcl: boolean;
  private readonly extraGrants: ReadonlyMap<string, readonly RoleGrant[]>;
  readonly memoEnabled: boolean;
  readonly domainAdmins: readonly string[];
  readonly exprCache = new Map<string, Result<CompiledExpr>>();
  readonly templateCache = new Map<string, Result<CompiledTemplate>>();
  private readonly rolesCache = new Map<string, UserRoles>();
  private readonly plans = new WeakMap<object, Result<ParamPlan>>();
  private readonly levels = new Map<string, Level>();
  /** Capact's objects (the Hub and the Global policy), for components that name an Interface. */
  private readonly capactObjects: { kind: string; spec: unknown; name: string; namespace: string }[] = [];
  private capact: CapactChooser | undefined;

  constructor(input: PolicyInput) {
    for (const o of input.objects) {
      if (CAPACT_INPUT_KINDS.has(o.kind)) this.capactObjects.push(o);
      switch (o.kind) {
        case 'service':
          put(this.services, o.namespace, o.name, o.spec as Service);
          break;
        case 'bundle':
          put(this.bundles, o.namespace, o.name, o.spec as Bundle);
          break;
        case 'cluster':
          put(this.clusters, o.namespace, o.name, o.spec as Cluster);
          break;
        case 'claim':
          this.claims.set(`${o.namespace}/${o.name}`, { namespace: o.namespace, name: o.name, spec: o.spec as Claim });
          break;
        case 'rule': {
          const list = this.rules.get(o.namespace) ?? [];
          list.push({ namespace: o.namespace, name: o.name, spec: o.spec as Rule });
          this.rules.set(o.namespace, list);
          break;
        }
        case 'aclrule':
          this.aclRules.push({ name: o.name, spec: o.spec as AclRule });
          break;
      }
    }
    // Aptomi sorted rules by weight only, so equal weights ran in random
    // order; Keelson breaks ties by name so results are reproducible.
    for (const list of this.rules.values()) list.sort((a, b) => a.spec.weight - b.spec.weight || a.name.localeCompare(b.name));
    for (const u of input.users) this.users.set(u.name.toLowerCase(), u);
    this.domainAdmins = input.domainAdmins ?? [];
    this.extraGrants = input.extraGrants ?? new Map();
    this.enforceConsumeAcl = input.enforceConsumeAcl ?? (this.aclRules.length > 0 || this.extraGrants.size > 0);
    this.memoEnabled = input.memo !== false;
  }

  user(name: string): PolicyUser | undefined {
    return this.users.get(name.toLowerCase());
  }

  /** `name` or `ns/name`, relative to `namespace`. */
  static splitRef(ref: string, namespace: string): [string, string] {
    const i = ref.indexOf('/');
    return i < 0 ? [namespace, ref] : [ref.slice(0, i), ref.slice(i + 1)];
  }

  /** Resolved service references, by the namespace they are relative to, then the reference. */
  private readonly serviceRefs = new Map<string, Map<string, ServiceRef | null>>();

  /** The service `ref` names from `namespace`; one object per service, so its `key` is hashed once. */
  service(ref: string, namespace: string): ServiceRef | undefined {
    let byRef = this.serviceRefs.get(namespace);
    if (!byRef) this.serviceRefs.set(namespace, (byRef = new Map()));
    let r = byRef.get(ref);
    if (r === undefined) {
      const [ns, name] = PolicyIndex.splitRef(ref, namespace);
      const spec = this.services.get(ns)?.get(name);
      r = spec ? { namespace: ns, name, spec, key: `${ns}/${name}` } : null;
      byRef.set(ref, r);
    }
    return r ?? undefined;
  }

  bundle(ref: string, namespace: string): { namespace: string; name: string; spec: Bundle } | undefined {
    const [ns, name] = PolicyIndex.splitRef(ref, namespace);
    const spec = this.bundles.get(ns)?.get(name);
    return spec && { namespace: ns, name, spec };
  }

  /** Aptomi's lookup: the given namespace, else the current one, then `system`. */
  cluster(ref: string, namespace: string): { namespace: string; name: string; spec: Cluster } | undefined {
    const i = ref.indexOf('/');
    const candidates = i >= 0 ? [ref.slice(0, i)] : [namespace, SYSTEM_NAMESPACE];
    const name = i >= 0 ? ref.slice(i + 1) : ref;
    for (const ns of candidates) {
      const spec = this.clusters.get(ns)?.get(name);
      if (spec) return { namespace: ns, name, spec };
    }
    return undefined;
  }

  rulesIn(namespace: string): readonly RuleRef[] {
    return this.rules.get(namespace) ?? [];
  }

  /** Compiled parameter tree (code params, discovery), cached per tree object. */
  plan(tree: Record<string, unknown>): Result<ParamPlan> {
    let p = this.plans.get(tree);
    if (!p) {
      p = compileParamTree(tree, this.templateCache);
      this.plans.set(tree, p);
    }
    return p;
  }

  /**
   * Instance keys and names of one bundle instance level, by key prefix
   * (`clusterNs#cluster#k8sNs#serviceNs#service#context[#keys]#`). Claims
   * reach the same levels over and over; hashing a key string is costly, so
   * it is done once per level and component, not once per claim.
   */
  level(prefix: string): Level {
    let l = this.levels.get(prefix);
    if (!l) {
      l = new Level(prefix);
      this.levels.set(prefix, l);
    }
    return l;
  }

  // ---- memoisation of level walks (see ClaimWalk.resolveNode) ----

  private readonly objectIds = new WeakMap<object, number>();
  private nextObjectId = 1;
  private readonly readsCache = new Map<string, Map<string, boolean>>();
  private readonly ruleClaimReads = new Map<string, boolean>();
  private readonly componentUserReads = new WeakMap<object, boolean>();
  private readonly discoveryReads = new WeakMap<object, boolean>();
  private readonly componentAudiences = new WeakMap<object, SecretAudience | null>();
  private readonly sortedComponents = new WeakMap<object, EffectiveComponent[]>();

  /** A number per object identity (interned discovery values). */
  objectId(o: object): number {
    let id = this.objectIds.get(o);
    if (id === undefined) {
      id = this.nextObjectId++;
      this.objectIds.set(o, id);
    }
    return id;
  }

  /**
   * Could this template read `.User` (`.Claim`, `.Discovery`)? Decided on
   * its parse tree, so `{{ . }}` and `{{ print $ }}` count as reads of every
   * root field (a search of the text missed them, and a memoised walk then
   * replayed one user's rendering for another). A template that does not
   * compile counts (it fails its claim anyway).
   */
  templateReads(src: string, root: 'User' | 'Claim' | 'Discovery' | 'Capact'): boolean {
    if (!src.includes('{{')) return false;
    // By root, then by the template's own string (whose hash V8 keeps).
    let byRoot = this.readsCache.get(root);
    if (!byRoot) this.readsCache.set(root, (byRoot = new Map()));
    let r = byRoot.get(src);
    if (r === undefined) {
      const t = compileTemplateCached(src, this.templateCache);
      r = !t.ok || templateReadsRoot(t.value, root);
      byRoot.set(src, r);
    }
    return r;
  }

  /**
   * Could any template of this bundle's components read `.Discovery`? If
   * not, a walk of its level does not depend on what arrived in discovery,
   * so claims arriving from other parents replay it.
   */
  bundleReadsDiscovery(bundle: Bundle): boolean {
    let r = this.discoveryReads.get(bundle);
    if (r === undefined) {
      const reads = (s: string) => this.templateReads(s, 'Discovery');
      r = this.componentsOf(bundle).some((c) => treeReads(c.code?.params, reads) || treeReads(c.discovery, reads));
      this.discoveryReads.set(bundle, r);
    }
    return r;
  }

  /** Do the rules of `namespace` mention the claim (`Claim.…` / `claim.…`)? */
  rulesReadClaim(namespace: string): boolean {
    let r = this.ruleClaimReads.get(namespace);
    if (r === undefined) {
      r = this.rulesIn(namespace).some((rule) =>
        ['require-all', 'require-any', 'require-none'].some((sec) =>
          (rule.spec.criteria?.[sec as 'require-all'] ?? []).some((e) => /claim/i.test(e)),
        ),
      );
      this.ruleClaimReads.set(namespace, r);
    }
    return r;
  }

  /** Do this component's templates (code params, discovery) possibly read the user? */
  componentReadsUser(c: Component): boolean {
    let r = this.componentUserReads.get(c);
    if (r === undefined) {
      r = treeReads(c.code?.params, (s) => this.templateReads(s, 'User')) || treeReads(c.discovery, (s) => this.templateReads(s, 'User'));
      this.componentUserReads.set(c, r);
    }
    return r;
  }

  /**
   * Who may see what this component renders, by what its templates could
   * read (undefined: nothing secret). Injected Hub TypeInstances are the
   * platform's credentials: domain admins only, whatever reads them. A
   * user's secrets: that namespace's admins. Reading `.Discovery` inherits
   * what discovery may carry (`discoveryAudience`). Decided on the
   * templates' parse trees; a template that does not compile counts (it
   * fails its claim anyway).
   */
  componentAudience(c: EffectiveComponent): SecretAudience | undefined {
    let r = this.componentAudiences.get(c);
    if (r === undefined) {
      const reads = (test: (s: string) => boolean) => treeReads(c.code?.params, test) || treeReads(c.discovery, test);
      const discovery = this.discoveryAudience();
      const user = reads((s) => this.templateMayReadSecrets(s, false)) ? USER_SECRETS_AUDIENCE : undefined;
      const hub = c.injected && Object.keys(c.injected.TypeInstances).length > 0 ? TYPE_INSTANCE_AUDIENCE : undefined;
      const passedOn = discovery !== undefined && reads((s) => this.templateReads(s, 'Discovery')) ? discovery : undefined;
      r = strictestAudience(strictestAudience(user, hub), passedOn) ?? null;
      this.componentAudiences.set(c, r);
    }
    return r ?? undefined;
  }

  private discoveryAudienceMemo: SecretAudience | null | undefined;
  /**
   * What discovery values may carry, policy-wide (discovery flows between
   * components and services): Hub credentials when a component an
   * Interface serves announces values its templates could render from
   * `.Capact` (domain admins); else user secrets when any discovery
   * template could read them (namespace admins).
   */
  discoveryAudience(): SecretAudience | undefined {
    if (this.discoveryAudienceMemo === undefined) {
      let hub = false;
      outer: for (const byName of this.bundles.values()) {
        for (const b of byName.values()) {
          for (const comp of b.components ?? []) {
            if (comp.interface && treeReads(comp.discovery, (s) => this.templateReads(s, 'Capact'))) {
              hub = true;
              break outer;
            }
          }
        }
      }
      this.discoveryAudienceMemo = hub ? TYPE_INSTANCE_AUDIENCE : this.discoveryMayHoldSecrets() ? USER_SECRETS_AUDIENCE : null;
    }
    return this.discoveryAudienceMemo ?? undefined;
  }

  /** Could a template read secrets (given whether discovery values may carry them)? */
  templateMayReadSecrets(src: string, discoveryTainted = this.discoveryMayHoldSecrets()): boolean {
    if (!src.includes('{{')) return false;
    const t = compileTemplateCached(src, this.templateCache);
    return !t.ok || templateMayReadSecrets(t.value, { discoveryTainted });
  }

  private discoveryTaint: boolean | undefined;
  /**
   * Does any component announce discovery values rendered from secrets?
   * Then every template reading `.Discovery` is treated as reading secrets
   * (discovery flows between components and services).
   */
  discoveryMayHoldSecrets(): boolean {
    if (this.discoveryTaint === undefined) {
      this.discoveryTaint = false;
      outer: for (const byName of this.bundles.values()) {
        for (const b of byName.values()) {
          for (const comp of b.components ?? []) {
            if (treeReads(comp.discovery, (s) => this.templateMayReadSecrets(s, false))) {
              this.discoveryTaint = true;
              break outer;
            }
          }
        }
      }
    }
    return this.discoveryTaint;
  }

  /** Components of a bundle, dependencies first (cached per bundle). */
  componentsOf(bundle: Bundle): EffectiveComponent[] {
    let list = this.sortedComponents.get(bundle);
    if (!list) {
      // A component naming a Capact Interface takes its code from the chosen Implementation; from here on it is a code component.
      list = sortComponents(bundle).map((c) => (c.interface ? this.viaInterface(c, c.interface) : c));
      this.sortedComponents.set(bundle, list);
      if (list.some((c) => c.interfaceTimedOut)) this.timedOutBundles.add(bundle);
    }
    return list;
  }

  /** Bundles whose components hold an Interface choice that ran out of its time (see `forgetTimedOut`). */
  private readonly timedOutBundles = new Set<Bundle>();

  /**
   * Forget the Interface choices that ran out of their time, and what was
   * built from them, so that the claims resolved next choose again: time
   * is no property of the policy. Claims of one resolution share a choice;
   * the session calls this as it moves on to the next.
   */
  forgetTimedOut(): void {
    if (!this.capact?.forgetTimedOut()) return;
    for (const b of this.timedOutBundles) {
      this.sortedComponents.delete(b);
      this.discoveryReads.delete(b);
    }
    this.timedOutBundles.clear();
  }

  private viaInterface(c: Component, ref: string): EffectiveComponent {
    this.capact ??= new CapactChooser(this.capactObjects);
    const choice = this.capact.choose(ref);
    if (!choice.ok) return { ...c, interface: ref, interfaceError: choice.error, ...(choice.timedOut ? { interfaceTimedOut: true } : {}) };
    return { ...c, code: choice.code, interface: ref, implementation: choice.implementation, injected: choice.injected };
  }

  /** Level decisions by service (`ns/name`), then the two parts of the arriving labels' key. */
  private readonly decisions = new Map<string, Map<string, Map<string, LevelDecision>>>();
  private readonly labelKeys = new WeakMap<object, string>();
  /** Label-set content (JSON) → its short key. */
  private readonly labelSetIds = new Map<string, string>();

  /**
   * A label set's content as a short key: equal content (insertion order
   * included, so equal sets built in another order only miss) gets the same
   * key. Cached per object, so callers pass only label sets that are never
   * changed afterwards (users', a level's final labels). 100,000 users with
   * the same labels then hold one key, not 100,000 copies of their JSON.
   */
  labelsKey(labels: Readonly<Record<string, string>>): string {
    let k = this.labelKeys.get(labels);
    if (k === undefined) {
      const json = JSON.stringify(labels);
      k = this.labelSetIds.get(json);
      if (k === undefined) {
        k = `#${this.labelSetIds.size}`;
        this.labelSetIds.set(json, k);
      }
      this.labelKeys.set(labels, k);
    }
    return k;
  }

  decisionLookup(service: string, labels: readonly [string, string]): LevelDecision | undefined {
    return this.decisions.get(service)?.get(labels[0])?.get(labels[1]);
  }

  decisionStore(service: string, labels: readonly [string, string], decision: LevelDecision): void {
    let bySvc = this.decisions.get(service);
    if (!bySvc) this.decisions.set(service, (bySvc = new Map()));
    let byFirst = bySvc.get(labels[0]);
    if (!byFirst) bySvc.set(labels[0], (byFirst = new Map()));
    byFirst.set(labels[1], decision);
  }

  /**
   * Memoised walks are kept on their level, by the identity of its interned
   * labels, then by what arrived in discovery (`sig`): no lookup hashes a
   * long key.
   */
  memoLookup(level: Level, labels: object, sig: string, user: string, claim: string): { result: MemoResult; user: boolean; claim: boolean } | undefined {
    const e = level.walks.get(labels)?.get(sig);
    if (!e) return undefined;
    const result = e.results.get(memoSubKey(e, user, claim));
    return result && { result, user: e.user, claim: e.claim };
  }

  memoStore(level: Level, labels: object, sig: string, deps: { user: boolean; claim: boolean }, user: string, claim: string, result: MemoResult): void {
    let bySig = level.walks.get(labels);
    if (!bySig) level.walks.set(labels, (bySig = new Map()));
    let e = bySig.get(sig);
    if (!e || (deps.user && !e.user) || (deps.claim && !e.claim)) {
      // New, or this walk read more than earlier ones: earlier results were
      // keyed too coarsely for it, so start over with the wider key.
      e = { user: deps.user || (e?.user ?? false), claim: deps.claim || (e?.claim ?? false), results: new Map() };
      bySig.set(sig, e);
    }
    for (const c of result.contributions) c.shared = true;
    e.results.set(memoSubKey(e, user, claim), result);
  }

  roles(user: PolicyUser): UserRoles {
    const key = user.name.toLowerCase();
    let r = this.rolesCache.get(key);
    if (!r) {
      r = computeRoles(user, this.aclRules, { domainAdmins: this.domainAdmins, cache: this.exprCache, extra: this.extraGrants.get(key) });
      this.rolesCache.set(key, r);
    }
    return r;
  }
}

function put<T>(m: Map<string, ByName<T>>, ns: string, name: string, v: T) {
  let inner = m.get(ns);
  if (!inner) m.set(ns, (inner = new Map()));
  inner.set(name, v);
}

export interface ServiceRef {
  namespace: string;
  name: string;
  spec: Service;
  /** `namespace/name`. */
  key: string;
}

/** Injected TypeInstances are read as their kind declares (the kind registry): the Hub's credentials. */
const TYPE_INSTANCE_AUDIENCE: SecretAudience = credentialsOf('typeinstance')?.audience ?? 'domain-admins';

function treeReads(tree: unknown, test: (s: string) => boolean): boolean {
  if (typeof tree === 'string') return test(tree);
  if (Array.isArray(tree)) return tree.some((x) => treeReads(x, test));
  if (tree && typeof tree === 'object') return Object.values(tree).some((x) => treeReads(x, test));
  return false;
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

