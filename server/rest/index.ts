/**
 * The REST API as the server runs it: the route table, the OpenAPI document
 * and docs page. Requests authenticate by bearer token or console session
 * (auth/bearer.ts).
 */
import { createRestCore, nodeHandler, webHandler, type Authenticate, type RestApi } from './dispatch';
import { docsResponse } from './docs';
import { answeringDbOutage } from './errors';
import { openApiDocument } from './openapi';
import type { RateLimiter } from './rate-limit';
import type { RestRoute } from './route';
import { REST_ROUTES } from './routes';
import type { Services } from '../services';

export { API_PREFIX, API_VERSION } from './dispatch';
export { REST_ROUTES };

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
