import type { Metadata } from 'next';
import { Suspense } from 'react';
import { DmTypes } from '@/components/dm/types-list';
import { LoadingState } from '@/components/ui/states';

export const metadata: Metadata = { title: 'Types' };

/** Deployment Manager types in use and where (as DM's /types and /types/<t>/instances). */
export default function TypesPage() {
  return (
    <>
      <h1>Types</h1>
      <Suspense fallback={<LoadingState />}>
        <DmTypes />
      </Suspense>
    </>
  );
}
