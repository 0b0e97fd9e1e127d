/**
 * The kinds of action a revision counts, in the order every screen and the
 * CLI list them. Its own module so the browser can import it without the
 * rest of the planner.
 */
export type ActionKind = 'create' | 'update' | 'delete' | 'attach-claim' | 'detach-claim';

export const ACTION_KINDS: readonly ActionKind[] = ['create', 'update', 'delete', 'attach-claim', 'detach-claim'];

/** "2 create · 3 attach-claim", or "no changes"; kinds with no action are left out. */
export function countsText(counts: Partial<Record<string, number>> | undefined, separator = ' · '): string {
  if (!counts) return '';
  const parts = ACTION_KINDS.filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${k}`);
  return parts.length ? parts.join(separator) : 'no changes';
}
