/**
 * A request that ran out of its time (`ClaimOutcome.timedOut`) says
 * nothing about what it wants: the host's clock decided it, and under load
 * an ordinary claim can miss its time once. So a revision never takes that
 * failure for a wish to remove what it runs: every instance the applied
 * state ran for it is held back as it ran — in the new state with an
 * error, which the diff leaves alone (no detach, no delete, no update) and
 * the revision carries over as running — until a later generation resolves
 * it again. An instance it shared with other requests is held back whole:
 * without its answer, no one can tell whether theirs still agrees with it.
 * A request that failed on the policy's account (a bad template, a rule's
 * rejection) is not held: Aptomi's rule stands, and it contributes nothing.
 */
import type { DesiredState } from '../resolve';
import type { Instance } from '../state/types';

/** `after`, with what the applied state ran for requests that ran out of their time held back as it ran. */
export function holdBackTimedOut(before: DesiredState | null, after: DesiredState): DesiredState {
  if (!before || !after.claims.some((c) => c.timedOut)) return after;
  const timedOut = new Set(after.claims.filter((c) => c.timedOut).map((c) => `${c.namespace}/${c.name}`));
  const held = new Map<string, Instance>();
  for (const b of before.instances) {
    if (b.error) continue; // never deployed
    const who = b.claims.filter((c) => timedOut.has(c));
    if (who.length > 0) held.set(b.key, { ...b, error: `held back: ${who.map((c) => `'${c}'`).join(', ')} ran out of ${who.length === 1 ? 'its' : 'their'} time; what runs is kept as it was` });
  }
  if (held.size === 0) return after;
  const instances: Instance[] = [];
  for (const a of after.instances) {
    const h = held.get(a.key);
    // Held already (an error of its own): the diff leaves it alone as it is.
    instances.push(h && !a.error ? h : a);
    held.delete(a.key);
  }
  for (const h of held.values()) instances.push(h);
  instances.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  return { ...after, instances };
}
