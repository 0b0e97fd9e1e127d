import type { Metadata } from 'next';
import { Suspense } from 'react';
import { PolicyHistory } from '@/components/history/history';
import { LoadingState } from '@/components/ui/states';

export const metadata: Metadata = { title: 'History' };

export default function HistoryPage() {
  return (
    <Suspense fallback={<LoadingState />}>
      <PolicyHistory />
    </Suspense>
  );
}
