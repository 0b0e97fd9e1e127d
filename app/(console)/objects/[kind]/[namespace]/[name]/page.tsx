import type { Metadata } from 'next';
import { ObjectEditor } from '@/components/objects/editor';
import { notFoundUnless } from '@/server/pages/exists';
import { objectOutput } from '@/server/services/policy.types';

type Params = { kind: string; namespace: string; name: string };

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.kind)} ${decodeURIComponent(p.namespace)}/${decodeURIComponent(p.name)}` };
}

export default async function ObjectPage({ params, searchParams }: { params: Promise<Params>; searchParams: Promise<{ line?: string; column?: string; saved?: string }> }) {
  const p = await params;
  const sp = await searchParams;
  const id = { kind: decodeURIComponent(p.kind), namespace: decodeURIComponent(p.namespace), name: decodeURIComponent(p.name) };
  // Read once here, as the API would answer it (its output schema), and handed to the editor: it need not ask again.
  const found = await notFoundUnless((s, actor) => s.policy.getObject(actor, id));
  const initial = found === undefined ? undefined : objectOutput.parse(found);
  // `?line=12&column=5`: a link from a claim's error opens the editor on that line.
  const line = Number(sp.line);
  const column = Number(sp.column);
  const reveal = Number.isInteger(line) && line >= 1 ? { line, ...(Number.isInteger(column) && column >= 1 ? { column } : {}) } : undefined;
  // `?saved=N`: Create opened this page; its "Saved as generation N" banner stays until dismissed.
  const saved = Number(sp.saved);
  return <ObjectEditor id={id} initial={initial} reveal={reveal} savedGeneration={Number.isInteger(saved) && saved >= 1 ? saved : undefined} />;
}
