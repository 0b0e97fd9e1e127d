import type { Metadata } from 'next';
import { NewObjectEditor } from '@/components/objects/editor';

export const metadata: Metadata = { title: 'New object' };

export default async function NewObjectPage({ searchParams }: { searchParams: Promise<{ kind?: string }> }) {
  const { kind } = await searchParams;
  return <NewObjectEditor kind={kind} />;
}
