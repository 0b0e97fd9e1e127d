/**
 * The REST API as the server runs it: the route table, the OpenAPI document
 * and docs page, and authentication by bearer token or console session.
 */
import { crossSiteRefusal } from '../http/same-origin';
import { createRestCore, nodeHandler, webHandler, type Authenticate, type RestApi } from './dispatch';
import { docsResponse } from './docs';
import { answeringDbOutage } from './errors';
import { openApiDocument } from './openapi';
import type { RateLimiter } from './rate-limit';
import type { RestRoute } from './route';
import { REST_ROUTES } from './routes';
import type { Services } from '../services';
import type { MaybeActor } from '../services/actor';

export { API_PREFIX, API_VERSION } from './dispatch';
export { REST_ROUTES };

/**
 * Bearer tokens first (API clients, the CLI); without an Authorization
 * header, the console's session. A header that is present but wrong is a
 * 401, never a silent fall-back to anonymous. Every API route (REST, DM,
 * tRPC) authenticates here, so each gets the cross-site rule
 * (http/same-origin.ts) by construction: a write through the session cookie
 * from another origin is 403 before the session is even read.
 */
export function bearerOrSession(
  verifyToken: (raw: string) => Promise<MaybeActor>,
  session: () => Promise<MaybeActor>,
  opts: { consoleUrl?: () => string } = {},
): Authenticate {
  return async (req) => {
    const header = req.headers.get('authorization');
    if (header !== null) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) return { refuse: 'The Authorization header must be "Bearer <token>".' };
      const actor = await verifyToken(m[1]!);
      return actor ? { actor, via: 'token' } : { refuse: 'The token is unknown, revoked or expired.' };
    }
    const crossSite = crossSiteRefusal(req, opts.consoleUrl?.());
    if (crossSite) return { refuse: crossSite, code: 'FORBIDDEN' };
    return { actor: await session(), via: 'session' };
  };
}

export function restApi(opts: {
  services: () => Promise<Services>;
  authenticate: Authenticate;
  routes?: readonly RestRoute[];
  trustedProxies?: number;
  rateLimit?: RateLimiter;
}): RestApi {
  const routes = opts.routes ?? REST_ROUTES;
  let doc: Record<string, unknown> | undefined;
  const core = answeringDbOutage(createRestCore({
    routes,
    services: opts.services,
    authenticate: opts.authenticate,
    trustedProxies: opts.trustedProxies,
    rateLimit: opts.rateLimit,
    extra: (req, path) => {
      if (req.method !== 'GET') return undefined;
      const document = () => (doc ??= openApiDocument(routes));
      if (path === '/openapi.json') return Response.json(document());
      return docsResponse(path, document);
    },
  }));
  return Object.assign(webHandler(core), { node: nodeHandler(core) });
}
