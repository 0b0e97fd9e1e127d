import { getServerSession } from 'next-auth';
import { actorFromSession, authOptions } from '@/server/console-auth';
import { bearerOrSession } from '@/server/auth/bearer';
import { restApi } from '@/server/rest';
import { env } from '@/server/env';
import { getRuntime } from '@/server/runtime';

const services = async () => (await getRuntime()).services;

const handler = restApi({
  services,
  authenticate: bearerOrSession(
    async (token) => (await services()).tokens.authenticate(token),
    async () => actorFromSession(await getServerSession(authOptions())),
    { consoleUrl: () => env().authUrl },
  ),
  trustedProxies: Number(process.env.KEELSON_TRUSTED_PROXIES ?? 0) || 0,
});

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
