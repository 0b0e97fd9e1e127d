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
import type { EnvironmentRow, Marks } from '../repo/estate.types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import type { ClaimService } from './claims';
import type { BundleObjects, CreateServiceInput, ServiceLogs, ServiceRevision, ServiceSummary, ServiceWrite } from './deployments.types';
import { AppError, notFound, unauthorized } from '../errors';
import type { PolicyService } from './policy';
import type { ResolutionService } from './resolution';
import type { ClaimView } from './resolution.types';
import type { RevisionService } from './revisions';
import type { EstateService } from './estate';
import { channelsOf, type LinkService } from './links';
import { toPolicyInput } from './resolution';
import type { PolicyObjectInput } from '../engine/resolve';
import { serviceSummaries } from './service-summaries';
import { loadObjects } from '../engine/model/validate';
import type { ByGenerationResult, DecideResult } from './revisions.types';
import type { DesiredState } from '../engine/state';
import type { Candidate, NeededResource, Selection } from '../engine/axebow/stage';
import { millisToVcpu, type UsageAsk } from '../engine/plan';
import { environmentLabel, environmentOfLabels, units, type Usage } from './estate';
import { GroupCommit } from './group-commit';
import { readBundle } from './bundle';
import { transition, type RevisionStatus } from '../engine/plan/revision-state';
import { restartLabelFor } from '../engine/plan/restart';
import { isResolverFailure, type Resolver } from '../resolver';

type PendingCreate = { who: Actor; t: { id: number; name: string; namespaces: string[] }; name: string; text: string; extra?: BundleObjects; accept: boolean; selection?: Selection };

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

function serviceExists(t: { name: string }, name: string, namespace?: string): AppError {
  return new AppError('CONFLICT', `Tenant ${t.name} already has a service ${name}${namespace ? ` (${namespace})` : ''}; update it with a new revision instead.`);
}

type Admission = { environment: string; ok: boolean; usage: Usage; over: { dimension: string; mark: number; usage: number }[] };

/** Environments weighed when a service names none (each costs a resolution). */
const MAX_CANDIDATES = 32;
/** Writes a create tries when other writers keep moving the policy head. */
const CREATE_ATTEMPTS = 5;
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
    private readonly links: LinkService,
    private readonly resolver: Pick<Resolver, 'run'>,
  ) {}

  private signedIn(actor: MaybeActor, what: string): Actor {
    if (!actor) throw unauthorized(what);
    return actor;
  }

  /** The tenant and its namespaces; members and domain admins only. */
  private async tenant(actor: Actor, name: string, what: string): Promise<{ id: number; name: string; namespaces: string[] }> {
    // One read authorises the caller (the tenant, their role in it, its namespaces); cached where this process is the only writer.
    const t = await this.repos.tenants.forReader(name.toLowerCase(), actor.name.toLowerCase());
    if (!t) throw notFound(`Tenant ${name}`);
    if (t.role === null && !(await this.access.isDomainAdmin(actor))) throw new AppError('FORBIDDEN', `Only members of tenant ${t.name} may ${what}.`);
    return { id: t.id, name: t.name, namespaces: t.namespaces };
  }

  /**
   * `tenant()`, with the policy head read beside it for an answer that reads
   * the head next (the newest resolution): on a shared database the head
   * read is then shared with the rest of the request (fresh-reads.ts), and
   * the two cost one wait, not two in a row. The head is a number anyone
   * signed in may see: read before the membership check, it tells a refused
   * caller nothing (and it is not in the refusal).
   */
  private async tenantAndHead(actor: Actor, name: string, what: string): Promise<{ id: number; name: string; namespaces: string[] }> {
    const [t] = await Promise.all([this.tenant(actor, name, what), this.repos.policy.head()]);
    return t;
  }

  /** The claim of a service: in one of the tenant's namespaces (the first that has it). */
  private async claimOf(t: { name: string; namespaces: string[] }, name: string) {
    for (const namespace of t.namespaces) {
      const o = await this.repos.policy.getObject({ kind: 'claim', namespace, name });
      if (o) return o;
    }
    throw notFound(`Service ${name} of tenant ${t.name}`);
  }

  async list(actor: MaybeActor, tenant: string): Promise<readonly ServiceSummary[]> {
    const who = this.signedIn(actor, 'see services');
    const t = await this.tenantAndHead(who, tenant, 'see its services');
    // The services are the claims the newest generation's resolution holds (every claim has an outcome there).
    return serviceSummaries((await this.resolution.get(who)).state, t.namespaces);
  }

  async get(actor: MaybeActor, input: { tenant: string; name: string }, opts: { trace?: boolean } = {}): Promise<ClaimView> {
    const who = this.signedIn(actor, 'see services');
    const t = await this.tenantAndHead(who, input.tenant, 'see its services');
    const o = await this.claimOf(t, input.name);
    return this.claims.get(who, { namespace: o.namespace, name: o.name, kind: 'claim' }, opts);
  }

  /** The replicas the service asks for: `replicas` (every role) and `replicas-<role>` labels (Axebow's #Scale). */
  async scaleOf(actor: MaybeActor, input: { tenant: string; name: string }): Promise<Record<string, number>> {
    const who = this.signedIn(actor, 'see services');
    const t = await this.tenant(who, input.tenant, 'see its services');
    const labels = ((await this.claimOf(t, input.name)).spec as Claim).labels ?? {};
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(labels)) {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) continue;
      if (k === 'replicas') out['*'] = n;
      else if (k.startsWith('replicas-')) out[k.slice('replicas-'.length)] = n;
    }
    return out;
  }

  /** The service's channels, from its `channel-<name>` labels; a duplex channel is both. */
  async channelsOf(actor: MaybeActor, input: { tenant: string; name: string }): Promise<{ client: Record<string, { duplex: boolean }>; server: Record<string, { duplex: boolean }> }> {
    const who = this.signedIn(actor, 'see services');
    const t = await this.tenant(who, input.tenant, 'see its services');
    const out = { client: {} as Record<string, { duplex: boolean }>, server: {} as Record<string, { duplex: boolean }> };
    for (const [name, role] of channelsOf(((await this.claimOf(t, input.name)).spec as Claim).labels)) {
      if (role !== 'server') out.client[name] = { duplex: role === 'duplex' };
      if (role !== 'client') out.server[name] = { duplex: role === 'duplex' };
    }
    return out;
  }

  /**
   * A role of the service: Keelson's component of that name among the
   * instances its claim uses; each instance is addressed by its deploy name.
   */
  async role(actor: MaybeActor, input: { tenant: string; name: string; role: string; instance?: string }) {
    const who = this.signedIn(actor, 'see services');
    const t = await this.tenant(who, input.tenant, 'see its services');
    const o = await this.claimOf(t, input.name);
    const view = await this.claims.get(who, { namespace: o.namespace, name: o.name, kind: 'claim' }, { trace: false });
    const mine = view.instances.filter((i) => i.component === input.role && (input.instance === undefined || i.deployName === input.instance));
    if (mine.length === 0) throw notFound(input.instance ? `Instance ${input.instance} of role ${input.role} of service ${input.name}` : `Role ${input.role} of service ${input.name}`);
    const states = new Map((await this.repos.revisions.instanceStates(mine.map((i) => i.key))).map((x) => [x.key, x]));
    return {
      role: input.role,
      instances: mine.map((i) => ({
        id: i.deployName,
        key: i.key,
        cluster: `${i.target.clusterNamespace}/${i.target.cluster}`,
        namespace: i.target.namespace,
        code: i.code ? { type: i.code.type } : null,
        status: states.get(i.key)?.status ?? null,
        error: states.get(i.key)?.error ?? null,
      })),
    };
  }

  /**
   * Restart a role's instances, or one of them (Axebow §5.9.7, §5.9.9): a
   * new revision stamping the claim with a restart label (engine
   * plan/restart.ts), so the plan updates exactly those instances and the
   * apply rolls their workloads. It is accepted at once when the caller may
   * accept it — asking for a restart is the decision — and otherwise waits
   * like any revision.
   */
  async restart(actor: MaybeActor, input: { tenant: string; name: string; role: string; instance?: string; at?: Date }): Promise<ServiceWrite> {
    const who = this.signedIn(actor, 'restart services');
    const t = await this.tenant(who, input.tenant, 'restart services');
    const live = await this.claimOf(t, input.name);
    const view = await this.claims.get(who, { namespace: live.namespace, name: live.name, kind: 'claim' }, { trace: false });
    const mine = view.instances.filter((i) => i.component === input.role && i.code !== null && (input.instance === undefined || i.deployName === input.instance));
    if (mine.length === 0) {
      throw notFound(input.instance ? `Instance ${input.instance} of role ${input.role} of service ${input.name}` : `Role ${input.role} (with code to run) of service ${input.name}`);
    }
    const current = (await this.history(who, { tenant: input.tenant, name: input.name })).find((h) => h.id !== null && h.status !== 'rejected' && h.status !== 'superseded');
    if (!current) throw new AppError('CONFLICT', `Service ${input.name} has no revision yet: there is nothing running to restart.`);
    const { claim } = await this.base(who, t, input.tenant, input.name, current.id!);
    const old = claim.spec as Claim;
    const labels = { ...(old.labels ?? {}), [restartLabelFor(input.role, input.instance)]: (input.at ?? new Date()).toISOString() };
    const text = stringify({ kind: 'claim', metadata: { namespace: claim.namespace, name: claim.name }, user: old.user, service: old.service, labels });
    const what = input.instance ? `instance ${input.instance} of role ${input.role}` : `role ${input.role}`;
    return this.write(who, text, `restart ${what} of service ${input.name} of tenant ${t.name} (API)`, true);
  }

  /** The tenant's environment a claim's `target` label points at (none: the policy chose the cluster). */
  private async environmentOfClaim(t: { id: number }, labels: Record<string, string> | null | undefined) {
    return environmentOfLabels(await this.estate.environmentsOf(t.id), labels);
  }

  /**
   * Axebow's admission, again where a revision changes or is accepted: the
   * environment's marks against what the tenant's services use there in
   * the revision's desired state; 422 MarkExceeded when over.
   */
  /** `usage`: what the tenant uses on an environment in the state being admitted (a state at hand, or measured on the resolver). */
  private async assertWithinMarks(
    t: { id: number },
    service: string,
    labels: Record<string, string> | null | undefined,
    usage: DesiredState | ((env: EnvironmentRow) => Promise<Usage>),
    when: string,
    /** The claim (`ns/name`) being admitted: counted in the environment its labels here name. */
    claimRef?: string,
  ): Promise<void> {
    const placed = await this.environmentOfClaim(t, labels);
    if (!placed) return;
    const used = typeof usage === 'function' ? await usage(placed.env) : await this.estate.usageIn(usage, t.id, placed.env, claimRef);
    const over = this.estate.over(await this.estate.marksOf(placed.account, placed.env), used);
    if (over.length === 0) return;
    const what = describeOver(over);
    throw new AppError('LIMIT_EXCEEDED', `${when}, service ${service} would take environment ${placed.ref} over its marks (${what}).`, { details: { environment: placed.ref, over } });
  }

  /**
   * Marks admission of a changed claim: the policy with this claim in place
   * of its current one, resolved as a draft, against the marks of the
   * environment the claim names (nothing to check when it names none).
   */
  private async admitChange(t: { id: number }, service: string, claim: { kind: string; namespace: string; name: string; spec: unknown }, when: string): Promise<void> {
    const labels = (claim.spec as Claim).labels;
    if (!(await this.environmentOfClaim(t, labels))) return;
    const others = (await this.repos.policy.listObjects()).filter((o) => !(o.kind === 'claim' && o.namespace === claim.namespace && o.name === claim.name)).map(toPolicyInput);
    const state = await this.resolution.resolveDraft([...others, { kind: claim.kind, namespace: claim.namespace, name: claim.name, spec: claim.spec } as (typeof others)[number]]);
    await this.assertWithinMarks(t, service, labels, state, when, `${claim.namespace}/${claim.name}`);
  }

  /** Aptomi's target label for an environment (`account/environment`): `cluster` or `cluster.namespace`. */
  private async targetLabel(t: { id: number; name: string }, ref: string): Promise<string> {
    const env = await this.estate.environmentFor(t.id, ref);
    if (!env) throw notFound(`Environment ${ref} of tenant ${t.name}`);
    return environmentLabel(env);
  }

  /** The claim text for a new service, in the caller's name. */
  private async claimText(who: Actor, t: { id: number; name: string; namespaces: string[] }, name: string, input: CreateServiceInput): Promise<string> {
    const namespace = input.namespace ?? t.namespaces[0];
    if (!namespace) throw new AppError('CONFLICT', `Tenant ${t.name} has no policy namespace yet: an operator grants one first.`);
    if (!t.namespaces.includes(namespace)) throw new AppError('FORBIDDEN', `Namespace ${namespace} does not belong to tenant ${t.name} (its namespaces: ${t.namespaces.join(', ')}).`);
    const labels: Record<string, string> = { ...input.labels };
    if (input.environment) {
      labels.target = await this.targetLabel(t, input.environment);
      // Several environments may share a cluster: the claim names its own.
      labels.environment = input.environment;
    }
    const claim = { kind: 'claim', metadata: { namespace, name }, user: who.name, service: input.service, ...(Object.keys(labels).length ? { labels } : {}) };
    // The claim first: callers read it as the text's first object.
    return stringify(claim) + (input.extra?.text ?? '');
  }

  /**
   * Create a service from an Axebow bundle (a zip of YAML modules, ./bundle.ts):
   * its deployment's claim, with the objects the bundle carries inline
   * written in the same generation — then as any create.
   */
  async createFromBundle(
    actor: MaybeActor,
    input: { tenant: string; name: string; dryrun: boolean; accept: boolean; bundle: Uint8Array; environment?: string; meta?: Record<string, unknown> },
  ): Promise<ServiceWrite> {
    const who = this.signedIn(actor, 'create services');
    // Members only, asked before the archive is opened; its YAML is read as any policy text is (admission.ts).
    await this.tenant(who, input.tenant, 'create services');
    const d = await readBundle(input.bundle, input.name, who.name, (text, file) => this.policy.admission.admit(who, text, { verb: 'create services', claimVerb: 'save', file }));
    const { tenant, name, dryrun, accept, environment, meta } = input;
    return this.create(who, { tenant, name, dryrun, accept, environment, meta, service: d.service, namespace: d.namespace, labels: d.labels, ...(d.objects ? { extra: d.objects } : {}) });
  }

  /** Create a service: a claim in the caller's name; with `dryrun`, the revision it would make, and nothing written. */
  async create(actor: MaybeActor, input: { tenant: string; name: string; dryrun: boolean; accept: boolean } & CreateServiceInput): Promise<ServiceWrite> {
    const who = this.signedIn(actor, 'create services');
    const t = await this.tenant(who, input.tenant, 'create services');
    // Its checks take a few reads: a commit of this caller's creates starting meanwhile waits for it (group-commit.ts).
    const group = `${who.id}\n${t.id}`;
    const coming = this.creates.expect(group);
    try {
      return await this.checkAndSubmit(who, t, input, group, coming);
    } finally {
      coming.arrived();
    }
  }

  private async checkAndSubmit(
    who: Actor,
    t: { id: number; name: string; namespaces: string[] },
    input: { tenant: string; name: string; dryrun: boolean; accept: boolean } & CreateServiceInput,
    group: string,
    coming: { arrived: () => void },
  ): Promise<ServiceWrite> {
    // A taken name is refused early where placing costs resolutions (environments to weigh) or the answer is
    // a dry run; otherwise the commit's own check of every name refuses it, without a read per create.
    if (input.dryrun || input.environment || (await this.estate.environmentsOf(t.id)).length > 0) {
      const existing = await this.existingClaim(t, input.name);
      if (existing) throw serviceExists(t, input.name, existing);
    }
    const placed = await this.place(who, t, input);
    const selection = placed.selection;
    const admission = placed.admission;
    if (selection && !selection.chosen) {
      if (input.dryrun) return { dryrun: true, selection, ...(admission ? { admission } : {}) };
      // A named environment over its marks is Axebow's MarkExceeded; any other refusal lists every environment's reasons.
      if (!(admission && !admission.ok)) {
        const why = selection.table.map((r) => `${r.environment}: ${r.reasons.join('; ')}`).join(' | ');
        throw new AppError('LIMIT_EXCEEDED', `No environment of tenant ${t.name} may take service ${input.name}${why ? ` (${why})` : ''}.`, {
          details: { restCode: 'NoEnvironment', selection },
        });
      }
    }
    if (input.dryrun) {
      return { dryrun: true, preview: await this.revisions.preview(who, { text: placed.text }), ...(admission ? { admission } : {}), ...(selection ? { selection } : {}) };
    }
    if (admission && !admission.ok) {
      const what = describeOver(admission.over);
      throw new AppError('LIMIT_EXCEEDED', `Service ${input.name} would take environment ${admission.environment} over its marks (${what}).`, {
        details: { environment: admission.environment, over: admission.over, ...(selection ? { selection } : {}) },
      });
    }
    // A `requiring` environment takes the service only with an explicit acceptance later.
    const accept = input.accept && selection?.chosen?.outcome !== 'requiring';
    // One caller's creates on one tenant that arrive together become one generation (group-commit.ts).
    return this.creates.submit(`${group}\n${accept}`, { who, t, name: input.name, text: placed.text, ...(input.extra ? { extra: input.extra } : {}), accept, ...(selection ? { selection } : {}) }, coming, group);
  }

  private readonly creates = new GroupCommit<PendingCreate, ServiceWrite>((items, { waited }) => this.commitCreates(items, waited));

  /** Creates waiting for the one being committed (queue depth). */
  createsWaiting(): number {
    return this.creates.waiting();
  }

  /**
   * Commit creates queued together (same caller, tenant and `accept`). They
   * go in as one generation, so one revision holds them all, when together
   * they pass what each passed alone: new names, distinct, and within
   * the marks of the environments they were placed in — placement weighed
   * each against a policy holding none of the others. Otherwise, or when the
   * joint write fails, each is committed on its own and answers for itself.
   */
  private async commitCreates(items: PendingCreate[], waited: boolean): Promise<(ServiceWrite | Error)[]> {
    const out: (ServiceWrite | Error | undefined)[] = [];
    const together: PendingCreate[] = [];
    const names = new Set<string>();
    // A name sent twice is refused the second time; a name taken in the policy is refused by the write.
    for (const it of items) {
      const twice = names.has(it.name);
      out.push(twice ? serviceExists(it.t, it.name) : undefined);
      if (!twice) together.push(it);
      names.add(it.name);
    }
    // The answers of `together`, in order, into the free slots of `out`.
    const fill = (results: (ServiceWrite | Error)[]) => {
      let k = 0;
      return out.map((o) => o ?? results[k++]!);
    };
    const alone = async (it: PendingCreate, recheckMarks: boolean): Promise<ServiceWrite | Error> => {
      try {
        // A new claim: weighed on the warm session (measureWithNewClaims), not by resolving a copy of the whole policy.
        if (recheckMarks) await this.admitNew(it);
        const w = await this.writeCreates([it]);
        if (w.generation === undefined) return serviceExists(it.t, it.name, w.taken.get(it.name));
        return (await this.answerCreates([it], w.generation))[0]!;
      } catch (e) {
        return asError(e);
      }
    };
    // Alone and straight through, its placement still holds; having waited behind a commit, it is checked again.
    if (together.length <= 1) return fill(await Promise.all(together.map((it) => alone(it, waited && !!it.selection?.chosen))));
    const placed = together.filter((it) => it.selection?.chosen);
    // A joint check that cannot be made is no verdict: each is then committed on its own, checked alone.
    if (await this.withinMarksTogether(together, placed).catch(() => false)) {
      // Names taken in the policy are refused, the others written together; a refused write: each tries alone below.
      const w = await this.writeCreates(together).catch(() => undefined);
      if (w) {
        const answers = w.generation === undefined ? [] : await this.answerCreates(w.written, w.generation).catch((e) => w.written.map(() => asError(e)));
        const byItem = new Map<PendingCreate, ServiceWrite | Error>(w.written.map((it, i) => [it, answers[i]!]));
        return fill(together.map((it) => byItem.get(it) ?? serviceExists(it.t, it.name, w.taken.get(it.name))));
      }
    }
    const results: (ServiceWrite | Error)[] = [];
    for (const it of together) results.push(await alone(it, placed.length > 0));
    return fill(results);
  }

  /** Marks admission of one new service against the newest policy (its placement was weighed before a commit it waited for). */
  private async admitNew(it: PendingCreate): Promise<void> {
    const usage = async (env: EnvironmentRow) => (await this.resolution.measureWithNewClaims(newObjects([it]), { usage: [await this.estate.usageAsk(it.t.id, env)], claims: [] })).usage[0]!;
    await this.assertWithinMarks(it.t, it.name, newClaimLabels(it), usage, 'Now');
  }

  /** Whether the placed creates of a batch fit their environments' marks with all of the batch in the policy. */
  private async withinMarksTogether(together: PendingCreate[], placed: PendingCreate[]): Promise<boolean> {
    if (placed.length === 0) return true;
    // One probe with the whole batch in, measured for each placed service's environment.
    const where: { marks: Marks; ask: UsageAsk }[] = [];
    for (const it of placed) {
      const at = await this.environmentOfClaim(it.t, newClaimLabels(it));
      if (!at) continue;
      const ask = await this.estate.usageAsk(it.t.id, at.env);
      // The batch's other claims placed in another environment on this cluster are not this one's.
      const others = together.filter((o) => o !== it && environmentOfLabels([at], newClaimLabels(o)) === undefined).map((o) => `${createdObjects(o.text, o.extra)[0]!.namespace}/${o.name}`);
      where.push({ marks: await this.estate.marksOf(at.account, at.env), ask: ask.elsewhere ? { ...ask, elsewhere: [...ask.elsewhere, ...others] } : ask });
    }
    if (where.length === 0) return true;
    const measured = await this.resolution.measureWithNewClaims(newObjects(together), { usage: where.map((w) => w.ask), claims: [] });
    return where.every((w, i) => this.estate.over(w.marks, measured.usage[i]!).length === 0);
  }

  /** The namespace holding a claim of this name in the tenant, if any. */
  private async existingClaim(t: { namespaces: string[] }, name: string): Promise<string | false> {
    for (const namespace of t.namespaces) if (await this.repos.policy.getObject({ kind: 'claim', namespace, name })) return namespace;
    return false;
  }

  /** Which of these names the tenant's namespaces already hold (name → namespace): one read per namespace. */
  private async takenNames(t: { namespaces: string[] }, names: string[]): Promise<Map<string, string>> {
    const taken = new Map<string, string>();
    for (const namespace of t.namespaces) {
      for (const o of await this.repos.policy.listObjects({ kind: 'claim', namespace, names })) if (!taken.has(o.name)) taken.set(o.name, namespace);
    }
    return taken;
  }

  /**
   * One generation holding the claims of every item whose name is free
   * (`written`; `taken` says where the others' names are held). A create
   * edits no policy the caller loaded, so another writer's generation in
   * between is no conflict: it tries again on the new head — after checking
   * the names again. No generation when every name was taken.
   */
  private async writeCreates(items: PendingCreate[]): Promise<{ generation?: number; written: PendingCreate[]; taken: Map<string, string> }> {
    const { who, t, accept } = items[0]!;
    for (let attempt = 1; ; attempt++) {
      const baseGeneration = await this.repos.policy.head();
      const taken = await this.takenNames(t, items.map((it) => it.name));
      const written = items.filter((it) => !taken.has(it.name));
      if (written.length === 0) return { written, taken };
      const first = written[0]!;
      const message =
        written.length === 1
          ? `service ${first.name} of tenant ${t.name} (API)${first.selection?.chosen ? `; environment ${first.selection.chosen.environment} (${first.selection.chosen.outcome})` : ''}`
          : `${written.length} services of tenant ${t.name} (API, created together): ${written.map((it) => it.name).join(', ')}`;
      try {
        return { generation: (await this.policy.apply(who, { text: written.map((it) => it.text).join('---\n'), baseGeneration, message, accept })).generation, written, taken };
      } catch (e) {
        if (!(attempt < CREATE_ATTEMPTS && e instanceof AppError && e.code === 'CONFLICT' && e.details?.head !== undefined)) throw e;
      }
    }
  }

  /** The answers to written creates: their revision (waited for), each placement's story on it, or their claim's error. */
  private async answerCreates(items: PendingCreate[], generation: number): Promise<(ServiceWrite | Error)[]> {
    const who = items[0]!.who;
    const revision = await this.revisions.byGeneration(who, generation, { wait: true });
    for (const { selection, name } of items) {
      // The placement is part of the revision's story: who could have taken the service, and why not.
      if (!selection || revision.id === null) continue;
      for (const row of selection.table) {
        const chosen = row.environment === selection.chosen?.environment ? ' — chosen' : '';
        const about = items.length > 1 ? `${name} → ` : '';
        await this.repos.revisions.event(revision.id, 'placement', `${about}${row.environment}: ${row.outcome}${chosen}${row.reasons.length ? ` (${row.reasons.join('; ')})` : ''}`, { actor: who.name });
      }
    }
    const failed = await Promise.all(items.map((it) => this.claimFailure(it.text, generation, revision)));
    const left = await this.notAccepted(who, items[0]!.accept, revision);
    return items.map(({ selection }, i) => failed[i] ?? { dryrun: false, generation, revision, ...(selection ? { selection } : {}), ...left });
  }

  /** With accept=true: the sections it left pending, and why (never silently: issue 35). */
  private async notAccepted(who: Actor, accept: boolean, revision: ByGenerationResult): Promise<{ notAccepted?: { namespace: string; reason: string }[] }> {
    if (!accept || revision.id === null) return {};
    const left = await this.revisions.notAcceptedOnSave(who, revision.id);
    return left.length > 0 ? { notAccepted: left } : {};
  }

  /**
   * A write answers with its own claim's outcome: a claim the engine failed
   * (its parameters conflict with a deployed claim's, a template error) is an
   * error naming the reason, never "applied" — the revision only left it out.
   * The claim stays in the policy as written (as any saved claim does), so the
   * answer says where, and that an update or a delete is the way on.
   */
  private async claimFailure(text: string, generation: number, revision: ByGenerationResult): Promise<AppError | undefined> {
    const first = loadObjects(text).objects[0];
    if (first?.kind !== 'claim') return undefined;
    const outcome = (await this.resolution.ensure(generation)).state.claims.find((c) => c.namespace === first.namespace && c.name === first.name);
    if (outcome?.status !== 'error') return undefined;
    return new AppError('INVALID_INPUT', `Service ${first.name} cannot run: ${outcome.errors.join('; ')}. It is saved as written (generation ${generation}) and deploys nothing; update or delete it.`, {
      details: { restCode: 'ServiceError', restStatus: 422, generation, revision, claim: { namespace: first.namespace, name: first.name, status: outcome.status, errors: outcome.errors } },
    });
  }

  /**
   * Axebow's `wait`: answer once the revision runs (applied), failed, or
   * waits for a person (pending: nothing will happen without one), or after
   * `seconds` (at most 300; 0 means that cap) — `timedOut` then.
   */
  async settle(revision: { id: number | null; status: string }, seconds: number, sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))): Promise<{ status: string; timedOut: boolean }> {
    if (revision.id === null) return { status: revision.status, timedOut: false };
    const settled = new Set(['applied', 'failed', 'pending', 'rejected', 'superseded', 'no-op']);
    const deadline = Date.now() + Math.min(seconds === 0 ? 300 : seconds, 300) * 1000;
    for (;;) {
      const status = (await this.repos.revisions.get(revision.id))?.status ?? revision.status;
      if (settled.has(status)) return { status, timedOut: false };
      if (Date.now() >= deadline) return { status, timedOut: true };
      await sleep(250);
    }
  }

  /**
   * Where a new service goes. A tenant without environments places nothing
   * (the policy's rules choose clusters, as for any claim). Otherwise every
   * environment in scope — the one named, or all of the tenant's — is
   * resolved with the service placed there, checked against its marks and
   * the tenant's selector rules, and one is chosen
   * (server/engine/axebow/stage.ts).
   */
  private async place(
    who: Actor,
    t: { id: number; name: string; namespaces: string[] },
    input: { name: string } & CreateServiceInput,
  ): Promise<{ text: string; selection?: Selection; admission?: Admission }> {
    let scope = await this.estate.environmentsOf(t.id);
    if (input.environment) {
      scope = scope.filter((e) => e.ref === input.environment);
      if (scope.length === 0) throw notFound(`Environment ${input.environment} of tenant ${t.name}`);
    }
    if (scope.length === 0) return { text: await this.claimText(who, t, input.name, input) };
    // Each candidate is a resolution of the whole policy: a bounded number, so one request cannot queue hundreds.
    if (scope.length > MAX_CANDIDATES) {
      throw new AppError('INVALID_INPUT', `Tenant ${t.name} has ${scope.length} environments; name one (account/environment): at most ${MAX_CANDIDATES} are weighed for a service.`);
    }

    // Independent reads side by side: on a shared database each is a wait for the server.
    const [tenantRow, members, resources] = await Promise.all([this.repos.tenants.byName(t.name), this.repos.tenants.members(t.id), this.neededResources(t, input)]);
    // Deleted since the membership check: as if it had never been there.
    if (!tenantRow) throw notFound(`Tenant ${t.name}`);
    const role = members.find((m) => m.user === who.name.toLowerCase())?.role ?? null;

    const placed = new Map<number, { text: string; admission: Admission; cost: Usage }>();
    const candidates: Candidate[] = [];
    for (const { ref: name, account, env } of scope) {
      const [text, ask] = await Promise.all([this.claimText(who, t, input.name, { ...input, environment: name }), this.estate.usageAsk(t.id, env)]);
      const added = createdObjects(text, input.extra);
      // The policy as it is plus this claim: from the warm session, so the cost is the claim's, not the policy's.
      const claimRef = `${added[0]!.namespace}/${input.name}`;
      const measured = await this.resolution.measureWithNewClaims(added, { usage: [ask], claims: [claimRef] });
      const usage: Usage = measured.usage[0]!;
      const marks = await this.estate.marksOf(account, env);
      const over = this.estate.over(marks, usage);
      const cost: Usage = measured.claims[0]!;
      const cap = units('vcpu', marks.vcpu);
      placed.set(env.id, { text, admission: { environment: name, ok: over.length === 0, usage, over }, cost });
      candidates.push({
        id: env.id,
        name,
        info: {
          id: env.id,
          name: env.name,
          account: account.name,
          tenant: t.name,
          cluster: env.cluster,
          marks: env.marks,
          labels: env.labels,
          meta: env.meta ?? {},
          usage: { ...usage, vcpu: millisToVcpu(usage.vcpu) },
          free: cap === undefined ? null : { vcpu: millisToVcpu(cap - usage.vcpu) },
        },
        // People read vCPU in cores (marks are written so), not millicores.
        over: over.map((o) => (o.dimension === 'vcpu' ? { ...o, mark: millisToVcpu(o.mark), usage: millisToVcpu(o.usage) } : o)),
        freeVcpuMillisAfter: cap === undefined ? null : cap - usage.vcpu,
      });
    }
    // `$.service` as each candidate sees it (its cost depends on where it lands).
    const services: Record<number, Record<string, unknown>> = {};
    for (const c of candidates) {
      const cost = placed.get(c.id)!.cost;
      services[c.id] = {
        name: input.name,
        revision: 1,
        service: input.service,
        labels: input.labels,
        cost: { vcpu: millisToVcpu(cost.vcpu), memory: cost.memory, storage: cost.storage, instances: cost.instances },
        meta: input.meta ?? {},
        resources: resources.map((r) => `${r.kind}:${r.name}`),
        links: [],
      };
    }
    // The tenant's selector rules run on a resolver thread, like every evaluation of policy users wrote.
    const placement = { rules: tenantRow.rules, tenant: { name: t.name, namespaces: t.namespaces }, user: { id: who.id, name: who.name, role, labels: who.labels }, services, resources, candidates };
    let selection: Selection;
    try {
      selection = await this.resolver.run({ op: 'placement', input: placement });
    } catch (e) {
      if (isResolverFailure(e)) throw new AppError('LIMIT_EXCEEDED', `Tenant ${t.name}'s rules could not be run for service ${input.name}: ${e.reason}.`);
      throw e;
    }
    // A named environment keeps its admission even when refused: the client asked about that one.
    const chosen = selection.chosen ? placed.get(selection.chosen.id)! : input.environment ? placed.values().next().value : undefined;
    return { text: chosen?.text ?? '', selection, ...(chosen ? { admission: chosen.admission } : {}) };
  }

  /** Registered resources the service names by label (`<kind>:<name>`), with the other services holding them. */
  private async neededResources(t: { id: number; name: string; namespaces: string[] }, input: { name: string; labels: Record<string, string> }): Promise<NeededResource[]> {
    const out: NeededResource[] = [];
    const refs = [...new Set(Object.values(input.labels))].filter((v) => /^(ca|certificate|domain|port|secret|volume):./.test(v));
    if (refs.length === 0) return out;
    // The tenant's other claims, read once for every resource the service names.
    const others: { name: string; labels: Record<string, string> }[] = [];
    for (const namespace of t.namespaces) {
      for (const o of await this.repos.policy.listObjects({ kind: 'claim', namespace })) if (o.name !== input.name) others.push({ name: o.name, labels: (o.spec as Claim).labels ?? {} });
    }
    for (const value of refs) {
      const i = value.indexOf(':');
      const kind = value.slice(0, i);
      const name = value.slice(i + 1);
      const row = await this.repos.resources.get(t.id, kind, name);
      const heldBy = others.filter((c) => Object.values(c.labels).includes(value)).map((c) => c.name);
      // A selector sees the resource's public part only: sealed material never leaves the resource service.
      out.push({ kind, name, info: row ? { kind, name, spec: row.spec, tenant: t.name } : null, heldBy: heldBy.sort() });
    }
    return out;
  }

  /** Accept or reject the revision of a service (its section in the claim's namespace). */
  async decide(actor: MaybeActor, input: { tenant: string; name: string; revision: number; accept: boolean }): Promise<DecideResult> {
    const who = this.signedIn(actor, 'decide revisions');
    const t = await this.tenant(who, input.tenant, 'decide its revisions');
    const namespace = await this.namespaceOfService(t, input.name);
    const history = await this.history(who, { tenant: input.tenant, name: input.name });
    const entry = history.find((h) => h.id === input.revision);
    if (!entry) throw notFound(`Revision ${input.revision} of service ${input.name}`);
    // A revision no longer open (superseded, decided, applied) is refused before its plan and state are read:
    // on a busy console most late acceptances are of superseded revisions, and the refusal cost as much as an acceptance.
    const open = transition(entry.status as RevisionStatus, input.accept ? 'accept-some' : 'reject');
    if (!open.ok) throw new AppError('CONFLICT', open.reason);
    // The sections this service's claim touches — claims it gains or loses,
    // and changes (updates, restarts) of instances it uses. Aptomi instances
    // belong to the namespace of the service they instantiate, which may not
    // be the claim's own.
    const view = await this.revisions.get(who, input.revision);
    const ref = `${namespace}/${input.name}`;
    const plan = view.plan as { actions: { claim?: string; namespace: string }[]; steps: { claims: string[]; namespace: string }[] };
    const sections = [...new Set([...plan.actions.filter((a) => a.claim === ref), ...plan.steps.filter((s) => s.claims.includes(ref))].map((x) => x.namespace))].sort();
    if (sections.length === 0) throw new AppError('CONFLICT', `Revision ${input.revision} changes nothing that service ${input.name} runs: there is nothing of it to accept or reject.`);
    // Rejecting one section rejects the revision; accepting takes every section the service touches.
    if (!input.accept) return this.revisions.decide(who, { revisionId: input.revision, namespace: sections[0]!, decision: 'reject' });
    // Marks are checked again at acceptance: others may have taken the room since the revision was made.
    const then = await this.repos.policy.getObject({ kind: 'claim', namespace, name: input.name }, entry.generation);
    if (then) await this.assertWithinMarks(t, input.name, (then.spec as Claim).labels, (await this.resolution.ensure(entry.generation)).state, 'Accepted now', `${namespace}/${input.name}`);
    let result: DecideResult | undefined;
    for (const section of sections) result = await this.revisions.decide(who, { revisionId: input.revision, namespace: section, decision: 'accept' });
    return result!;
  }

  /** The namespace of a service: where its claim is, or was (a removed service keeps its history). */
  private async namespaceOfService(t: { name: string; namespaces: string[] }, name: string): Promise<string> {
    for (const namespace of t.namespaces) if (await this.repos.policy.getObject({ kind: 'claim', namespace, name })) return namespace;
    for (const g of await this.repos.policy.listGenerations({ limit: HISTORY_DEPTH, touching: { kind: 'claim', name } })) {
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
    const key = { kind: 'claim', name: input.name };
    // The generations and their revisions, read side by side (one wait, not two in a row), each found by the object's key.
    const [generations, revs] = await Promise.all([this.repos.policy.listGenerations({ limit: HISTORY_DEPTH, touching: key }), this.revisions.touching(who, key, HISTORY_DEPTH)]);
    const changed = generations.flatMap((g) => {
      const c = g.changes.find((x) => x.kind === 'claim' && x.name === input.name && t.namespaces.includes(x.namespace));
      return c ? [{ g, c }] : [];
    });
    for (const { g, c } of changed) {
      const rev = revs.of(g.generation);
      out.push({ id: rev.id, generation: g.generation, status: rev.status, author: g.author, message: g.message, createdAt: g.createdAt, change: c.op });
    }
    if (out.length === 0) throw notFound(`Service ${input.name} of tenant ${t.name}`);
    return out;
  }

  /**
   * The claim a change starts from, checked against the revision the client
   * based it on: a pending revision must be decided first (409
   * PendingRevisionExists), and the base must be the service's current
   * revision (409 StaleRevision, naming the current one).
   */
  private async base(who: Actor, t: { name: string; namespaces: string[] }, tenant: string, name: string, previous: number) {
    const history = await this.history(who, { tenant, name });
    const pending = history.find((h) => h.status === 'pending');
    if (pending) {
      throw new AppError('CONFLICT', `Service ${name} has a pending revision ${pending.id}: accept or reject it first.`, { details: { restCode: 'PendingRevisionExists', pending: pending.id } });
    }
    const current = history.find((h) => h.id !== null && h.status !== 'rejected' && h.status !== 'superseded');
    if (!current || current.id !== previous) {
      throw new AppError('CONFLICT', `Revision ${previous} is not the current revision of service ${name} (the current one is ${current?.id ?? 'none'}): base the change on it.`, {
        details: { restCode: 'StaleRevision', current: current?.id ?? null },
      });
    }
    // Changes start from the claim as the current revision had it: a rejected
    // change stays in the policy (Keelson keeps it, for a revert), but the
    // service stays on its current revision (Axebow), and so does its base.
    const live = await this.claimOf(t, name);
    const atCurrent = await this.repos.policy.getObject({ kind: 'claim', namespace: live.namespace, name }, current.generation);
    return { claim: atCurrent ?? live, history };
  }

  /** Write the claim as a new generation; with `dryrun`, the revision it would make, and nothing written. */
  private async write(who: Actor, text: string, message: string, accept: boolean, dryrun = false): Promise<ServiceWrite> {
    if (dryrun) return { dryrun: true, preview: await this.revisions.preview(who, { text }) };
    const w = await this.policy.apply(who, { text, baseGeneration: await this.repos.policy.head(), message, accept });
    const revision = await this.revisions.byGeneration(who, w.generation, { wait: true });
    const failed = await this.claimFailure(text, w.generation, revision);
    if (failed) throw failed;
    return { dryrun: false, generation: w.generation, revision, ...(await this.notAccepted(who, accept, revision)) };
  }

  /**
   * A new revision of a service from its current one: `replace` gives the
   * whole new spec (service, labels, environment), `patch` changes only
   * what it names (labels merge; a null label removes it). The claim keeps
   * the user it acts for; changing someone else's needs the rights the
   * policy service checks for any save.
   */
  async update(
    actor: MaybeActor,
    input: { tenant: string; name: string; previous: number; accept: boolean; removeLinks?: boolean; dryrun?: boolean } & (
      | { mode: 'replace'; spec: CreateServiceInput }
      | { mode: 'patch'; spec: { service?: string; environment?: string; labels?: Record<string, string | null> } }
    ),
  ): Promise<ServiceWrite> {
    const who = this.signedIn(actor, 'update services');
    const t = await this.tenant(who, input.tenant, 'update services');
    const { claim } = await this.base(who, t, input.tenant, input.name, input.previous);
    const old = claim.spec as Claim;
    const labels: Record<string, string> = input.mode === 'replace' ? { ...input.spec.labels } : { ...(old.labels ?? {}) };
    if (input.mode === 'patch') for (const [k, v] of Object.entries(input.spec.labels ?? {})) v === null ? delete labels[k] : (labels[k] = v);
    if (input.spec.environment) {
      labels.target = await this.targetLabel(t, input.spec.environment);
      labels.environment = input.spec.environment;
    }
    const next = { kind: 'claim', metadata: { namespace: claim.namespace, name: claim.name }, user: old.user, service: input.spec.service ?? old.service, ...(Object.keys(labels).length ? { labels } : {}) };
    const dropped = await this.links.droppedChannels(t.id, input.name, old.labels, labels, input.removeLinks ?? false);
    const text = stringify(next);
    const [changed] = loadObjects(text).objects;
    await this.admitChange(t, input.name, changed!, 'Changed so');
    const w = await this.write(who, text, `update service ${input.name} of tenant ${t.name} from revision ${input.previous} (API)`, input.accept, input.dryrun);
    if (!w.dryrun) await this.links.dropChannels(t.id, input.name, dropped);
    return w;
  }

  /** Scale: a new revision setting `replicas` (or `replicas-<role>` per role) labels, which the bundle's templates read. */
  async scale(actor: MaybeActor, input: { tenant: string; name: string; previous: number; accept: boolean; dryrun?: boolean; scale: number | Record<string, number> }): Promise<ServiceWrite> {
    const labels: Record<string, string> =
      typeof input.scale === 'number' ? { replicas: String(input.scale) } : Object.fromEntries(Object.entries(input.scale).map(([role, n]) => [`replicas-${role}`, String(n)]));
    return this.update(actor, { tenant: input.tenant, name: input.name, previous: input.previous, accept: input.accept, dryrun: input.dryrun, mode: 'patch', spec: { labels } });
  }

  /**
   * Roll back to an earlier revision of the service: a new revision whose
   * claim is the one that revision had (history is never rewritten). The
   * target must have been accepted at some point.
   */
  async rollback(actor: MaybeActor, input: { tenant: string; name: string; previous: number; target: number; accept: boolean; removeLinks?: boolean; dryrun?: boolean }): Promise<ServiceWrite> {
    const who = this.signedIn(actor, 'roll back services');
    const t = await this.tenant(who, input.tenant, 'roll back services');
    const { claim, history } = await this.base(who, t, input.tenant, input.name, input.previous);
    const target = history.find((h) => h.id === input.target);
    if (!target) throw notFound(`Revision ${input.target} of service ${input.name}`);
    if (!['accepted', 'applying', 'applied', 'failed', 'superseded'].includes(target.status)) {
      throw new AppError('CONFLICT', `Revision ${input.target} was never accepted (it is ${target.status}); roll back only to one that was.`);
    }
    const then = await this.repos.policy.getObject({ kind: 'claim', namespace: claim.namespace, name: claim.name }, target.generation);
    if (!then) throw new AppError('CONFLICT', `At revision ${input.target} service ${input.name} did not exist; remove it instead.`);
    const dropped = await this.links.droppedChannels(t.id, input.name, (claim.spec as Claim).labels, (then.spec as Claim).labels, input.removeLinks ?? false);
    // The old claim costs what it costs now: a rollback is admitted like any change.
    await this.admitChange(t, input.name, then, 'Rolled back so');
    const w = await this.write(who, then.text, `roll back service ${input.name} of tenant ${t.name} to revision ${input.target} (API)`, input.accept, input.dryrun);
    if (!w.dryrun) await this.links.dropChannels(t.id, input.name, dropped);
    return w;
  }

  /**
   * The apply events of the service's instances, newest first, with each
   * instance's applied state: what Keelson knows of a service's logs (the
   * workloads' own logs stay on the clusters).
   */
  async logs(actor: MaybeActor, input: { tenant: string; name: string; tail: number; role?: string; instance?: string; deltaSeconds?: number; now?: Date }): Promise<ServiceLogs> {
    const who = this.signedIn(actor, 'see service logs');
    const t = await this.tenant(who, input.tenant, 'see its services');
    const o = await this.claimOf(t, input.name);
    const view = await this.claims.get(who, { namespace: o.namespace, name: o.name, kind: 'claim' }, { trace: false });
    // One role's, or one instance's (Axebow's container logs: Keelson's are the apply events of that instance).
    const chosen = view.instances.filter((i) => i.code !== null && (input.role === undefined || i.component === input.role) && (input.instance === undefined || i.deployName === input.instance));
    if (chosen.length === 0 && (input.role !== undefined || input.instance !== undefined)) {
      throw notFound(input.instance ? `Instance ${input.instance} of role ${input.role} of service ${input.name}` : `Role ${input.role} of service ${input.name}`);
    }
    const keys = chosen.map((i) => i.key);
    const since = input.deltaSeconds === undefined ? undefined : (input.now ?? new Date()).getTime() - input.deltaSeconds * 1000;
    const states = new Map((await this.repos.revisions.instanceStates(keys)).map((s) => [s.key, s]));
    const events = (
      await Promise.all(keys.map(async (key) => (await this.repos.revisions.eventsForInstance(key, input.tail)).map((e) => ({ at: e.at, revisionId: e.revisionId, kind: e.kind, instance: key, message: e.message }))))
    )
      .flat()
      .filter((e) => since === undefined || e.at.getTime() >= since)
      .sort((a, b) => b.at.getTime() - a.at.getTime())
      .slice(0, input.tail);
    return {
      instances: chosen.map((i) => ({ key: i.key, deployName: i.deployName, component: i.component, status: states.get(i.key)?.status ?? null, error: states.get(i.key)?.error ?? null })),
      events,
    };
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
    await this.links.dropService(t.id, input.name);
    return { dryrun: false, generation: w.generation, revision: await this.revisions.byGeneration(who, w.generation, { wait: true }) };
  }
}

/** Marks gone over, as people write them: vCPU in cores, memory and storage in bytes, counts as counts. */
function describeOver(over: readonly { dimension: string; mark: number; usage: number }[]): string {
  const show = (d: string, v: number) => (d === 'vcpu' ? String(millisToVcpu(v)) : String(v));
  return over.map((o) => `${o.dimension}: ${show(o.dimension, o.usage)} needed, ${show(o.dimension, o.mark)} allowed`).join('; ');
}

/** The objects queued creates add to the policy, as the engine takes them. */
function newObjects(items: readonly PendingCreate[]) {
  return items.flatMap((it) => createdObjects(it.text, it.extra));
}

/** The labels of a queued create's claim (the first object of its text). */
function newClaimLabels(it: PendingCreate): Claim['labels'] {
  return (createdObjects(it.text, it.extra)[0]!.spec as Claim).labels;
}

/**
 * The objects a create's text adds: its claim, built here from checked
 * input (read in place: a claim has nothing to evaluate), then a bundle's
 * own objects as they were read when the bundle was admitted — not read
 * again on the thread that answers requests.
 */
function createdObjects(text: string, extra: BundleObjects | undefined): PolicyObjectInput[] {
  const claim = extra && text.endsWith(extra.text) ? text.slice(0, text.length - extra.text.length) : text;
  return [...loadObjects(claim).objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }) as PolicyObjectInput), ...(extra?.objects ?? [])];
}
