/**
 * A service's revisions: the generations that changed its claim, and the
 * base a change must start from.
 */
import type { Actor, MaybeActor } from '../actor';
import { AppError, notFound } from '../../errors';
import { claimOf, HISTORY_DEPTH, signedIn, tenantOf, type Axebow } from './context';
import type { ServiceRevision } from './types';

/** Every generation that changed the service's claim, newest first, with its revision. */
export async function history(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string }): Promise<ServiceRevision[]> {
  const who = signedIn(actor, 'see service history');
  const t = await tenantOf(cx, who, input.tenant, 'see its services');
  const out: ServiceRevision[] = [];
  const key = { kind: 'claim', name: input.name };
  // The generations and their revisions, read side by side (one wait, not two in a row), each found by the object's key.
  const [generations, revs] = await Promise.all([cx.repos.policy.listGenerations({ limit: HISTORY_DEPTH, touching: key }), cx.revisions.touching(who, key, HISTORY_DEPTH)]);
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

/** The revision a service runs on: the newest that was not rejected or superseded. */
export function currentOf(history: readonly ServiceRevision[]): ServiceRevision | undefined {
  return history.find((h) => h.id !== null && h.status !== 'rejected' && h.status !== 'superseded');
}

/**
 * The claim a change starts from, checked against the revision the client
 * based it on: a pending revision must be decided first (409
 * PendingRevisionExists), and the base must be the service's current
 * revision (409 StaleRevision, naming the current one).
 */
export async function base(cx: Axebow, who: Actor, t: { name: string; namespaces: string[] }, tenant: string, name: string, previous: number) {
  const revisions = await history(cx, who, { tenant, name });
  const pending = revisions.find((h) => h.status === 'pending');
  if (pending) {
    throw new AppError('CONFLICT', `Service ${name} has a pending revision ${pending.id}: accept or reject it first.`, { details: { restCode: 'PendingRevisionExists', pending: pending.id } });
  }
  const current = currentOf(revisions);
  if (!current || current.id !== previous) {
    throw new AppError('CONFLICT', `Revision ${previous} is not the current revision of service ${name} (the current one is ${current?.id ?? 'none'}): base the change on it.`, {
      details: { restCode: 'StaleRevision', current: current?.id ?? null },
    });
  }
  // Changes start from the claim as the current revision had it: a rejected
  // change stays in the policy (Keelson keeps it, for a revert), but the
  // service stays on its current revision (Axebow), and so does its base.
  const live = await claimOf(cx, t, name);
  const atCurrent = await cx.repos.policy.getObject({ kind: 'claim', namespace: live.namespace, name }, current.generation);
  return { claim: atCurrent ?? live, history: revisions };
}
