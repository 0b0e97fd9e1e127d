/**
 * The page of one request — a claim, a Capact action, a Landscaper root
 * installation or a DM deployment — each kind on its own route
 * (`/claims`, `/actions`, `/installations`, `/deployments`), since two
 * kinds may share a namespace and a name. Server side: a request that does
 * not exist answers 404; an old `/claims/…` link to another kind goes to
 * that kind's route.
 */
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { notFoundUnless } from '@/server/pages/exists';
import { REQUEST_KINDS, type RequestKind } from '@/server/services/resolution.types';
import { ClaimDetail } from './claim-detail';
import { claimHref } from './status';

type Params = Promise<{ namespace: string; name: string }>;
type Search = Promise<{ generation?: string }>;

const TITLES: Record<RequestKind, string> = { claim: 'Claim', action: 'Action', installation: 'Installation', deployment: 'Deployment' };

export async function requestMetadata(kind: RequestKind, params: Params): Promise<Metadata> {
  const p = await params;
  return { title: `${TITLES[kind]} ${decodeURIComponent(p.namespace)}/${decodeURIComponent(p.name)}` };
}

export async function RequestPage({ kind, params, searchParams }: { kind: RequestKind; params: Params; searchParams: Search }) {
  const p = await params;
  const sp = await searchParams;
  const generation = sp.generation && /^\d+$/.test(sp.generation) ? Number(sp.generation) : undefined;
  const id = { namespace: decodeURIComponent(p.namespace), name: decodeURIComponent(p.name) };
  let elsewhere: RequestKind | undefined;
  await notFoundUnless(async (s, actor) => {
    try {
      return await s.policy.getObject(actor, { kind, ...id }, generation);
    } catch (e) {
      // `/claims/…` was every kind's route once: follow such a link to the kind that has the name.
      if (kind !== 'claim') throw e;
      for (const other of REQUEST_KINDS.filter((k) => k !== 'claim')) {
        try {
          await s.policy.getObject(actor, { kind: other, ...id }, generation);
          elsewhere = other;
          return;
        } catch {
          // not this kind either
        }
      }
      throw e;
    }
  });
  if (elsewhere) redirect(claimHref({ ...id, kind: elsewhere }, generation));
  return <ClaimDetail kind={kind} namespace={id.namespace} name={id.name} generation={generation} />;
}
