import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { RevisionDetail } from '@/components/revisions/revision-detail';
import { notFoundUnless } from '@/server/pages/exists';

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: `Revision #${(await params).id}` };
}

export default async function RevisionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^\d+$/.test(id) || Number(id) > 2 ** 31 - 1) notFound();
  // Only whether it exists and may be seen: no plan rows (the client asks for those).
  await notFoundUnless((s, actor) => s.revisions.get(actor, Number(id), { limit: 0 }));
  return <RevisionDetail id={Number(id)} />;
}
