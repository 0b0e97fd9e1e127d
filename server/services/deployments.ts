/**
 * Axebow services (§5.9) over Keelson's model: a tenant's service is a
 * claim in one of its policy namespaces, acting for the user who creates
 * it; an environment named at creation becomes the claim's `target` label
 * (its cluster, and its Kubernetes namespace when it has one). Every write
 * goes through the policy service (authorisation, validation, one
 * generation) and becomes a Keelson revision that is accepted or rejected
 * like any other — this service adds addressing, not rules.
 */
import { stringify } from 'yaml';
import type { Claim } from '../engine/model/kinds';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import type { ClaimService } from './claims';
import type { CreateServiceInput, ServiceRevision, ServiceSummary, ServiceWrite } from './deployments.types';
import { AppError, notFound, unauthorized } from './errors';
import type { PolicyService } from './policy';
import type { ResolutionService } from './resolution';
import type { ClaimView } from './resolution.types';
import type { RevisionService } from './revisions';
import type { EstateService } from './estate';
import { toPolicyInput } from './resolution';
import { loadObjects } from '../engine/model/validate';
import type { DecideResult } from './revisions.types';

/** How far back a service's history looks (generations). */
const HISTORY_DEPTH = 2000;

export class DeploymentService {
  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
    private readonly policy: PolicyService,
    private readonly resolution: ResolutionService,
    private readonly claims: ClaimService,
    private readonly revisions: RevisionService,
    private readonly estate: EstateService,
  ) {}

  private signedIn(actor: MaybeActor, what: string): Actor {
    if (!actor) throw unauthorized(what);
    return actor;
  }

  /** The tenant and its namespaces; members and domain admins only. */
  private async tenant(actor: Actor, name: string, what: string): Promise<{ id: number; name: string; namespaces: string[] }> {
    const t = await this.repos.tenants.byName(name.toLowerCase());
    if (!t) throw notFound(`Tenant ${name}`);
    const member = (await this.repos.tenants.members(t.id)).some((m) => m.user === actor.name.toLowerCase());
    if (!member && !(await this.access.isDomainAdmin(actor))) throw new AppError('FORBIDDEN', `Only members of tenant ${t.name} may ${what}.`);
    return { id: t.id, name: t.name, namespaces: (await this.repos.tenants.namespaces(t.id)).map((n) => n.namespace) };
  }

  /** The claim of a service: in one of the tenant's namespaces (the first that has it). */
  private async claimOf(t: { name: string; namespaces: string[] }, name: string) {
    for (const namespace of t.namespaces) {
      const o = await this.repos.policy.getObject({ kind: 'claim', namespace, name });
      if (o) return o;
    }
    throw notFound(`Service ${name} of tenant ${t.name}`);
  }

  async list(actor: MaybeActor, tenant: string): Promise<ServiceSummary[]> {
    const who = this.signedIn(actor, 'see services');
    const t = await this.tenant(who, tenant, 'see its services');
    const view = await this.resolution.get(who);
    const outcomes = new Map(view.state.claims.map((c) => [`${c.namespace}/${c.name}`, c]));
    const roots = new Map(view.state.instances.map((i) => [i.key, i]));
    const out: ServiceSummary[] = [];
    for (const namespace of t.namespaces) {
      for (const o of await this.repos.policy.listObjects({ kind: 'claim', namespace })) {
        const spec = o.spec as Claim;
        const c = outcomes.get(`${o.namespace}/${o.name}`);
        const root = c?.instance ? roots.get(c.instance) : undefined;
        out.push({
          name: o.name,
          namespace: o.namespace,
          user: spec.user,
          service: spec.service,
          status: c?.status ?? 'unresolved',
          errors: c?.errors ?? [],
          instances: c?.instances.length ?? 0,
          target: root ? { cluster: root.target.cluster, namespace: root.target.namespace } : null,
        });
      }
    }
    return out.sort((a, b) => a.name.localeCompare(b.name) || a.namespace.localeCompare(b.namespace));
  }

  async get(actor: MaybeActor, input: { tenant: string; name: string }): Promise<ClaimView> {
    const who = this.signedIn(actor, 'see services');
    const t = await this.tenant(who, input.tenant, 'see its services');
    const o = await this.claimOf(t, input.name);
    return this.claims.get(who, { namespace: o.namespace, name: o.name });
  }

  /** The claim text for a new service, in the caller's name. */
  private async claimText(who: Actor, t: { id: number; name: string; namespaces: string[] }, name: string, input: CreateServiceInput): Promise<string> {
    const namespace = input.namespace ?? t.namespaces[0];
    if (!namespace) throw new AppError('CONFLICT', `Tenant ${t.name} has no policy namespace yet: an operator grants one first.`);
    if (!t.namespaces.includes(namespace)) throw new AppError('FORBIDDEN', `Namespace ${namespace} does not belong to tenant ${t.name} (its namespaces: ${t.namespaces.join(', ')}).`);
    const labels: Record<string, string> = { ...input.labels };
    if (input.environment) {
      const [account, environment] = input.environment.split('/') as [string, string];
      const acc = await this.repos.estate.account(t.id, account);
      const env = acc && (await this.repos.estate.environment(acc.id, environment));
      if (!env) throw notFound(`Environment ${input.environment} of tenant ${t.name}`);
      const cluster = env.cluster.startsWith('system/') ? env.cluster.slice('system/'.length) : env.cluster;
      // Aptomi's target label: `cluster` or `cluster.namespace`.
      labels.target = env.k8sNamespace ? `${cluster}.${env.k8sNamespace}` : cluster;
    }
    const claim = { kind: 'claim', metadata: { namespace, name }, user: who.name, service: input.service, ...(Object.keys(labels).length ? { labels } : {}) };
    return stringify(claim);
  }

  /** Create a service: a claim in the caller's name; with `dryrun`, the revision it would make, and nothing written. */
  async create(actor: MaybeActor, input: { tenant: string; name: string; dryrun: boolean; accept: boolean } & CreateServiceInput): Promise<ServiceWrite> {
    const who = this.signedIn(actor, 'create services');
    const t = await this.tenant(who, input.tenant, 'create services');
    for (const namespace of t.namespaces) {
      if (await this.repos.policy.getObject({ kind: 'claim', namespace, name: input.name })) {
        throw new AppError('CONFLICT', `Tenant ${t.name} already has a service ${input.name} (${namespace}); update it with a new revision instead.`);
      }
    }
    const text = await this.claimText(who, t, input.name, input);
    const admission = input.environment ? await this.admission(t, input.environment, text) : undefined;
    if (input.dryrun) return { dryrun: true, preview: await this.revisions.preview(who, { text }), ...(admission ? { admission } : {}) };
    if (admission && !admission.ok) {
      const what = admission.over.map((o) => `${o.dimension}: ${o.usage} needed, ${o.mark} allowed`).join('; ');
      throw new AppError('LIMIT_EXCEEDED', `Service ${input.name} would take environment ${input.environment} over its marks (${what}).`, {
        details: { environment: input.environment, over: admission.over },
      });
    }
    const w = await this.policy.apply(who, { text, baseGeneration: await this.repos.policy.head(), message: `service ${input.name} of tenant ${t.name} (API)`, accept: input.accept });
    return { dryrun: false, generation: w.generation, revision: await this.revisions.byGeneration(who, w.generation, { wait: true }) };
  }

  /**
   * The environment's marks against what the tenant's services would use
   * there with this claim added (Axebow: usage − cost(current) + cost(new)
   * ≤ marks, per dimension), resolved like a preview.
   */
  private async admission(t: { id: number }, environment: string, text: string) {
    const env = await this.estate.environmentFor(t.id, environment);
    if (!env) throw notFound(`Environment ${environment}`);
    const added = loadObjects(text).objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }));
    const current = (await this.repos.policy.listObjects()).map(toPolicyInput);
    const state = await this.resolution.resolveDraft([...current, ...added]);
    const usage = await this.estate.usageIn(state, t.id, env);
    const over = this.estate.over(env.marks, usage);
    return { environment, ok: over.length === 0, usage, over };
  }

  /** Accept or reject the revision of a service (its section in the claim's namespace). */
  async decide(actor: MaybeActor, input: { tenant: string; name: string; revision: number; accept: boolean }): Promise<DecideResult> {
    const who = this.signedIn(actor, 'decide revisions');
    const t = await this.tenant(who, input.tenant, 'decide its revisions');
    const namespace = await this.namespaceOfService(t, input.name);
    const history = await this.history(who, { tenant: input.tenant, name: input.name });
    if (!history.some((h) => h.id === input.revision)) {
      throw notFound(`Revision ${input.revision} of service ${input.name}`);
    }
    // The sections this service's claim touches: Aptomi instances belong to
    // the namespace of the service they instantiate, which may not be the
    // claim's own.
    const view = await this.revisions.get(who, input.revision);
    const ref = `${namespace}/${input.name}`;
    const sections = [...new Set((view.plan.actions as { claim?: string; namespace: string }[]).filter((a) => a.claim === ref).map((a) => a.namespace))].sort();
    if (sections.length === 0) throw new AppError('CONFLICT', `Revision ${input.revision} changes nothing that service ${input.name} runs: there is nothing of it to accept or reject.`);
    // Rejecting one section rejects the revision; accepting takes every section the service touches.
    if (!input.accept) return this.revisions.decide(who, { revisionId: input.revision, namespace: sections[0]!, decision: 'reject' });
    let result: DecideResult | undefined;
    for (const section of sections) result = await this.revisions.decide(who, { revisionId: input.revision, namespace: section, decision: 'accept' });
    return result!;
  }

  /** The namespace of a service: where its claim is, or was (a removed service keeps its history). */
  private async namespaceOfService(t: { name: string; namespaces: string[] }, name: string): Promise<string> {
    for (const namespace of t.namespaces) if (await this.repos.policy.getObject({ kind: 'claim', namespace, name })) return namespace;
    for (const g of await this.repos.policy.listGenerations({ limit: HISTORY_DEPTH })) {
      const c = g.changes.find((x) => x.kind === 'claim' && x.name === name && t.namespaces.includes(x.namespace));
      if (c) return c.namespace;
    }
    throw notFound(`Service ${name} of tenant ${t.name}`);
  }

  /** Every generation that changed the service's claim, newest first, with its revision. */
  async history(actor: MaybeActor, input: { tenant: string; name: string }): Promise<ServiceRevision[]> {
    const who = this.signedIn(actor, 'see service history');
    const t = await this.tenant(who, input.tenant, 'see its services');
    const out: ServiceRevision[] = [];
    for (const g of await this.repos.policy.listGenerations({ limit: HISTORY_DEPTH })) {
      const c = g.changes.find((x) => x.kind === 'claim' && x.name === input.name && t.namespaces.includes(x.namespace));
      if (!c) continue;
      const rev = await this.revisions.byGeneration(who, g.generation);
      out.push({ id: rev.id, generation: g.generation, status: rev.status, author: g.author, message: g.message, createdAt: g.createdAt, change: c.op });
    }
    if (out.length === 0) throw notFound(`Service ${input.name} of tenant ${t.name}`);
    return out;
  }

  /** Remove a service: delete its claim (a new generation and revision). */
  async remove(actor: MaybeActor, input: { tenant: string; name: string; accept: boolean }): Promise<ServiceWrite> {
    const who = this.signedIn(actor, 'remove services');
    const t = await this.tenant(who, input.tenant, 'remove services');
    const o = await this.claimOf(t, input.name);
    const w = await this.policy.delete(who, {
      ids: [{ kind: 'claim', namespace: o.namespace, name: o.name }],
      baseGeneration: await this.repos.policy.head(),
      message: `remove service ${input.name} of tenant ${t.name} (API)`,
      accept: input.accept,
    });
    return { dryrun: false, generation: w.generation, revision: await this.revisions.byGeneration(who, w.generation, { wait: true }) };
  }
}

