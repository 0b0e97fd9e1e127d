/**
 * A policy snapshot indexed for resolution: objects by namespace and name,
 * rules sorted, users by lower-case name, and shared caches of compiled
 * expressions and templates. Built once per policy generation and reused for
 * every claim (and across incremental re-resolutions).
 */
import { computeRoles, type AclRuleRef, type UserRoles } from '../acl';
import type { CompiledExpr, CompiledTemplate, Result } from '../lang';
import type { AclRule, Bundle, Claim, Cluster, Kind, ObjectOfKind, Rule, Service } from '../model/kinds';
import { SYSTEM_NAMESPACE } from '../model/kinds';
import type { PolicyUser } from '../model/users';

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
  readonly claims: ClaimRef[] = [];
  /** Rules per namespace, by weight then name. */
  readonly rules = new Map<string, RuleRef[]>();
  readonly aclRules: AclRuleRef[] = [];
  readonly users = new Map<string, PolicyUser>();
  readonly enforceConsumeAcl: boolean;
  readonly domainAdmins: readonly string[];
  readonly exprCache = new Map<string, Result<CompiledExpr>>();
  readonly templateCache = new Map<string, Result<CompiledTemplate>>();
  private readonly rolesCache = new Map<string, UserRoles>();

  constructor(input: PolicyInput) {
    for (const o of input.objects) {
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
          this.claims.push({ namespace: o.namespace, name: o.name, spec: o.spec as Claim });
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
    this.claims.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    for (const u of input.users) this.users.set(u.name.toLowerCase(), u);
    this.domainAdmins = input.domainAdmins ?? [];
    this.enforceConsumeAcl = input.enforceConsumeAcl ?? this.aclRules.length > 0;
  }

  user(name: string): PolicyUser | undefined {
    return this.users.get(name.toLowerCase());
  }

  /** `name` or `ns/name`, relative to `namespace`. */
  static splitRef(ref: string, namespace: string): [string, string] {
    const i = ref.indexOf('/');
    return i < 0 ? [namespace, ref] : [ref.slice(0, i), ref.slice(i + 1)];
  }

  service(ref: string, namespace: string): { namespace: string; name: string; spec: Service } | undefined {
    const [ns, name] = PolicyIndex.splitRef(ref, namespace);
    const spec = this.services.get(ns)?.get(name);
    return spec && { namespace: ns, name, spec };
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

  roles(user: PolicyUser): UserRoles {
    const key = user.name.toLowerCase();
    let r = this.rolesCache.get(key);
    if (!r) {
      r = computeRoles(user, this.aclRules, { domainAdmins: this.domainAdmins, cache: this.exprCache });
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
