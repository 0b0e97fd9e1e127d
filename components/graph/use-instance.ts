'use client';
/**
 * One instance of the desired state with everything the side panel shows
 * (rendered params, discovery, target, claims). The only place that knows
 * how to fetch it: there is no per-instance procedure yet, so it asks for
 * the instance's first claim (`resolution.claim` returns the claim's
 * instances in full) and picks the instance out. When the server grows
 * `graphs.instance({ key, generation })`, only this hook changes.
 */
import { skipToken, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/app/_trpc/client';
import type { Instance } from '@/server/engine/resolve/types';

export type InstanceQuery =
  | { status: 'pending' }
  | { status: 'error'; error: unknown; retry: () => void }
  | { status: 'missing'; reason: string }
  | { status: 'success'; instance: Instance };

/**
 * @param claims the claims using the instance, from the graph node; only
 *   needed by the stop-gap implementation (it fetches through a claim).
 */
export function useInstance(key: string, generation: number | undefined, claims: readonly string[]): InstanceQuery {
  const trpc = useTRPC();
  const first = claims[0];
  const slash = first?.indexOf('/') ?? -1;
  const namespace = first && slash > 0 ? first.slice(0, slash) : '';
  const name = first && slash > 0 ? first.slice(slash + 1) : '';
  const q = useQuery(trpc.resolution.claim.queryOptions(namespace && name ? { namespace, name, generation } : skipToken));
  if (!namespace || !name) return { status: 'missing', reason: 'No claim uses this instance, so its parameters cannot be looked up.' };
  if (q.isPending) return { status: 'pending' };
  if (q.isError) return { status: 'error', error: q.error, retry: () => void q.refetch() };
  const instance = q.data.instances.find((i) => i.key === key);
  return instance ? { status: 'success', instance } : { status: 'missing', reason: `Claim ${first} no longer uses this instance at generation ${q.data.generation}.` };
}

const APPLIED = new Set(['applied', 'applying', 'failed']);

export type InstanceEvents =
  | { status: 'pending' }
  | { status: 'none'; reason: string }
  | { status: 'success'; revisionId: number; events: { id: number; at: Date; kind: string; message: string }[] };

/**
 * Apply events that name this instance, from `revisionId` or else from the
 * newest revision that was applied (or tried). Stop-gap like useInstance:
 * events are stored per revision, and step messages carry the key.
 */
export function useInstanceEvents(key: string, revisionId: number | undefined): InstanceEvents {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.revisions.list.queryOptions(revisionId === undefined ? { limit: 20 } : skipToken), retry: false });
  const id = revisionId ?? list.data?.find((r) => APPLIED.has(r.status))?.id;
  const events = useQuery({ ...trpc.revisions.events.queryOptions(id !== undefined ? { id } : skipToken), retry: false });
  if (revisionId === undefined && list.isPending) return { status: 'pending' };
  if (id === undefined) return { status: 'none', reason: list.isError ? 'Revisions are not available.' : 'Nothing has been applied yet.' };
  if (events.isPending) return { status: 'pending' };
  if (events.isError) return { status: 'none', reason: 'Could not load apply events.' };
  return { status: 'success', revisionId: id, events: events.data.filter((e) => e.message.includes(key)) };
}
