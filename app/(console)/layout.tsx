import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import type { ReactNode } from 'react';
import { TRPCReactProvider } from '@/components/trpc/client';
import { Nav } from '@/components/shell/nav';
import { ScrollRegions } from '@/components/shell/scroll-regions';
import { isDomainAdmin } from '@/server/engine/acl';
import { actorFromSession, authOptions } from '@/server/console-auth';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';

/** Every console page needs a signed-in user; the check runs on the server. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const actor = await actorFromSession(await getServerSession(authOptions()));
  if (!actor) {
    const path = (await headers()).get('x-keelson-path') ?? '/objects';
    redirect(`/signin?callbackUrl=${encodeURIComponent(path)}`);
  }
  // Navigation shows only the pages this user can use (the pages check again).
  const domainAdmin = isDomainAdmin(await (await getRuntime()).services.access.roles(actor));
  return (
    <TRPCReactProvider>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <div className="shell">
        <Nav user={{ name: actor.displayName ?? actor.name, provider: actor.provider }} domainAdmin={domainAdmin} />
        <main className="main" id="main">
          {children}
        </main>
        <ScrollRegions rootId="main" />
      </div>
    </TRPCReactProvider>
  );
}
