'use client';
/**
 * One instance of the desired state with everything the side panel shows:
 * rendered params, discovery, target and claims (secret-rendered values
 * redacted by the server for those who may not manage them), what is
 * actually deployed, and the apply events of the steps that touched it.
 * Both hooks read the same `graphs.instance` query, so the panel asks once.
 */
import { skipToken, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';
import type { Instance } from '@/server/engine/state/types';

export type InstanceQuery =
  | { status: 'pending' }
  | { status: 'error'; error: unknown; retry: () => void }
  | { status: 'missing'; reason: string }
  | { status: 'success'; instance: Instance };

function useInstanceQuery(key: string | undefined, generation: number | undefined) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.graphs.instance.queryOptions(key ? { key, generation } : skipToken), retry: false });
}

export function useInstance(key: string, generation: number | undefined): InstanceQuery {
  const q = useInstanceQuery(key, generation);
  if (q.isPending) return { status: 'pending' };
  if (q.isError) {
    // A removed instance (shown in a revision's impact) is not in the generation's state.
    if (q.error.data?.code === 'NOT_FOUND') return { status: 'missing', reason: q.error.message };
    return { status: 'error', error: q.error, retry: () => void q.refetch() };
  }
  return { status: 'success', instance: q.data.instance };
}

export interface InstanceEvent {
  id: number;
  revisionId: number;
  at: Date;
  kind: string;
  message: string;
}

export type InstanceEvents =
  | { status: 'pending' }
  | { status: 'none'; reason: string }
  | { status: 'success'; actual: { status: string; revisionId: number; error: string | null } | null; events: InstanceEvent[] };

/** Apply events of this instance across revisions, newest first (up to 50). */
export function useInstanceEvents(key: string, generation: number | undefined): InstanceEvents {
  const q = useInstanceQuery(key, generation);
  if (q.isPending) return { status: 'pending' };
  if (q.isError) return { status: 'none', reason: q.error.data?.code === 'NOT_FOUND' ? 'This instance is not in the generation shown.' : 'Could not load apply events.' };
  return { status: 'success', actual: q.data.actual, events: q.data.events };
}
