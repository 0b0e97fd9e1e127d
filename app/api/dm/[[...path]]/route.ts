import { getServerSession } from 'next-auth';
import { actorFromSession, authOptions } from '@/server/console-auth';
import { bearerOrSession } from '@/server/auth/bearer';
import { dmApi } from '@/server/rest/dm';
import { env } from '@/server/env';
import { getRuntime } from '@/server/runtime';

const services = async () => (await getRuntime()).services;

/** Deployment Manager's read API (server/rest/dm.ts), authenticated as the Axebow API is. */
const handler = dmApi({
  services,
  authenticate: bearerOrSession(
    async (token) => (await services()).tokens.authenticate(token),
    async () => actorFromSession(await getServerSession(authOptions())),
    { consoleUrl: () => env().authUrl },
  ),
  trustedProxies: Number(process.env.KEELSON_TRUSTED_PROXIES ?? 0) || 0,
});

export { handler as GET, handler as POST };
