import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ObjectBrowser } from '@/components/objects/browser';
import { LoadingState } from '@/components/ui/states';

export const metadata: Metadata = { title: 'Objects' };

export default function ObjectsPage() {
  return (
    <Suspense fallback={<LoadingState />}>
      <ObjectBrowser />
    </Suspense>
  );
}
