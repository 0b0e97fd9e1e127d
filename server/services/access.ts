/**
 * Who may do what. Roles come from the policy's ACL rules (evaluated on the
 * user's labels), from KEELSON_DOMAIN_ADMINS, and from tenant membership
 * (tenant owners and admins are namespace admins of the tenant's namespaces,
 * plain members service consumers). Every service asks here before it reads
 * secrets or changes anything.
 */
import { canActFor, canManage, canManageSomewhere, computeRoles, isDomainAdmin, roleIn, type RoleGrant, type UserRoles } from '../engine/acl';
import type { AclRule } from '../engine/model/kinds';
import { credentialsOf, holdsCredentials, mayReadCredentials, redactObject } from '../engine/model/credentials';
import { audienceOf } from '../engine/state';
import type { ObjectId, Repos } from '../repo/types';
import type { Actor, MaybeActor } from './actor';
import { AppError, unauthorized } from '../errors';

export class AccessService {
  constructor(
    private readonly repos: Repos,
    private readonly domainAdmins: readonly string[],
  ) {}

  /** Tenant-derived grants per lower-case user name. */
  async tenantGrants(): Promise<Map<string, RoleGrant[]>> {
    return this.repos.tenants.grants();
  }

  /** The actor's roles under the policy of `generation` (default: the newest). */
  async roles(actor: Actor, generation?: number): Promise<UserRoles> {
    // The tenants' grants do not depend on the generation: asked beside the rules, not after them.
    const rulesAt = async () => this.repos.policy.listObjects({ generation: generation ?? (await this.repos.policy.head()), kind: 'aclrule' });
    const [objects, grants] = await Promise.all([rulesAt(), this.tenantGrants()]);
    const rules = objects.map((o) => ({ name: o.name, spec: o.spec as AclRule }));
    const extra = [...(grants.get(actor.name.toLowerCase()) ?? [])];
    // An open policy (no ACL rules) grants nothing by itself: only the
    // configured domain admins (KEELSON_DOMAIN_ADMINS) manage it, and they
    // write the first ACL rules. (It used to make every signed-in user a
    // domain admin, so anyone who signed in first owned a fresh install.)
    return computeRoles({ name: actor.name, labels: actor.labels }, rules, { domainAdmins: this.domainAdmins, extra });
  }

  /** Refuse (403, naming the object and the role needed) unless the actor may manage every object. */
  async assertManage(actor: MaybeActor, objects: readonly ObjectId[], verb: string): Promise<Actor> {
    if (!actor) throw unauthorized(verb);
    const roles = await this.roles(actor);
    for (const o of objects) {
      if (!canManage(roles, o.kind, o.namespace)) throw new AppError('FORBIDDEN', explainDenied(roles, o));
    }
    return actor;
  }

  /**
   * The gate before a request's text is read (parsed, expanded, evaluated):
   * refuse (401/403) unless the actor may manage something somewhere (with
   * `kind`: an object of that kind). The rights on each object are asked
   * once its text has been read to identities (services/admission.ts).
   */
  async assertMayManageSomewhere(actor: MaybeActor, verb: string, kind?: string): Promise<Actor> {
    if (!actor) throw unauthorized(verb);
    if (canManageSomewhere(await this.roles(actor), kind)) return actor;
    const what = kind ? `${kind}s` : 'policy';
    throw new AppError('FORBIDDEN', `You may not ${verb}: you have no role that lets you change ${what} in any namespace (a domain admin grants roles with ACL rules, or a tenant's owner makes you a member). Nothing was read.`);
  }

  /**
   * Claims act for the user they name: check the name being saved and, for
   * updates and deletes, the name the stored claim carries now.
   */
  async assertClaimAuthors(
    actor: Actor,
    upserts: readonly { kind: string; namespace: string; name: string; spec: unknown }[],
    deletes: readonly ObjectId[],
    verb: string,
  ): Promise<void> {
    const touched = [...upserts, ...deletes].filter((o) => o.kind === 'claim');
    if (touched.length === 0) return;
    // Only the touched claims are read (by name, per namespace), not every claim of the policy.
    const byNamespace = new Map<string, string[]>();
    for (const o of touched) {
      const names = byNamespace.get(o.namespace);
      if (names) names.push(o.name);
      else byNamespace.set(o.namespace, [o.name]);
    }
    const stored = new Map<string, string | undefined>();
    for (const [namespace, names] of byNamespace) {
      // A large import reads its namespaces' claims whole rather than naming thousands.
      const filter = names.length > 100 ? { kind: 'claim', namespace } : { kind: 'claim', namespace, names };
      for (const o of await this.repos.policy.listObjects(filter)) stored.set(`${o.namespace}/${o.name}`, claimUser(o.spec));
    }
    const claims = touched.map((o) => {
      const users = ['spec' in o ? claimUser(o.spec) : undefined, stored.get(`${o.namespace}/${o.name}`)].filter((u): u is string => typeof u === 'string');
      return { namespace: o.namespace, name: o.name, users: [...new Set(users)] };
    });
    await this.assertActsFor(actor, claims, verb);
  }

  /**
   * Refuse (403) unless the actor may act for every claim's user: their own
   * name always; another user's only as namespace admin of the claim's
   * namespace or domain admin. `users` lists the claim's user as saved and,
   * for an update or delete, as it was stored before (taking over someone's
   * claim acts against them too).
   */
  async assertActsFor(actor: Actor, claims: readonly { namespace: string; name: string; users: readonly string[] }[], verb: string): Promise<void> {
    const foreign = claims.filter((c) => c.users.some((u) => u !== actor.name));
    if (foreign.length === 0) return;
    const roles = await this.roles(actor);
    for (const c of foreign) {
      const other = c.users.find((u) => !canActFor(roles, c.namespace, actor.name, u));
      if (other === undefined) continue;
      const role = roleIn(roles, c.namespace);
      throw new AppError(
        'FORBIDDEN',
        `You may not ${verb} claim ${c.namespace}/${c.name} in the name of user "${other}": a claim acts for the user it names (their labels, secrets and rights). ` +
          `Service consumers claim only in their own name ("user: ${actor.name}"); claiming for someone else needs the namespace-admin role in ${c.namespace} or domain-admin (you are ${role ?? 'not given a role'} there). Nothing was saved.`,
      );
    }
  }

  /**
   * Instances (and plan steps) rendered from credentials keep their
   * parameters and discovery to the audience the engine recorded: from a
   * user's own secrets, the namespace's admins (and domain admins); from
   * the platform's (Hub TypeInstances, Targets), domain admins only.
   */
  async redactSensitive<T extends { namespace: string; sensitive?: unknown; code?: { type: string; params: Record<string, unknown> } | null; previousCode?: { type: string; params: Record<string, unknown> } | null; discovery?: Record<string, unknown> }>(
    actor: Actor,
    items: T[],
  ): Promise<T[]> {
    if (!items.some((i) => audienceOf(i.sensitive))) return items;
    const roles = await this.roles(actor);
    return items.map((i) => {
      const audience = audienceOf(i.sensitive);
      if (!audience || mayReadCredentials(roles, audience, i.namespace)) return i;
      const note = {
        redacted: audience === 'namespace-admins' ? `rendered from user secrets: visible to namespace admins of ${i.namespace}` : 'rendered from platform credentials (Hub TypeInstances, Targets): visible to domain admins',
      };
      return {
        ...i,
        ...(i.code ? { code: { ...i.code, params: note } } : {}),
        ...(i.previousCode ? { previousCode: { ...i.previousCode, params: note } } : {}),
        ...(i.discovery ? { discovery: note } : {}),
      };
    });
  }

  /**
   * Stored objects as this actor may see them: each credential its kind
   * declares (kind registry) is redacted unless the actor is in the
   * declared audience.
   */
  async redactObjects<T extends { kind: string; namespace: string; name: string; text: string; spec: unknown }>(actor: Actor, objects: T[]): Promise<T[]> {
    if (!objects.some((o) => holdsCredentials(o))) return objects;
    const roles = await this.roles(actor);
    return objects.map((o) => (holdsCredentials(o) && !mayReadCredentials(roles, credentialsOf(o.kind)!.audience, o.namespace) ? redactObject(o) : o));
  }

  /** The ACL rule (newest policy) whose roles name this namespace explicitly, if any. */
  async aclRuleNaming(namespace: string): Promise<string | undefined> {
    for (const o of await this.repos.policy.listObjects({ kind: 'aclrule' })) {
      const add = (o.spec as AclRule).actions?.['add-role'] ?? {};
      const named = Object.values(add).flatMap((v) => String(v ?? '').split(',').map((s) => s.trim()));
      if (named.includes(namespace)) return `${o.namespace}/${o.name}`;
    }
    return undefined;
  }

  /** Does the newest policy hold objects in this namespace? */
  async namespaceInUse(namespace: string): Promise<boolean> {
    return (await this.repos.policy.listObjects({ namespace })).length > 0;
  }

  /** Operators, in Axebow's words. */
  async isDomainAdmin(actor: MaybeActor): Promise<boolean> {
    return actor !== null && isDomainAdmin(await this.roles(actor));
  }
}

export function explainDenied(roles: UserRoles, o: ObjectId): string {
  const role = roleIn(roles, o.namespace);
  const what = `${o.kind} ${o.namespace}/${o.name}`;
  const youAre = role ? `you are ${role} there` : `you have no role there`;
  if (o.namespace === 'system') return `You may not change ${what}: objects in the system namespace are managed by domain admins only (${youAre}). Nothing was saved.`;
  if (o.kind === 'claim') return `You may not change ${what}: managing claims in namespace ${o.namespace} needs the service-consumer, namespace-admin or domain-admin role there (${youAre}). Nothing was saved.`;
  return `You may not change ${what}: managing ${o.kind}s in namespace ${o.namespace} needs the namespace-admin or domain-admin role there (${youAre}); service consumers may only change claims. Nothing was saved.`;
}

function claimUser(spec: unknown): string | undefined {
  const u = (spec as { user?: unknown } | null)?.user;
  return typeof u === 'string' ? u : undefined;
}
