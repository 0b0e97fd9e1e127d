/**
 * Axebow services (§5.9) over Keelson's model: a tenant's service is a
 * claim in one of its policy namespaces, acting for the user who creates
 * it; an environment named at creation becomes the claim's `target` label
 * (its cluster, and its Kubernetes namespace when it has one). Every write
 * goes through the policy service (authorisation, validation, one
 * generation) and becomes a Keelson revision that is accepted or rejected
 * like any other — this folder adds addressing, not rules.
 *
 * One module per concern: reads.ts (list, view, scale, channels, roles,
 * logs), create.ts and placement.ts (a new service and where it goes),
 * commit-creates.ts (creates arriving together), changes.ts (update, scale,
 * restart, roll back, remove), history.ts, decide.ts (accept, reject,
 * wait), marks.ts (admission by marks), write.ts and objects.ts (the
 * objects written and the answer).
 */
import type { Repos } from '../../repo/types';
import type { Resolver } from '../../resolver';
import type { AccessService } from '../access';
import type { MaybeActor } from '../actor';
import type { ClaimService } from '../claims';
import type { EstateService } from '../estate';
import type { PolicyService } from '../policy';
import type { ResolutionService } from '../resolution';
import type { RevisionService } from '../revisions';
import * as changes from './changes';
import { createQueue } from './commit-creates';
import type { Axebow } from './context';
import * as creating from './create';
import * as deciding from './decide';
import { history } from './history';
import type { LinkService } from './links';
import * as reads from './reads';

export class DeploymentService {
  private readonly cx: Axebow;
  private readonly creates: ReturnType<typeof createQueue>;

  constructor(
    repos: Repos,
    access: AccessService,
    policy: PolicyService,
    resolution: ResolutionService,
    claims: ClaimService,
    revisions: RevisionService,
    estate: EstateService,
    links: LinkService,
    resolver: Pick<Resolver, 'run'>,
  ) {
    this.cx = { repos, access, policy, resolution, claims, revisions, estate, links, resolver };
    this.creates = createQueue(this.cx);
  }

  list(actor: MaybeActor, tenant: string) {
    return reads.list(this.cx, actor, tenant);
  }
  get(actor: MaybeActor, input: { tenant: string; name: string }, opts: { trace?: boolean } = {}) {
    return reads.get(this.cx, actor, input, opts);
  }
  scaleOf(actor: MaybeActor, input: { tenant: string; name: string }) {
    return reads.scaleOf(this.cx, actor, input);
  }
  channelsOf(actor: MaybeActor, input: { tenant: string; name: string }) {
    return reads.channelsOf(this.cx, actor, input);
  }
  role(actor: MaybeActor, input: Parameters<typeof reads.role>[2]) {
    return reads.role(this.cx, actor, input);
  }
  logs(actor: MaybeActor, input: Parameters<typeof reads.logs>[2]) {
    return reads.logs(this.cx, actor, input);
  }
  history(actor: MaybeActor, input: { tenant: string; name: string }) {
    return history(this.cx, actor, input);
  }

  create(actor: MaybeActor, input: Parameters<typeof creating.create>[3]) {
    return creating.create(this.cx, this.creates, actor, input);
  }
  createFromBundle(actor: MaybeActor, input: Parameters<typeof creating.createFromBundle>[3]) {
    return creating.createFromBundle(this.cx, this.creates, actor, input);
  }
  /** Creates waiting for the one being committed (queue depth). */
  createsWaiting(): number {
    return this.creates.waiting();
  }

  update(actor: MaybeActor, input: Parameters<typeof changes.update>[2]) {
    return changes.update(this.cx, actor, input);
  }
  scale(actor: MaybeActor, input: Parameters<typeof changes.scale>[2]) {
    return changes.scale(this.cx, actor, input);
  }
  restart(actor: MaybeActor, input: Parameters<typeof changes.restart>[2]) {
    return changes.restart(this.cx, actor, input);
  }
  rollback(actor: MaybeActor, input: Parameters<typeof changes.rollback>[2]) {
    return changes.rollback(this.cx, actor, input);
  }
  remove(actor: MaybeActor, input: Parameters<typeof changes.remove>[2]) {
    return changes.remove(this.cx, actor, input);
  }

  decide(actor: MaybeActor, input: Parameters<typeof deciding.decide>[2]) {
    return deciding.decide(this.cx, actor, input);
  }
  settle(revision: { id: number | null; status: string }, seconds: number, sleep?: (ms: number) => Promise<void>) {
    return deciding.settle(this.cx.repos, revision, seconds, sleep);
  }
}
