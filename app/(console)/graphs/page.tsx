import type { Metadata } from 'next';
import { Suspense } from 'react';
import { GraphExplorer } from '@/components/graph/graph-explorer';
import { LoadingState } from '@/components/ui/states';

export const metadata: Metadata = { title: 'Graphs' };

/** Policy and desired-state graphs; what to show lives in the query string (see GraphExplorer). */
export default function GraphsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the graph…" />}>
      <GraphExplorer />
    </Suspense>
  );
}
