'use client';
/**
 * What the object editor says around a save: the revision a saved
 * generation became, the two words explained, the save shortcut, and how
 * old a kept draft is.
 */
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useTRPC } from '@/components/trpc/client';

/** Once a generation is saved, its revision appears (computed in the background). */
export function RevisionLink({ generation }: { generation: number }) {
  const trpc = useTRPC();
  // The revision is computed after the save, in the background: ask again until it is there.
  const q = useQuery({
    ...trpc.revisions.byGeneration.queryOptions({ generation }),
    refetchInterval: (query) => (query.state.data?.id == null ? 1000 : false),
  });
  if (!q.data || q.data.id == null) return <span className="muted"> Computing its revision…</span>;
  return (
    <Link href={`/revisions/${q.data.id}`} data-testid="revision-link">
      Revision #{q.data.id} ({q.data.status})
    </Link>
  );
}

/**
 * Where a newcomer first meets both words (the banner after a save), said once; the README's
 * "Generations and revisions" says more.
 */
export function GenerationsExplained() {
  return (
    <span className="hint" data-testid="generations-explained">
      A <strong>generation</strong> is one saved version of the whole policy (every save makes the next one); its <strong>revision</strong> is what that
      version changes in the deployments, accepted per namespace before anything is applied (README, “Generations and revisions”).
    </span>
  );
}

export function savedText(generation: number): string {
  return `Saved as generation ${generation}.`;
}

/** "Ctrl+S", or "⌘S" on Apple systems. */
export function saveShortcut(): string {
  if (typeof navigator === 'undefined') return 'Ctrl+S';
  const platform = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform ?? navigator.platform ?? '';
  return /mac|iphone|ipad/i.test(platform) ? '⌘S' : 'Ctrl+S';
}

export function RelativeAge({ at }: { at: number }) {
  const s = Math.max(0, Math.round((Date.now() - at) / 1000));
  const text = s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : new Date(at).toLocaleString();
  return <time dateTime={new Date(at).toISOString()}>{text}</time>;
}
