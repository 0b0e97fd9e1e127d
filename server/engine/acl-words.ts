/**
 * A user's roles read back in words and as choices: what the sign-in page
 * says each demo user may do, which kinds and namespaces the new-object
 * editor offers, and why an action is not offered. Everything here derives
 * from `UserRoles` through acl.ts's own checks (canManage, roleIn), so the
 * console can never promise more than the server grants.
 */
import { canManage, isDomainAdmin, roleIn, ROLE_ORDER, type Role, type UserRoles } from './acl';

const SYSTEM_NAMESPACE = 'system';

/** Roles with the namespaces each one decides in (a higher role's namespaces are not repeated under a lower one). */
export function decidingRoles(roles: UserRoles): { role: Role; namespaces: '*' | string[] }[] {
  if (isDomainAdmin(roles)) return [{ role: 'domain-admin', namespaces: '*' }];
  const named = [...new Set(roles.grants.flatMap((g) => (g.namespaces === '*' ? [] : g.namespaces)))].sort();
  const out: { role: Role; namespaces: '*' | string[] }[] = [];
  for (const role of ROLE_ORDER) {
    // A `*` grant of a lower role still leaves the namespaces a higher role decides to that role.
    const everywhere = roles.grants.some((g) => g.role === role && g.namespaces === '*');
    const here = named.filter((ns) => roleIn(roles, ns) === role);
    if (everywhere) out.push({ role, namespaces: '*' });
    else if (here.length > 0) out.push({ role, namespaces: here });
  }
  return out;
}

function list(namespaces: '*' | string[]): string {
  if (namespaces === '*') return 'every namespace';
  if (namespaces.length === 1) return namespaces[0]!;
  return `${namespaces.slice(0, -1).join(', ')} and ${namespaces[namespaces.length - 1]}`;
}

const ROLE_WORDS: Record<Role, (where: string) => string> = {
  'domain-admin': () => 'domain admin: may change everything, the system objects (clusters, ACL rules, the Capact Hub) included, and accept any section',
  'namespace-admin': (where) => `namespace admin of ${where}: may change any object there and accept its revision sections`,
  'service-consumer': (where) => `service consumer in ${where}: may claim services there in their own name; the rest is read-only`,
};

/** One line per deciding role, and what to try first with the highest of them. */
export function describeRoles(roles: UserRoles): { roles: string[]; tryFirst: string } {
  const deciding = decidingRoles(roles);
  if (deciding.length === 0) return { roles: ['no role: may read, not change'], tryFirst: 'Browse the objects and revisions; ask a domain admin for a role to change anything.' };
  const words = deciding.map((d) => ROLE_WORDS[d.role](list(d.namespaces)));
  const top = deciding[0]!;
  const first = top.namespaces === '*' ? undefined : top.namespaces[0];
  const tryFirst =
    top.role === 'domain-admin'
      ? 'Open the pending revision and accept its sections, or change a cluster.'
      : top.role === 'namespace-admin'
        ? `Change a bundle or service in ${first ?? 'your namespace'} and accept the ${first ?? 'namespace'} section of the revision it makes.`
        : `Create a claim in ${first ?? 'your namespace'} (New object → claim) and watch the preview say what it would deploy.`;
  return { roles: words, tryFirst };
}

/** Namespaces where `roles` may save an object of `kind`: `'*'` for any but `system`, which holds the system-only kinds alone. */
export function savableNamespaces(roles: UserRoles, kind: string, systemOnly: boolean): '*' | string[] {
  if (systemOnly) return canManage(roles, kind, SYSTEM_NAMESPACE) ? [SYSTEM_NAMESPACE] : [];
  const everywhere = roles.grants.some((g) => g.namespaces === '*' && (g.role !== 'service-consumer' || kind === 'claim'));
  if (everywhere) return '*';
  const named = [...new Set(roles.grants.flatMap((g) => (g.namespaces === '*' ? [] : g.namespaces)))];
  return named.filter((ns) => ns !== SYSTEM_NAMESPACE && canManage(roles, kind, ns));
}

/** The kinds (of `kinds`, in their order) that `roles` may save somewhere. */
export function savableKinds(roles: UserRoles, kinds: readonly string[], systemOnly: (kind: string) => boolean): string[] {
  return kinds.filter((k) => {
    const where = savableNamespaces(roles, k, systemOnly(k));
    return where === '*' || where.length > 0;
  });
}

/**
 * Why `roles` cannot restore an earlier policy (roll back, revert), or null
 * when they might: it rewrites every object changed since, and only claims
 * are a service consumer's to change. A user who may change nothing but
 * claims is therefore not offered it (a restore touching only their own
 * claims is the rare case; they edit those claims instead). The server
 * still checks each changed object, for everyone.
 */
export function restoreRefusal(roles: UserRoles, verb: string): string | null {
  const deciding = decidingRoles(roles);
  if (deciding.some((d) => d.role !== 'service-consumer')) return null;
  const where = deciding[0] ? ` (you are a service consumer in ${list(deciding[0].namespaces)})` : ' (you have no role)';
  return `You may not ${verb}: it restores every object changed since, which needs the namespace-admin role in their namespaces or domain-admin${where}.`;
}
