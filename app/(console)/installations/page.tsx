import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ScopeGraph } from '@/components/landscaper/scope-graph';
import { LoadingState } from '@/components/ui/states';

export const metadata: Metadata = { title: 'Installations' };

/** Landscaper installations: scopes, data flow and phases (namespace and selection live in the query string). */
export default function InstallationsPage() {
  return (
    <>
      <h1>Installations</h1>
      <Suspense fallback={<LoadingState label="Loading installations…" />}>
        <ScopeGraph />
      </Suspense>
    </>
  );
}
