import type { Metadata } from 'next';
import { Suspense } from 'react';
import { DmTypes } from '@/components/dm/types-list';
import { LoadingState } from '@/components/ui/states';

export const metadata: Metadata = { title: 'DM types' };

/** Deployment Manager types in use and where (as DM's /types and /types/<t>/instances); "DM" sets them apart from Capact's `Type` kind. */
export default function TypesPage() {
  return (
    <>
      <h1>DM types</h1>
      <Suspense fallback={<LoadingState />}>
        <DmTypes />
      </Suspense>
    </>
  );
}
