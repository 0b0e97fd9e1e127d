/**
 * What every Axebow service module works with: the services it delegates to
 * (this folder adds addressing, not rules), and the addressing itself — a
 * tenant read for its caller, and a service found as the claim it is.
 */
import type { Repos } from '../../repo/types';
import type { Resolver } from '../../resolver';
import type { AccessService } from '../access';
import type { Actor, MaybeActor } from '../actor';
import type { ClaimService } from '../claims';
import { AppError, notFound, unauthorized } from '../../errors';
import type { EstateService } from '../estate';
import type { PolicyService } from '../policy';
import type { ResolutionService } from '../resolution';
import type { RevisionService } from '../revisions';
import type { LinkService } from './links';

export interface Axebow {
  readonly repos: Repos;
  readonly access: AccessService;
  readonly policy: PolicyService;
  readonly resolution: ResolutionService;
  readonly claims: ClaimService;
  readonly revisions: RevisionService;
  readonly estate: EstateService;
  readonly links: LinkService;
  readonly resolver: Pick<Resolver, 'run'>;
}

/** A tenant as its caller was authorised for it. */
export interface TenantRef {
  id: number;
  name: string;
  namespaces: string[];
}

/** How far back a service's history looks (generations). */
export const HISTORY_DEPTH = 2000;

export function signedIn(actor: MaybeActor, what: string): Actor {
  if (!actor) throw unauthorized(what);
  return actor;
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

export function serviceExists(t: { name: string }, name: string, namespace?: string): AppError {
  return new AppError('CONFLICT', `Tenant ${t.name} already has a service ${name}${namespace ? ` (${namespace})` : ''}; update it with a new revision instead.`);
}

/** The tenant and its namespaces; members and domain admins only. */
export async function tenantOf(cx: Axebow, actor: Actor, name: string, what: string): Promise<TenantRef> {
  // One read authorises the caller (the tenant, their role in it, its namespaces); cached where this process is the only writer.
  const t = await cx.repos.tenants.forReader(name.toLowerCase(), actor.name.toLowerCase());
  if (!t) throw notFound(`Tenant ${name}`);
  if (t.role === null && !(await cx.access.isDomainAdmin(actor))) throw new AppError('FORBIDDEN', `Only members of tenant ${t.name} may ${what}.`);
  return { id: t.id, name: t.name, namespaces: t.namespaces };
}

/**
 * `tenantOf()`, with the policy head read beside it for an answer that reads
 * the head next (the newest resolution): on a shared database the head
 * read is then shared with the rest of the request (fresh-reads.ts), and
 * the two cost one wait, not two in a row. The head is a number anyone
 * signed in may see: read before the membership check, it tells a refused
 * caller nothing (and it is not in the refusal).
 */
export async function tenantAndHead(cx: Axebow, actor: Actor, name: string, what: string): Promise<TenantRef> {
  const [t] = await Promise.all([tenantOf(cx, actor, name, what), cx.repos.policy.head()]);
  return t;
}

/** The claim of a service: in one of the tenant's namespaces (the first that has it). */
export async function claimOf(cx: Axebow, t: { name: string; namespaces: string[] }, name: string) {
  for (const namespace of t.namespaces) {
    const o = await cx.repos.policy.getObject({ kind: 'claim', namespace, name });
    if (o) return o;
  }
  throw notFound(`Service ${name} of tenant ${t.name}`);
}

/** The namespace holding a claim of this name in the tenant, if any. */
export async function existingClaim(cx: Axebow, t: { namespaces: string[] }, name: string): Promise<string | false> {
  for (const namespace of t.namespaces) if (await cx.repos.policy.getObject({ kind: 'claim', namespace, name })) return namespace;
  return false;
}

/** The namespace of a service: where its claim is, or was (a removed service keeps its history). */
export async function namespaceOfService(cx: Axebow, t: { name: string; namespaces: string[] }, name: string): Promise<string> {
  const now = await existingClaim(cx, t, name);
  if (now) return now;
  for (const g of await cx.repos.policy.listGenerations({ limit: HISTORY_DEPTH, touching: { kind: 'claim', name } })) {
    const c = g.changes.find((x) => x.kind === 'claim' && x.name === name && t.namespaces.includes(x.namespace));
    if (c) return c.namespace;
  }
  throw notFound(`Service ${name} of tenant ${t.name}`);
}
