import type { Metadata } from 'next';
import { ClaimDetail } from '@/components/claims/claim-detail';
import { notFoundUnless } from '@/server/pages/exists';

type Params = { namespace: string; name: string };

const REQUEST_KINDS = ['claim', 'action', 'installation', 'deployment'] as const;

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const p = await params;
  return { title: `Claim ${decodeURIComponent(p.namespace)}/${decodeURIComponent(p.name)}` };
}

export default async function ClaimPage({ params, searchParams }: { params: Promise<Params>; searchParams: Promise<{ generation?: string }> }) {
  const p = await params;
  const sp = await searchParams;
  const generation = sp.generation && /^\d+$/.test(sp.generation) ? Number(sp.generation) : undefined;
  const id = { namespace: decodeURIComponent(p.namespace), name: decodeURIComponent(p.name) };
  // Claims, and what is listed with them: Capact actions, Landscaper root installations, DM deployments.
  await notFoundUnless(async (s, actor) => {
    for (const kind of REQUEST_KINDS.slice(0, -1)) {
      try {
        return await s.policy.getObject(actor, { kind, ...id }, generation);
      } catch {
        // not this kind; the last one decides
      }
    }
    return s.policy.getObject(actor, { kind: REQUEST_KINDS.at(-1)!, ...id }, generation);
  });
  return <ClaimDetail namespace={decodeURIComponent(p.namespace)} name={decodeURIComponent(p.name)} generation={generation} />;
}
