import type { Metadata } from 'next';
import { getServerSession } from 'next-auth';
import { TenantDetail } from '@/components/tenants/tenant-detail';
import { actorFromSession, authOptions } from '@/server/console-auth';
import { notFoundUnless } from '@/server/pages/exists';

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }): Promise<Metadata> {
  return { title: `Tenant ${decodeURIComponent((await params).name)}` };
}

export default async function TenantPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  await notFoundUnless(async (s, a) => s.tenants.get(a, decodeURIComponent(name)));
  const actor = await actorFromSession(await getServerSession(authOptions()));
  return <TenantDetail name={decodeURIComponent(name)} me={actor?.name ?? ''} />;
}
