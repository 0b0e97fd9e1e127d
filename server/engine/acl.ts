/**
 * Aptomi's roles, computed from `aclrule` objects on a user's labels.
 *
 * Roles are checked in the order domain-admin, namespace-admin,
 * service-consumer; the first role whose namespaces hold `*` or the object's
 * namespace decides what the user may do there (Aptomi's rule_acl.go):
 *
 * | role             | bundle/service/rule (ns) | claim (ns) | system objects |
 * |------------------|--------------------------|------------|----------------|
 * | domain-admin     | manage                   | manage     | manage         |
 * | namespace-admin  | manage                   | manage     | view           |
 * | service-consumer | view                     | manage     | view           |
 * | nobody           | view                     | view       | view           |
 */
import { evalCriteria, coerceLabelSet, type ExprCache } from './lang';
import type { AclRule } from './model/kinds';

export type Role = 'domain-admin' | 'namespace-admin' | 'service-consumer';
export const ROLE_ORDER: readonly Role[] = ['domain-admin', 'namespace-admin', 'service-consumer'];

export interface RoleGrant {
  role: Role;
  /** `'*'` for every namespace. */
  namespaces: '*' | string[];
  /** Where the grant comes from: `aclrule system/<name>`, or the override list. */
  source: string;
}

export interface UserRoles {
  user: string;
  grants: RoleGrant[];
  /** Criteria errors in ACL rules (the rule then grants nothing). */
  errors: string[];
}

export interface AclRuleRef {
  name: string;
  spec: AclRule;
}

/** ACL rules by weight, then name (Aptomi sorted by weight only, so ties ran in random order). */
export function sortAclRules(rules: readonly AclRuleRef[]): AclRuleRef[] {
  return [...rules].sort((a, b) => (a.spec.weight ?? 0) - (b.spec.weight ?? 0) || a.name.localeCompare(b.name));
}

export function computeRoles(
  user: { name: string; labels: Readonly<Record<string, string>>; domainAdmin?: boolean },
  rules: readonly AclRuleRef[],
  opts: { domainAdmins?: readonly string[]; cache?: ExprCache; extra?: readonly RoleGrant[] } = {},
): UserRoles {
  // Grants from elsewhere (tenant membership) count like ACL rules' grants.
  const grants: RoleGrant[] = [...(opts.extra ?? [])];
  const errors: string[] = [];
  const lower = user.name.toLowerCase();
  if (user.domainAdmin || opts.domainAdmins?.some((n) => n.toLowerCase() === lower)) {
    grants.push({ role: 'domain-admin', namespaces: '*', source: 'domain admin override' });
  }
  const params = coerceLabelSet(user.labels);
  for (const r of sortAclRules(rules)) {
    const m = evalCriteria(r.spec.criteria, params, opts.cache);
    if (!m.ok) {
      errors.push(`aclrule system/${r.name}: ${m.error.message}`);
      continue;
    }
    if (!m.value.matched) continue;
    const add = r.spec.actions['add-role'];
    for (const role of ROLE_ORDER) {
      const v = add[role];
      if (!v) continue;
      const list = v.split(',').map((s) => s.trim()).filter(Boolean);
      grants.push({ role, namespaces: list.includes('*') ? '*' : list, source: `aclrule system/${r.name}` });
    }
  }
  return { user: user.name, grants, errors };
}

/** The deciding role in a namespace, or null (nobody). */
export function roleIn(roles: UserRoles, namespace: string): Role | null {
  for (const role of ROLE_ORDER) {
    if (roles.grants.some((g) => g.role === role && (g.namespaces === '*' || g.namespaces.includes(namespace)))) return role;
  }
  return null;
}

export function isDomainAdmin(roles: UserRoles): boolean {
  return roles.grants.some((g) => g.role === 'domain-admin' && g.namespaces === '*');
}

/** May this user create, change or delete an object of `kind` in `namespace`? */
export function canManage(roles: UserRoles, kind: string, namespace: string): boolean {
  const role = roleIn(roles, namespace);
  if (namespace === 'system') return isDomainAdmin(roles);
  if (role === 'domain-admin' || role === 'namespace-admin') return true;
  if (role === 'service-consumer') return kind === 'claim';
  return false;
}

/**
 * May this user manage anything (with `kind`: an object of that kind) in
 * some namespace? Asked before a request's text is read at all: one who
 * may manage nothing anywhere is refused for the price of this check.
 */
export function canManageSomewhere(roles: UserRoles, kind?: string): boolean {
  if (isDomainAdmin(roles)) return true;
  return roles.grants.some((g) => {
    // The system namespace is the domain admins' alone, whatever a grant lists.
    const somewhere = g.namespaces === '*' || g.namespaces.some((ns) => ns !== 'system');
    return somewhere && (g.role !== 'service-consumer' || kind === undefined || kind === 'claim');
  });
}

/** Consuming a service in `namespace` needs the right to manage claims there. */
export function canConsume(roles: UserRoles, namespace: string): boolean {
  return canManage(roles, 'claim', namespace);
}

/**
 * A claim acts for the user it names: resolution uses that user's labels,
 * secrets and consume rights. Saving (or removing) a claim in someone
 * else's name therefore needs more than the right to manage claims: the
 * namespace-admin role in the claim's namespace, or domain-admin.
 */
export function canActFor(roles: UserRoles, namespace: string, actorName: string, claimUser: string): boolean {
  if (claimUser === actorName) return true;
  const role = roleIn(roles, namespace);
  return role === 'domain-admin' || role === 'namespace-admin';
}
