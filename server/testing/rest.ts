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
import type { Authenticate } from '../rest/dispatch';

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
  const m = /^Bearer test:(\w+)$/.exec(h);
  return m ? { actor: demoActor(m[1]!) } : { refuse: 'The token is unknown, revoked or expired.' };
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

export async function serveForTests(handler: (req: Request) => Promise<Response>): Promise<TestServer> {
  let base = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const answer = await handler(toRequest(req, base));
        res.statusCode = answer.status;
        answer.headers.forEach((v, k) => res.setHeader(k, v));
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch (e) {
        res.statusCode = 500;
        res.end(String(e));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
