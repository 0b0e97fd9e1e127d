/**
 * Accounts and deployment environments of tenants (Axebow §5.4–5.5).
 *
 * An environment is a tenant's slice of one Keelson cluster: the cluster
 * must admit one of the tenant's policy namespaces (its `allowedNamespaces`),
 * and the environment's marks are the tenant's quota there. An account
 * caps the sum of its environments' marks (409 MarksExceedParent), so
 * marks can be handed down without over-committing. Usage is what the
 * newest accepted revision deploys in the tenant's namespaces on that
 * cluster — Axebow's "cost of the accepted revisions of its services".
 *
 * Owners and admins of the tenant manage; every member reads; domain
 * admins (operators) may do everything.
 */
import { SYSTEM_NAMESPACE, type Claim, type Cluster } from '../engine/model/kinds';
import { allowedKubernetesNamespaces, globMatch, millisToVcpu, parseBytes, parseCpuMillis, tenantUsage, type UsageAsk } from '../engine/plan';
import type { DesiredState } from '../engine/state';
import type { AccountRow, EnvironmentRow, Marks } from '../repo/estate.types';
import { ROLE_RANK, type TenantRole } from '../repo/tenants.types';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import type { AccountInput, AccountUpdateInput, AccountView, EnvironmentInput, EnvironmentUpdateInput, EnvironmentView } from './estate.types';
import type { RevisionService } from './revisions';

type Dimension = keyof Marks;
/** Usage per mark dimension, in integer units (millicores, bytes, counts). */
export type Usage = Record<Dimension, number>;
const DIMENSIONS: readonly Dimension[] = ['vcpu', 'memory', 'storage', 'instances', 'services'];

/** A mark in integer units (millicores, bytes, counts), so sums do not drift. */
export function units(d: Dimension, v: number | string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (d === 'vcpu') {
    const r = parseCpuMillis(v);
    return r.ok ? r.value : undefined;
  }
  if (d === 'memory' || d === 'storage') {
    const r = parseBytes(v);
    return r.ok ? r.value : undefined;
  }
  return typeof v === 'number' ? v : Number(v);
}

/** Dimensions where `children` together ask for more than `parent` allows. */
export function overParent(parent: Marks, children: readonly Marks[]): { dimension: Dimension; mark: number; requested: number }[] {
  const out: { dimension: Dimension; mark: number; requested: number }[] = [];
  for (const d of DIMENSIONS) {
    const cap = units(d, parent[d]);
    if (cap === undefined) continue;
    // A child without a mark of its own asks for nothing here: it is bounded by the parent's remainder (marksOf).
    const requested = children.reduce((sum, c) => sum + (units(d, c[d]) ?? 0), 0);
    if (requested > cap) out.push({ dimension: d, mark: cap, requested });
  }
  return out;
}

/** The mark of a child that has none of its own: what the parent's mark leaves after its siblings' marks. */
function remainder(d: Dimension, parent: Marks, siblings: readonly Marks[]): number | undefined {
  const cap = units(d, parent[d]);
  if (cap === undefined) return undefined;
  return Math.max(0, cap - siblings.reduce((sum, s) => sum + (units(d, s[d]) ?? 0), 0));
}

/** Aptomi's target label for an environment: `cluster` or `cluster.namespace`. */
export function environmentLabel(env: { cluster: string; k8sNamespace: string | null }): string {
  const cluster = env.cluster.startsWith('system/') ? env.cluster.slice('system/'.length) : env.cluster;
  return env.k8sNamespace ? `${cluster}.${env.k8sNamespace}` : cluster;
}

/**
 * The environment a claim is placed in: the one its `environment` label
 * names, or — for a claim written by hand, naming only its `target` — the
 * one environment with that target (none when several have it).
 */
export function environmentOfLabels<E extends { ref: string; env: Pick<EnvironmentRow, 'cluster' | 'k8sNamespace'> }>(all: readonly E[], labels: Record<string, string> | null | undefined): E | undefined {
  if (labels?.environment) return all.find((e) => e.ref === labels.environment);
  const matching = labels?.target ? all.filter((e) => environmentLabel(e.env) === labels.target) : [];
  return matching.length === 1 ? matching[0] : undefined;
}

export class EstateService {
  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
    private readonly revisions: RevisionService,
  ) {}

  private signedIn(actor: MaybeActor, what: string): Actor {
    if (!actor) throw unauthorized(what);
    return actor;
  }

  /** The tenant, and the caller's role in it ('operator' for a domain admin who is not a member). */
  private async tenantFor(actor: Actor, name: string, need: TenantRole, what: string) {
    const tenant = await this.repos.tenants.byName(name.toLowerCase());
    const operator = await this.access.isDomainAdmin(actor);
    if (!tenant) throw notFound(`Tenant ${name}`);
    const member = (await this.repos.tenants.members(tenant.id)).find((m) => m.user === actor.name.toLowerCase());
    if (operator) return tenant;
    if (!member) throw new AppError('FORBIDDEN', `Only members of tenant ${tenant.name} may ${what}.`);
    if (ROLE_RANK[member.role as TenantRole] < ROLE_RANK[need]) {
      throw new AppError('FORBIDDEN', `Only ${need === 'admin' ? 'owners and admins' : 'owners'} of tenant ${tenant.name} may ${what} (you are ${member.role}).`);
    }
    return tenant;
  }

  private async accountOf(tenantId: number, tenant: string, name: string): Promise<AccountRow> {
    const a = await this.repos.estate.account(tenantId, name);
    if (!a) throw notFound(`Account ${name} of tenant ${tenant}`);
    return a;
  }

  private async accountView(tenant: string, a: AccountRow): Promise<AccountView> {
    const envs = await this.repos.estate.environments(a.id);
    return { tenant, name: a.name, marks: a.marks as AccountView['marks'], labels: a.labels, environments: envs.map((e) => e.name), createdBy: a.createdBy, createdAt: a.createdAt };
  }

  async listAccounts(actor: MaybeActor, tenant: string): Promise<AccountView[]> {
    const who = this.signedIn(actor, 'see accounts');
    const t = await this.tenantFor(who, tenant, 'plain', 'see its accounts');
    return Promise.all((await this.repos.estate.accounts(t.id)).map((a) => this.accountView(t.name, a)));
  }

  async getAccount(actor: MaybeActor, input: { tenant: string; account: string }): Promise<AccountView> {
    const who = this.signedIn(actor, 'see accounts');
    const t = await this.tenantFor(who, input.tenant, 'plain', 'see its accounts');
    return this.accountView(t.name, await this.accountOf(t.id, t.name, input.account));
  }

  async addAccount(actor: MaybeActor, input: { tenant: string; account: string } & AccountInput): Promise<AccountView> {
    const who = this.signedIn(actor, 'add accounts');
    const t = await this.tenantFor(who, input.tenant, 'admin', 'add accounts');
    const row = await this.repos.estate.addAccount({ tenantId: t.id, name: input.account, marks: input.marks, labels: input.labels, createdBy: who.name });
    if (!row) throw new AppError('CONFLICT', `Tenant ${t.name} already has an account ${input.account}.`);
    return this.accountView(t.name, row);
  }

  async updateAccount(actor: MaybeActor, input: { tenant: string; account: string } & AccountUpdateInput): Promise<AccountView> {
    const who = this.signedIn(actor, 'change accounts');
    const t = await this.tenantFor(who, input.tenant, 'admin', 'change accounts');
    const a = await this.accountOf(t.id, t.name, input.account);
    if (input.marks) {
      const over = overParent(input.marks, (await this.repos.estate.environments(a.id)).map((e) => e.marks));
      if (over.length > 0) throw marksExceedParent(`account ${a.name}`, over);
    }
    const row = await this.repos.estate.updateAccount(a.id, { marks: input.marks, labels: input.labels });
    return this.accountView(t.name, row ?? a);
  }

  async removeAccount(actor: MaybeActor, input: { tenant: string; account: string; purge: boolean }): Promise<{ ok: true }> {
    const who = this.signedIn(actor, 'remove accounts');
    const t = await this.tenantFor(who, input.tenant, 'owner', 'remove accounts');
    const a = await this.accountOf(t.id, t.name, input.account);
    const envs = await this.repos.estate.environments(a.id);
    if (envs.length > 0 && !input.purge) {
      throw new AppError('CONFLICT', `Account ${a.name} still has environments (${envs.map((e) => e.name).join(', ')}); remove them first, or purge the account with ?purge=true.`);
    }
    await this.repos.estate.removeAccount(a.id);
    return { ok: true };
  }

  // ------------------------------------------------------------ environments

  private async clusterOf(ref: string): Promise<{ namespace: string; name: string; spec: Cluster } | undefined> {
    const [ns, name] = ref.includes('/') ? (ref.split('/', 2) as [string, string]) : [SYSTEM_NAMESPACE, ref];
    const o = await this.repos.policy.getObject({ kind: 'cluster', namespace: ns, name });
    return o && { namespace: o.namespace, name: o.name, spec: o.spec as Cluster };
  }

  /** What the tenant's services placed in an environment use in a desired state (engine/plan/usage.ts). */
  async usageIn(state: DesiredState | null, tenantId: number, env: EnvironmentRow, counted?: string): Promise<Usage> {
    return tenantUsage(state, await this.usageAsk(tenantId, env, counted));
  }

  /**
   * The question `usageIn` answers, with what it needs from the database, for
   * a state measured elsewhere. Environments may share a cluster: each counts
   * the services placed in it, so the tenant's other claims on that cluster
   * are listed as `elsewhere`. A claim not yet written (a create being
   * weighed for this environment) is counted here, and so is `counted`: a
   * claim being admitted here whose stored labels may still say elsewhere
   * (a service moving between environments).
   */
  async usageAsk(tenantId: number, env: EnvironmentRow, counted?: string): Promise<UsageAsk> {
    const [rows, cluster, all] = await Promise.all([this.repos.tenants.namespaces(tenantId), this.clusterOf(env.cluster), this.environmentsOf(tenantId)]);
    const namespaces = rows.map((n) => n.namespace);
    const ask: UsageAsk = { namespaces, cluster: env.cluster, k8sNamespace: env.k8sNamespace, ...(cluster ? { clusterRef: cluster } : {}) };
    // Alone on its cluster, the environment's usage is the tenant's there: no claims to read.
    if (!all.some((e) => e.env.id !== env.id && e.env.cluster === env.cluster)) return ask;
    const elsewhere: string[] = [];
    for (const namespace of namespaces) {
      for (const o of await this.repos.policy.listObjects({ kind: 'claim', namespace })) {
        const ref = `${o.namespace}/${o.name}`;
        if (ref !== counted && environmentOfLabels(all, (o.spec as Claim).labels)?.env.id !== env.id) elsewhere.push(ref);
      }
    }
    return { ...ask, elsewhere };
  }

  /**
   * The marks an environment is held to: its own, and where it has none in
   * a dimension its account marks, what the account's mark leaves after the
   * other environments' marks (Axebow: an omitted mark is bounded by the parent).
   */
  async marksOf(account: AccountRow, env: EnvironmentRow): Promise<Marks> {
    const envs = await this.repos.estate.environments(account.id);
    const siblings = envs.filter((e) => e.id !== env.id).map((e) => e.marks);
    const out: Marks = { ...env.marks };
    for (const d of DIMENSIONS) {
      const left = env.marks[d] === undefined ? remainder(d, account.marks, siblings) : undefined;
      if (left !== undefined) (out as Record<Dimension, number | string | undefined>)[d] = d === 'vcpu' ? `${left}m` : left;
    }
    return out;
  }

  /** Marks the usage goes over, in integer units. */
  over(marks: Marks, usage: Usage): { dimension: Dimension; mark: number; usage: number }[] {
    return DIMENSIONS.flatMap((d) => {
      const cap = units(d, marks[d]);
      return cap !== undefined && usage[d] > cap ? [{ dimension: d, mark: cap, usage: usage[d] }] : [];
    });
  }

  /** Every environment of the tenant, as `account/environment` with its row. */
  async environmentsOf(tenantId: number): Promise<{ ref: string; account: AccountRow; env: EnvironmentRow }[]> {
    const accounts = await this.repos.estate.accounts(tenantId);
    // Each account's environments read side by side: on a shared database, one wait rather than one per account.
    const envs = await Promise.all(accounts.map((a) => this.repos.estate.environments(a.id)));
    return accounts.flatMap((account, i) => envs[i]!.map((env) => ({ ref: `${account.name}/${env.name}`, account, env })));
  }

  /** The tenant's environment named `account/environment`, for a service being placed there. */
  async environmentFor(tenantId: number, ref: string): Promise<EnvironmentRow | undefined> {
    const [account, environment] = ref.split('/') as [string, string];
    const acc = await this.repos.estate.account(tenantId, account);
    return acc && this.repos.estate.environment(acc.id, environment);
  }

  private async environmentView(tenant: { id: number; name: string }, account: AccountRow, e: EnvironmentRow): Promise<EnvironmentView> {
    const state = await this.revisions.acceptedState();
    const ask = await this.usageAsk(tenant.id, e);
    const u = tenantUsage(state, ask);
    // The tenant's whole use of the cluster, all its environments there and services placed in none.
    const whole = tenantUsage(state, { ...ask, k8sNamespace: null, elsewhere: [] });
    const over = this.over(await this.marksOf(account, e), u).map((o) => o.dimension);
    const show = (x: Usage) => ({ vcpu: millisToVcpu(x.vcpu), memory: x.memory, storage: x.storage, instances: x.instances, services: x.services });
    return {
      tenant: tenant.name,
      account: account.name,
      name: e.name,
      cluster: e.cluster,
      namespace: e.k8sNamespace,
      marks: e.marks as EnvironmentView['marks'],
      labels: e.labels,
      meta: e.meta,
      usage: show(u),
      clusterUsage: show(whole),
      status: { state: over.length > 0 ? 'over-marks' : 'ok', over },
      createdBy: e.createdBy,
      createdAt: e.createdAt,
    };
  }

  private async environmentOf(accountId: number, account: string, name: string): Promise<EnvironmentRow> {
    const e = await this.repos.estate.environment(accountId, name);
    if (!e) throw notFound(`Environment ${name} of account ${account}`);
    return e;
  }

  async listEnvironments(actor: MaybeActor, input: { tenant: string; account: string }): Promise<EnvironmentView[]> {
    const who = this.signedIn(actor, 'see environments');
    const t = await this.tenantFor(who, input.tenant, 'plain', 'see its environments');
    const a = await this.accountOf(t.id, t.name, input.account);
    return Promise.all((await this.repos.estate.environments(a.id)).map((e) => this.environmentView(t, a, e)));
  }

  /** Every environment of the tenant, each with its own usage and its cluster's total (the console's tenant page). */
  async tenantEnvironments(actor: MaybeActor, input: { tenant: string }): Promise<EnvironmentView[]> {
    const who = this.signedIn(actor, 'see environments');
    const t = await this.tenantFor(who, input.tenant, 'plain', 'see its environments');
    return Promise.all((await this.environmentsOf(t.id)).map(({ account, env }) => this.environmentView(t, account, env)));
  }

  async getEnvironment(actor: MaybeActor, input: { tenant: string; account: string; environment: string }): Promise<EnvironmentView> {
    const who = this.signedIn(actor, 'see environments');
    const t = await this.tenantFor(who, input.tenant, 'plain', 'see its environments');
    const a = await this.accountOf(t.id, t.name, input.account);
    return this.environmentView(t, a, await this.environmentOf(a.id, a.name, input.environment));
  }

  async createEnvironment(actor: MaybeActor, input: { tenant: string; account: string; environment: string } & EnvironmentInput): Promise<EnvironmentView> {
    const who = this.signedIn(actor, 'create environments');
    const t = await this.tenantFor(who, input.tenant, 'admin', 'create environments');
    const a = await this.accountOf(t.id, t.name, input.account);
    const cluster = await this.clusterOf(input.cluster);
    if (!cluster) throw notFound(`Cluster ${input.cluster}`);
    const namespaces = (await this.repos.tenants.namespaces(t.id)).map((n) => n.namespace);
    if (namespaces.length === 0) throw new AppError('CONFLICT', `Tenant ${t.name} has no policy namespace yet: an operator grants one first, and environments deploy what its namespaces hold.`);
    // The cluster must admit the tenant: one of its namespaces, in the Kubernetes namespace asked for.
    const admits = namespaces.some((ns) => {
      const allowed = allowedKubernetesNamespaces(cluster.spec, ns);
      if (allowed === null) return input.namespace === undefined || input.namespace === ns;
      return allowed.length > 0 && (input.namespace === undefined || allowed.some((p) => globMatch(p, input.namespace!)));
    });
    if (!admits) {
      throw new AppError('FORBIDDEN', `Cluster ${cluster.namespace}/${cluster.name} does not admit tenant ${t.name}'s namespaces (${namespaces.join(', ')})${input.namespace ? ` in Kubernetes namespace ${input.namespace}` : ''}; its allowedNamespaces decide, and a domain admin sets them.`);
    }
    const siblings = (await this.repos.estate.environments(a.id)).map((e) => e.marks);
    const over = overParent(a.marks, [...siblings, input.marks]);
    if (over.length > 0) throw marksExceedParent(`account ${a.name}`, over);
    const row = await this.repos.estate.addEnvironment({
      accountId: a.id,
      name: input.environment,
      cluster: `${cluster.namespace}/${cluster.name}`,
      k8sNamespace: input.namespace ?? null,
      marks: input.marks,
      labels: input.labels,
      meta: input.meta,
      createdBy: who.name,
    });
    if (!row) throw new AppError('CONFLICT', `Account ${a.name} already has an environment ${input.environment}.`);
    return this.environmentView(t, a, row);
  }

  async updateEnvironment(actor: MaybeActor, input: { tenant: string; account: string; environment: string } & EnvironmentUpdateInput): Promise<EnvironmentView> {
    const who = this.signedIn(actor, 'change environments');
    const t = await this.tenantFor(who, input.tenant, 'admin', 'change environments');
    const a = await this.accountOf(t.id, t.name, input.account);
    const e = await this.environmentOf(a.id, a.name, input.environment);
    if (input.marks) {
      const siblings = (await this.repos.estate.environments(a.id)).filter((x) => x.id !== e.id).map((x) => x.marks);
      const over = overParent(a.marks, [...siblings, input.marks]);
      if (over.length > 0) throw marksExceedParent(`account ${a.name}`, over);
    }
    const row = await this.repos.estate.updateEnvironment(e.id, { marks: input.marks, labels: input.labels, meta: input.meta });
    return this.environmentView(t, a, row ?? e);
  }

  async removeEnvironment(actor: MaybeActor, input: { tenant: string; account: string; environment: string }): Promise<{ ok: true }> {
    const who = this.signedIn(actor, 'remove environments');
    const t = await this.tenantFor(who, input.tenant, 'admin', 'remove environments');
    const a = await this.accountOf(t.id, t.name, input.account);
    const e = await this.environmentOf(a.id, a.name, input.environment);
    await this.repos.estate.removeEnvironment(e.id);
    return { ok: true };
  }
}

function marksExceedParent(parent: string, over: { dimension: string; mark: number; requested: number }[]): AppError {
  const what = over.map((o) => `${o.dimension}: ${o.requested} requested, ${o.mark} allowed`).join('; ');
  return new AppError('CONFLICT', `The marks would exceed those of ${parent} (${what}).`, { details: { restCode: 'MarksExceedParent', over } });
}
