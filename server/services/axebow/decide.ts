/**
 * A service's revision decided (accepted or rejected, section by section),
 * and waited for (Axebow's `wait`).
 */
import type { Claim } from '../../engine/model/kinds';
import type { MaybeActor } from '../actor';
import { AppError, notFound } from '../../errors';
import type { Repos } from '../../repo/types';
import { transition, type RevisionStatus } from '../../engine/plan/revision-state';
import type { DecideResult } from '../revisions.types';
import { namespaceOfService, signedIn, tenantOf, type Axebow } from './context';
import { history } from './history';
import { assertWithinMarks } from './marks';

/** Accept or reject the revision of a service (its section in the claim's namespace). */
export async function decide(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string; revision: number; accept: boolean }): Promise<DecideResult> {
  const who = signedIn(actor, 'decide revisions');
  const t = await tenantOf(cx, who, input.tenant, 'decide its revisions');
  const namespace = await namespaceOfService(cx, t, input.name);
  const revisions = await history(cx, who, { tenant: input.tenant, name: input.name });
  const entry = revisions.find((h) => h.id === input.revision);
  if (!entry) throw notFound(`Revision ${input.revision} of service ${input.name}`);
  // A revision no longer open (superseded, decided, applied) is refused before its plan and state are read:
  // on a busy console most late acceptances are of superseded revisions, and the refusal cost as much as an acceptance.
  const open = transition(entry.status as RevisionStatus, input.accept ? 'accept-some' : 'reject');
  if (!open.ok) throw new AppError('CONFLICT', open.reason);
  // The sections this service's claim touches — claims it gains or loses,
  // and changes (updates, restarts) of instances it uses. Aptomi instances
  // belong to the namespace of the service they instantiate, which may not
  // be the claim's own.
  const view = await cx.revisions.get(who, input.revision);
  const ref = `${namespace}/${input.name}`;
  const plan = view.plan as { actions: { claim?: string; namespace: string }[]; steps: { claims: string[]; namespace: string }[] };
  const sections = [...new Set([...plan.actions.filter((a) => a.claim === ref), ...plan.steps.filter((s) => s.claims.includes(ref))].map((x) => x.namespace))].sort();
  if (sections.length === 0) throw new AppError('CONFLICT', `Revision ${input.revision} changes nothing that service ${input.name} runs: there is nothing of it to accept or reject.`);
  // Rejecting one section rejects the revision; accepting takes every section the service touches.
  if (!input.accept) return cx.revisions.decide(who, { revisionId: input.revision, namespace: sections[0]!, decision: 'reject' });
  // Marks are checked again at acceptance: others may have taken the room since the revision was made.
  const then = await cx.repos.policy.getObject({ kind: 'claim', namespace, name: input.name }, entry.generation);
  if (then) await assertWithinMarks(cx, t, input.name, (then.spec as Claim).labels, (await cx.resolution.ensure(entry.generation)).state, 'Accepted now', `${namespace}/${input.name}`);
  let result: DecideResult | undefined;
  for (const section of sections) result = await cx.revisions.decide(who, { revisionId: input.revision, namespace: section, decision: 'accept' });
  return result!;
}

/**
 * Axebow's `wait`: answer once the revision runs (applied), failed, or
 * waits for a person (pending: nothing will happen without one), or after
 * `seconds` (at most 300; 0 means that cap) — `timedOut` then.
 */
export async function settle(
  repos: Repos,
  revision: { id: number | null; status: string },
  seconds: number,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<{ status: string; timedOut: boolean }> {
  if (revision.id === null) return { status: revision.status, timedOut: false };
  const settled = new Set(['applied', 'failed', 'pending', 'rejected', 'superseded', 'no-op']);
  const deadline = Date.now() + Math.min(seconds === 0 ? 300 : seconds, 300) * 1000;
  for (;;) {
    const status = (await repos.revisions.get(revision.id))?.status ?? revision.status;
    if (settled.has(status)) return { status, timedOut: false };
    if (Date.now() >= deadline) return { status, timedOut: true };
    await sleep(250);
  }
}
