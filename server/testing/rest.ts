/**
 * A REST API on a plain HTTP server on loopback, for tests that drive it as
 * a client would (fetch over a socket), with the same dispatcher the
 * Next.js route uses.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { loadLocalUsers } from '../auth/users';
import type { Actor } from '../services/actor';
import { after, before } from 'node:test';
import { API_PREFIX, type Authenticate, type NodeRestHandler } from '../rest/dispatch';
import { restApi } from '../rest/index';
import { RateLimiter } from '../rest/rate-limit';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';

function demoActor(name: string): Actor {
  const u = loadLocalUsers().find((x) => x.name === name);
  return { id: `local:${name}`, name, labels: u?.labels ?? {}, provider: 'test' };
}

/**
 * Tests authenticate with `Bearer test:<name>` (a demo user, or any name
 * with no labels): the token service has its own tests; these are about
 * what each person may do through the API.
 */
export const testAuth: Authenticate = async (req) => {
  const h = req.headers.get('authorization');
  if (h === null) return { actor: null };
  // `test:<name>` stands for a console session; `token:<name>` for an API token.
  const m = /^Bearer (test|token):(\w+)$/.exec(h);
  return m ? { actor: demoActor(m[2]!), via: m[1] === 'token' ? 'token' : 'session' } : { refuse: 'The token is unknown, revoked or expired.' };
};

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, base: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', base), {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Serves a Web fetch handler; an API with a Node handler (`restApi(…).node`)
 * is served through that, as the API benchmark serves it. The Web side is
 * what the Next.js route runs (its own tests, and the end-to-end tests).
 */
export async function serveForTests(
  handler: ((req: Request) => Promise<Response>) & { node?: NodeRestHandler },
  /** Web handlers for paths under a prefix (tRPC beside the REST API); their answers say their time (Server-Timing), as REST's do. */
  routes: { prefix: string; handle: (req: Request) => Promise<Response> }[] = [],
): Promise<TestServer> {
  let base = '';
  const node = handler.node;
  const server: Server = createServer((req, res) => {
    const route = routes.find((r) => (req.url ?? '').startsWith(r.prefix));
    if (node && !route) {
      void node(req, res);
      return;
    }
    void (async () => {
      try {
        const started = performance.now();
        const answer = await (route ? route.handle : handler)(toRequest(req, base));
        if (route && !answer.headers.has('server-timing')) res.setHeader('server-timing', `app;dur=${(performance.now() - started).toFixed(1)}`);
        res.statusCode = answer.status;
        answer.headers.forEach((v, k) => k !== 'set-cookie' && res.setHeader(k, v));
        // Each cookie its own header (next-auth sets several at once): setHeader per value would keep only the last.
        const cookies = answer.headers.getSetCookie();
        if (cookies.length > 0) res.setHeader('set-cookie', cookies);
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch (e) {
        res.statusCode = 500;
        res.end(String(e));
      }
    })();
  });
  // Tests resolve in the request thread (InlineResolver), which a first DM template holds while the
  // sandbox boots: a keep-alive socket the server closed meanwhile would meet the client's next request.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // A client still sending a body the server refused (413) holds its connection open: end them all.
        server.closeAllConnections();
      }),
  };
}

/** A REST answer as tests read it. */
export interface RestAnswer {
  status: number;
  // Tests read into answers freely; the route's schema already checked them.
  body: { data?: any; code?: string; content?: { message?: string; [k: string]: unknown } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RestHarness {
  readonly repos: Repos;
  readonly services: Services;
  readonly url: string;
  /** A JSON request as `user` (`Bearer test:<user>`); `null` sends no credentials. */
  call(user: string | null, method: string, path: string, body?: unknown): Promise<RestAnswer>;
}

/**
 * The REST API over the seeded demo on in-memory stores, served on loopback
 * for the tests of one `describe` (started in `before`, stopped in `after`).
 * `prepare` may change the stores before the services start.
 */
export function restHarness(opts: Partial<Parameters<typeof createServices>[1]> & { prepare?: (repos: Repos) => void | Promise<void> } = {}): RestHarness {
  const { prepare, ...serviceOptions } = opts;
  let state: { repos: Repos; services: Services; server: TestServer } | undefined;
  const get = () => {
    if (!state) throw new Error('restHarness: used outside its describe (before has not run)');
    return state;
  };
  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    await prepare?.(repos);
    const services = createServices(repos, { usersFile: undefined, domainAdmins: [], ...serviceOptions });
    const server = await serveForTests(restApi({ services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) }));
    state = { repos, services, server };
  });
  after(async () => {
    await state?.server.close();
    await state?.services.resolution.close();
  });
  return {
    get repos() {
      return get().repos;
    },
    get services() {
      return get().services;
    },
    get url() {
      return `${get().server.url}${API_PREFIX}`;
    },
    async call(user, method, path, body) {
      const res = await fetch(`${get().server.url}${API_PREFIX}${path}`, {
        method,
        headers: { ...(user ? { authorization: `Bearer test:${user}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as RestAnswer['body'] };
    },
  };
}
