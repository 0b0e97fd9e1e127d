import type { Metadata } from 'next';
import { RevisionsList } from '@/components/revisions/revisions-list';

export const metadata: Metadata = { title: 'Revisions' };

export default function RevisionsPage() {
  return <RevisionsList />;
}
