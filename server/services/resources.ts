/**
 * Tenants' registered resources (Axebow §5.10). Ports and domains belong to
 * one tenant platform-wide (409 ResourceTaken, without saying whose);
 * secret material is sealed at rest and shown only to owners and admins
 * who ask for it; a resource a service uses — a claim label whose value is
 * `<kind>:<name>` — cannot be unregistered (409 ResourceInUse, naming the
 * services).
 */
import type { Claim } from '../engine/model/kinds';
import { RESOURCE_KINDS, type ResourceKind, type ResourceRow } from '../repo/resources.types';
import { ROLE_RANK, type TenantRole } from '../repo/tenants.types';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import { checkResourceSelector } from '../engine/axebow/stage';
import { compileSelector } from '../engine/lang/selector';
import { selectorDiagnostic } from '../engine/lang/selector/types';
import { environmentOfLabels } from './estate';
import { checkCa, checkCertificate } from './resource-pem';
import { DATA_FIELD, RESOURCE_DOCUMENT_BODIES, RESOURCE_SPECS, SEALED_DATA, type ResourcesByKind, type ResourceUse, type ResourceView, type UsedPorts } from './resources.types';
import type { SecretBox } from '../db/secret-box';

/** Which field of a kind's body is secret, and which gives its platform-wide unique key. */
const SECRET_FIELD: Partial<Record<ResourceKind, string>> = { certificate: 'key', secret: 'value' };
const CLAIM_OF: Partial<Record<ResourceKind, (spec: Record<string, unknown>) => string>> = {
  port: (s) => `port:${s.port}`,
  domain: (s) => `domain:${String(s.domain).toLowerCase()}`,
};

/** Where the tenant's services use its resources: `kind:name` → each using service, with its environment when it names one. */
type Uses = Map<string, { service: string; at: { cluster: string; account: string; environment: string } | null }[]>;

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

  /**
   * The resource as Axebow's #Resource: its data in the document's shape,
   * secret material only when revealed (opened from its seal), and where
   * the tenant's services use it.
   */
  private view(tenant: string, r: ResourceRow, reveal: boolean, uses: Uses): ResourceView {
    const kind = r.kind as ResourceKind;
    const { meta, selector, ...flat } = r.spec as Record<string, unknown> & { meta?: Record<string, string>; selector?: unknown[] };
    const secret = reveal && r.sealed !== null ? this.open(r, r.sealed) : undefined;
    const field = SECRET_FIELD[kind];
    if (field) flat[field] = secret ?? SEALED_DATA;
    const one = DATA_FIELD[kind];
    const status = { clusters: {} as Record<string, boolean>, requested: {} as Record<string, number>, environment: {} as Record<string, number> };
    for (const { at: u } of uses.get(`${kind}:${r.name}`) ?? []) {
      if (!u) continue;
      status.clusters[u.cluster] = true;
      status.requested[u.account] = (status.requested[u.account] ?? 0) + 1;
      status.environment[u.environment] = (status.environment[u.environment] ?? 0) + 1;
    }
    return {
      id: { name: r.name, kind, parent: { name: tenant, kind: 'tenant' } },
      spec: { data: one ? flat[one] : flat },
      ...(meta ? { meta } : {}),
      ...(selector ? { selector } : {}),
      status,
      tenant,
      kind,
      name: r.name,
      hasSecret: r.sealed !== null,
      ...(secret !== undefined ? { secret } : {}),
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

  /**
   * Validate a body for its kind and split it into the stored spec, the
   * sealed secret and the unique key. Two shapes are accepted: the Axebow
   * document's `{data, meta?, selector?}` (§5.10.5) and Keelson's flat one
   * (`{port}`, `{value}`, …); a flat body never has `data`.
   */
  private split(kind: ResourceKind, body: unknown) {
    const documented = !!body && typeof body === 'object' && !Array.isArray(body) && 'data' in body;
    const invalid = (issues: readonly { path: PropertyKey[]; message: string }[]) => {
      const i = issues[0]!;
      return new AppError('INVALID_INPUT', `${kind} ${i.path.map(String).join('.') || 'body'}: ${i.message}`);
    };
    let flatBody = body;
    let extra: { meta?: Record<string, string>; selector?: unknown[] } = {};
    // The field a problem with one of the flat fields is named by, in the shape the caller sent.
    let named = (field: string) => field;
    if (documented) {
      const d = RESOURCE_DOCUMENT_BODIES[kind].safeParse(body);
      if (!d.success) throw invalid(d.error.issues);
      const one = DATA_FIELD[kind];
      flatBody = one ? { [one]: d.data.data } : d.data.data;
      named = (field) => (one ? 'data' : `data.${field}`);
      if (d.data.selector) {
        const c = compileSelector(d.data.selector);
        if (!c.ok) throw new AppError('INVALID_INPUT', `${kind} selector: ${c.errors.map((e) => e.message).join('; ')}`, { diagnostics: c.errors.map((e) => selectorDiagnostic(e, { path: ['selector'] })) });
        // It runs where a service would use the resource, with the resource and that environment only: a program reading more could never pass.
        const roots = checkResourceSelector(d.data.selector);
        if (roots.length > 0) throw new AppError('INVALID_INPUT', `${kind} selector: ${roots.join('; ')}`);
      }
      extra = { ...(d.data.meta ? { meta: d.data.meta } : {}), ...(d.data.selector ? { selector: d.data.selector } : {}) };
    }
    const r = RESOURCE_SPECS[kind].safeParse(flatBody);
    if (!r.success) throw invalid(r.error.issues.map((i) => ({ ...i, path: i.path.length ? [named(String(i.path[0])), ...i.path.slice(1)] : i.path })));
    const field = SECRET_FIELD[kind];
    const data = r.data as Record<string, string>;
    // What an answer showed in place of the secret is not a secret: never seal the placeholder.
    if (field && data[field] === SEALED_DATA) throw new AppError('INVALID_INPUT', `${kind} ${named(field)}: shows "${SEALED_DATA}"; send the real value. Nothing was saved.`);
    // PEM markers prove nothing: what is between them must parse, and be what the kind says it is.
    const problem = kind === 'certificate' ? checkCertificate({ cert: data.cert!, key: data.key!, domain: data.domain! }) : kind === 'ca' ? checkCa(data.ca!, 'ca') : null;
    if (problem) throw new AppError('INVALID_INPUT', `${kind} ${named(problem.field)}: ${problem.message}`);
    const spec: Record<string, unknown> = { ...(r.data as Record<string, unknown>) };
    let sealed: string | null = null;
    if (field) {
      sealed = this.box.seal(String(spec[field]));
      delete spec[field];
    }
    const claim = CLAIM_OF[kind]?.(spec) ?? null;
    return { spec: { ...spec, ...extra }, sealed, claim };
  }

  /** Where the tenant's services use its resources: `kind:name` → each using service's environment (null when it names none). */
  private async uses(tenantId: number): Promise<Uses> {
    const out: Uses = new Map();
    const accounts = await this.repos.estate.accounts(tenantId);
    const envs = (await Promise.all(accounts.map(async (a) => (await this.repos.estate.environments(a.id)).map((env) => ({ ref: `${a.name}/${env.name}`, account: a.name, env }))))).flat();
    for (const { namespace } of await this.repos.tenants.namespaces(tenantId)) {
      for (const o of await this.repos.policy.listObjects({ kind: 'claim', namespace })) {
        const labels = (o.spec as Claim).labels ?? {};
        const at = environmentOfLabels(envs, labels);
        for (const value of new Set(Object.values(labels))) {
          if (!/^(ca|certificate|domain|port|secret|volume):./.test(value)) continue;
          out.set(value, [...(out.get(value) ?? []), { service: o.name, at: at ? { cluster: at.env.cluster, account: at.account, environment: at.ref } : null }]);
        }
      }
    }
    return out;
  }

  async list(actor: MaybeActor, input: { tenant: string; kind: ResourceKind }): Promise<ResourceView[]> {
    const who = this.signedIn(actor, 'see resources');
    const t = await this.tenant(who, input.tenant, 'plain', 'see its resources');
    const uses = await this.uses(t.id);
    return (await this.repos.resources.list(t.id, input.kind)).map((r) => this.view(t.name, r, false, uses));
  }

  /**
   * Every resource of the tenant whatever its kind (Axebow's listing
   * without a kind), each with the services that use it and where they
   * run; no data, so nothing secret.
   */
  async listAll(actor: MaybeActor, input: { tenant: string }): Promise<ResourcesByKind> {
    const who = this.signedIn(actor, 'see resources');
    const t = await this.tenant(who, input.tenant, 'plain', 'see its resources');
    const [rows, uses] = await Promise.all([this.repos.resources.list(t.id), this.uses(t.id)]);
    const out = Object.fromEntries(RESOURCE_KINDS.map((k) => [k, [] as ResourceUse[]])) as ResourcesByKind;
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const r of [...rows].sort(byName)) out[r.kind as ResourceKind]?.push({ name: r.name, usedIn: usedIn(uses, `${r.kind}:${r.name}`) });
    return out;
  }

  /**
   * The ports the tenant owns (Axebow's `usedports`), each with the
   * services that use it. Ports are the tenant's alone platform-wide, so
   * no other tenant's are listed (no freemium pool shares them).
   */
  async usedPorts(actor: MaybeActor, input: { tenant: string }): Promise<UsedPorts> {
    const who = this.signedIn(actor, 'see resources');
    const t = await this.tenant(who, input.tenant, 'plain', 'see its resources');
    const [rows, uses] = await Promise.all([this.repos.resources.list(t.id, 'port'), this.uses(t.id)]);
    const ports = rows.map((r) => ({ port: Number(r.spec.port), name: r.name, usedIn: usedIn(uses, `port:${r.name}`) })).sort((a, b) => a.port - b.port);
    return { usedports: ports.map((p) => p.port), ports };
  }

  async get(actor: MaybeActor, input: { tenant: string; kind: ResourceKind; name: string; reveal: boolean }): Promise<ResourceView> {
    const who = this.signedIn(actor, 'see resources');
    const t = await this.tenant(who, input.tenant, input.reveal ? 'admin' : 'plain', input.reveal ? 'see secret values' : 'see its resources');
    const r = await this.repos.resources.get(t.id, input.kind, input.name);
    if (!r) throw notFound(`${input.kind} ${input.name} of tenant ${t.name}`);
    return this.view(t.name, r, input.reveal && t.manages, await this.uses(t.id));
  }

  async register(actor: MaybeActor, input: { tenant: string; kind: ResourceKind; name: string; body: unknown }): Promise<ResourceView> {
    const who = this.signedIn(actor, 'register resources');
    const t = await this.tenant(who, input.tenant, 'admin', 'register resources');
    const parts = this.split(input.kind, input.body);
    const r = await this.repos.resources.add({ tenantId: t.id, kind: input.kind, name: input.name, ...parts, createdBy: who.name });
    if (r === 'name-taken') throw new AppError('CONFLICT', `Tenant ${t.name} already has a ${input.kind} ${input.name}; update it instead.`);
    if (r === 'claim-taken') throw taken(input.kind, parts.claim!);
    return this.view(t.name, r, false, new Map());
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
    return this.view(t.name, r, false, await this.uses(t.id));
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

function usedIn(uses: Uses, ref: string): ResourceUse['usedIn'] {
  return (uses.get(ref) ?? []).map((u) => ({ service: u.service, environment: u.at?.environment ?? null })).sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
}

function taken(kind: string, claim: string): AppError {
  const what = claim.slice(claim.indexOf(':') + 1);
  return new AppError('CONFLICT', `${kind === 'port' ? 'Port' : 'Domain'} ${what} is registered already (by this or another tenant).`, { details: { restCode: 'ResourceTaken' } });
}
