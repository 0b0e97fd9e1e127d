import type { Metadata } from 'next';
import { ClaimDetail } from '@/components/claims/claim-detail';
import { notFoundUnless } from '@/server/pages/exists';

type Params = { namespace: string; name: string };

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const p = await params;
  return { title: `Claim ${decodeURIComponent(p.namespace)}/${decodeURIComponent(p.name)}` };
}

export default async function ClaimPage({ params, searchParams }: { params: Promise<Params>; searchParams: Promise<{ generation?: string }> }) {
  const p = await params;
  const sp = await searchParams;
  const generation = sp.generation && /^\d+$/.test(sp.generation) ? Number(sp.generation) : undefined;
  await notFoundUnless((s, actor) => s.policy.getObject(actor, { kind: 'claim', namespace: decodeURIComponent(p.namespace), name: decodeURIComponent(p.name) }, generation));
  return <ClaimDetail namespace={decodeURIComponent(p.namespace)} name={decodeURIComponent(p.name)} generation={generation} />;
}
