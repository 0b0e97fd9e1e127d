import type { Metadata } from 'next';
import { ObjectEditor } from '@/components/objects/editor';

type Params = { kind: string; namespace: string; name: string };

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.kind)} ${decodeURIComponent(p.namespace)}/${decodeURIComponent(p.name)}` };
}

export default async function ObjectPage({ params }: { params: Promise<Params> }) {
  const p = await params;
  const id = { kind: decodeURIComponent(p.kind), namespace: decodeURIComponent(p.namespace), name: decodeURIComponent(p.name) };
  return <ObjectEditor id={id} />;
}
