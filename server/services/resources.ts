/**
 * Tenants' registered resources (Axebow §5.10). Ports and domains belong to
 * one tenant platform-wide (409 ResourceTaken, without saying whose);
 * secret material is sealed at rest and shown only to owners and admins
 * who ask for it; a resource a service uses — a claim label whose value is
 * `<kind>:<name>` — cannot be unregistered (409 ResourceInUse, naming the
 * services).
 */
import type { Claim } from '../engine/model/kinds';
import type { ResourceKind, ResourceRow } from '../repo/resources.types';
import { ROLE_RANK, type TenantRole } from '../repo/tenants.types';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from './errors';
import { checkCa, checkCertificate } from './resource-pem';
import { RESOURCE_SPECS, type ResourceView } from './resources.types';
import type { SecretBox } from './secret-box';

/** Which field of a kind's body is secret, and which gives its platform-wide unique key. */
const SECRET_FIELD: Partial<Record<ResourceKind, string>> = { certificate: 'key', secret: 'value' };
const CLAIM_OF: Partial<Record<ResourceKind, (spec: Record<string, unknown>) => string>> = {
  port: (s) => `port:${s.port}`,
  domain: (s) => `domain:${String(s.domain).toLowerCase()}`,
};

export class ResourceService {
  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
    private readonly box: SecretBox,
  ) {}

  private signedIn(actor: MaybeActor, what: string): Actor {
    if (!actor) throw unauthorized(what);
    return actor;
  }

  /** The tenant and whether the caller manages it (owner or admin, or a domain admin). */
  private async tenant(actor: Actor, name: string, need: TenantRole, what: string) {
    const t = await this.repos.tenants.byName(name.toLowerCase());
    if (!t) throw notFound(`Tenant ${name}`);
    const member = (await this.repos.tenants.members(t.id)).find((m) => m.user === actor.name.toLowerCase());
    const manages = (await this.access.isDomainAdmin(actor)) || (member !== undefined && ROLE_RANK[member.role as TenantRole] >= ROLE_RANK.admin);
    if (!manages && (!member || ROLE_RANK[member.role as TenantRole] < ROLE_RANK[need])) {
      throw new AppError('FORBIDDEN', member ? `Only owners and admins of tenant ${t.name} may ${what} (you are ${member.role}).` : `Only members of tenant ${t.name} may ${what}.`);
    }
    return { ...t, manages };
  }

  private view(tenant: string, r: ResourceRow, reveal: boolean): ResourceView {
    return {
      tenant,
      kind: r.kind as ResourceKind,
      name: r.name,
      spec: r.spec,
      hasSecret: r.sealed !== null,
      ...(reveal && r.sealed !== null ? { secret: this.open(r, r.sealed) } : {}),
      createdBy: r.createdBy,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private open(r: ResourceRow, sealed: string): string {
    try {
      return this.box.open(sealed);
    } catch {
      // A console checks its key at start (db/secret-key.ts): this is a row sealed apart from the others, or damaged.
      throw new AppError('INTERNAL', `The secret of ${r.kind} ${r.name} does not open with this console's key: it was sealed with another key, or damaged.`);
    }
  }

  /** Validate a body for its kind and split it into the stored spec, the sealed secret and the unique key. */
  private split(kind: ResourceKind, body: unknown) {
    const r = RESOURCE_SPECS[kind].safeParse(body);
    if (!r.success) {
      const i = r.error.issues[0]!;
      throw new AppError('INVALID_INPUT', `${kind} ${i.path.join('.') || 'body'}: ${i.message}`);
    }
    // PEM markers prove nothing: what is between them must parse, and be what the kind says it is.
    const data = r.data as Record<string, string>;
    const problem = kind === 'certificate' ? checkCertificate({ cert: data.cert!, key: data.key!, domain: data.domain! }) : kind === 'ca' ? checkCa(data.ca!, 'ca') : null;
    if (problem) throw new AppError('INVALID_INPUT', `${kind} ${problem.field}: ${problem.message}`);
    const spec = { ...(r.data as Record<string, unknown>) };
    const field = SECRET_FIELD[kind];
    let sealed: string | null = null;
    if (field) {
      sealed = this.box.seal(String(spec[field]));
      delete spec[field];
    }
    return { spec, sealed, claim: CLAIM_OF[kind]?.(spec) ?? null };
  }

  async list(actor: MaybeActor, input: { tenant: string; kind: ResourceKind }): Promise<ResourceView[]> {
    const who = this.signedIn(actor, 'see resources');
    const t = await this.tenant(who, input.tenant, 'plain', 'see its resources');
    return (await this.repos.resources.list(t.id, input.kind)).map((r) => this.view(t.name, r, false));
  }

  async get(actor: MaybeActor, input: { tenant: string; kind: ResourceKind; name: string; reveal: boolean }): Promise<ResourceView> {
    const who = this.signedIn(actor, 'see resources');
    const t = await this.tenant(who, input.tenant, input.reveal ? 'admin' : 'plain', input.reveal ? 'see secret values' : 'see its resources');
    const r = await this.repos.resources.get(t.id, input.kind, input.name);
    if (!r) throw notFound(`${input.kind} ${input.name} of tenant ${t.name}`);
    return this.view(t.name, r, input.reveal && t.manages);
  }

  async register(actor: MaybeActor, input: { tenant: string; kind: ResourceKind; name: string; body: unknown }): Promise<ResourceView> {
    const who = this.signedIn(actor, 'register resources');
    const t = await this.tenant(who, input.tenant, 'admin', 'register resources');
    const parts = this.split(input.kind, input.body);
    const r = await this.repos.resources.add({ tenantId: t.id, kind: input.kind, name: input.name, ...parts, createdBy: who.name });
    if (r === 'name-taken') throw new AppError('CONFLICT', `Tenant ${t.name} already has a ${input.kind} ${input.name}; update it instead.`);
    if (r === 'claim-taken') throw taken(input.kind, parts.claim!);
    return this.view(t.name, r, false);
  }

  async update(actor: MaybeActor, input: { tenant: string; kind: ResourceKind; name: string; body: unknown }): Promise<ResourceView> {
    const who = this.signedIn(actor, 'update resources');
    const t = await this.tenant(who, input.tenant, 'admin', 'update resources');
    const old = await this.repos.resources.get(t.id, input.kind, input.name);
    if (!old) throw notFound(`${input.kind} ${input.name} of tenant ${t.name}`);
    const parts = this.split(input.kind, input.body);
    const r = await this.repos.resources.update(old.id, parts);
    if (r === 'claim-taken') throw taken(input.kind, parts.claim!);
    if (!r) throw notFound(`${input.kind} ${input.name} of tenant ${t.name}`);
    return this.view(t.name, r, false);
  }

  async unregister(actor: MaybeActor, input: { tenant: string; kind: ResourceKind; name: string }): Promise<{ ok: true }> {
    const who = this.signedIn(actor, 'unregister resources');
    const t = await this.tenant(who, input.tenant, 'admin', 'unregister resources');
    const r = await this.repos.resources.get(t.id, input.kind, input.name);
    if (!r) throw notFound(`${input.kind} ${input.name} of tenant ${t.name}`);
    const users = await this.usersOf(t.id, `${input.kind}:${input.name}`);
    if (users.length > 0) {
      throw new AppError('CONFLICT', `${input.kind} ${input.name} is in use by ${users.join(', ')}; change those services first.`, { details: { restCode: 'ResourceInUse', services: users } });
    }
    await this.repos.resources.remove(r.id);
    return { ok: true };
  }

  /** Services (claims in the tenant's namespaces) with a label whose value names the resource. */
  private async usersOf(tenantId: number, ref: string): Promise<string[]> {
    const out: string[] = [];
    for (const { namespace } of await this.repos.tenants.namespaces(tenantId)) {
      for (const o of await this.repos.policy.listObjects({ kind: 'claim', namespace })) {
        if (Object.values((o.spec as Claim).labels ?? {}).includes(ref)) out.push(o.name);
      }
    }
    return out.sort();
  }
}

function taken(kind: string, claim: string): AppError {
  const what = claim.slice(claim.indexOf(':') + 1);
  return new AppError('CONFLICT', `${kind === 'port' ? 'Port' : 'Domain'} ${what} is registered already (by this or another tenant).`, { details: { restCode: 'ResourceTaken' } });
}
