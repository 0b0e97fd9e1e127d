import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ClaimsList } from '@/components/claims/claims-list';
import { LoadingState } from '@/components/ui/states';

export const metadata: Metadata = { title: 'Claims' };

export default function ClaimsPage() {
  return (
    <Suspense fallback={<LoadingState />}>
      <ClaimsList />
    </Suspense>
  );
}
