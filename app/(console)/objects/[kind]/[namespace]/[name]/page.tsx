import type { Metadata } from 'next';
import { ObjectEditor } from '@/components/objects/editor';
import { notFoundUnless } from '@/server/pages/exists';

type Params = { kind: string; namespace: string; name: string };

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.kind)} ${decodeURIComponent(p.namespace)}/${decodeURIComponent(p.name)}` };
}

export default async function ObjectPage({ params }: { params: Promise<Params> }) {
  const p = await params;
  const id = { kind: decodeURIComponent(p.kind), namespace: decodeURIComponent(p.namespace), name: decodeURIComponent(p.name) };
  await notFoundUnless((s, actor) => s.policy.getObject(actor, id));
  return <ObjectEditor id={id} />;
}
