/**
 * The load test's HTTP client: node:http over kept-alive connections, the
 * answer read to its last byte and nothing more, as autocannon does.
 *
 * The generator shares the machine's two cores with the consoles it
 * measures, so its own cost is in every figure. With fetch (undici's web
 * streams, and a JSON parse of every answer — the service list grows to
 * hundreds of kilobytes) it used 20–23 s of CPU in the 60 s at 200
 * requests/s; with this client, 11–12 s. Timed inside the consoles, the
 * PostgreSQL reads took a third of what that generator recorded at p50 and
 * about half at p99.
 */
import { Agent, request } from 'node:http';
import { API_PREFIX } from '../rest/dispatch';

export interface LoadAnswer {
  status: number;
  /** The answer's bytes; parse them after the clock has stopped. */
  bytes: Buffer;
  /** Milliseconds from sending to the last byte. */
  ms: number;
  /** What the server said it worked on the answer (its Server-Timing), in milliseconds; NaN if it did not say. */
  serverMs: number;
}

export interface LoadRequest {
  method: string;
  /** Under `prefix`. */
  path: string;
  /** API_PREFIX (the REST API) unless given ('/api/trpc' for tRPC). */
  prefix?: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export class LoadClient {
  // Enough sockets for the open-loop rate's bursts, kept between requests. An idle one is closed after 4 s, before
  // the server closes it (Node's keep-alive timeout, 5 s): a request sent on a socket the server is closing is reset.
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 512, timeout: 4_000 });
  /** Requests sent again because a kept socket was reset before any answer began (the server had closed it as idle). */
  resent = 0;

  send(base: string, r: LoadRequest): Promise<LoadAnswer> {
    const started = performance.now();
    return this.attempt(base, r, started).catch((e: NodeJS.ErrnoException & { reused?: boolean }) => {
      // HTTP/1.1's keep-alive race, which clients answer by sending again (as undici and browsers do, and Node's
      // documentation shows): still possible when the server closes a socket as the request goes out on it.
      if (!e.reused || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw e;
      this.resent++;
      return this.attempt(base, r, started);
    });
  }

  private attempt(base: string, r: LoadRequest, started: number): Promise<LoadAnswer> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = request(
        `${base}${r.prefix ?? API_PREFIX}${r.path}`,
        { method: r.method, agent: this.agent, headers: { ...r.headers, ...(r.body ? { 'content-length': String(r.body.byteLength) } : {}) } },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const said = /\bdur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''));
            resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks), ms: performance.now() - started, serverMs: said ? Number(said[1]) : NaN });
          });
          res.on('error', reject);
        },
      );
      req.on('error', (e: NodeJS.ErrnoException & { reused?: boolean }) => {
        // Only a request with no answer begun is safe to send again.
        if (req.reusedSocket && !answered) e.reused = true;
        reject(e);
      });
      req.end(r.body);
    });
  }

  /** A JSON request as the tests' bearer user. */
  json(base: string, method: string, path: string, body: unknown, user: string): Promise<LoadAnswer> {
    return this.send(base, {
      method,
      path,
      headers: { authorization: `Bearer test:${user}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: new TextEncoder().encode(JSON.stringify(body)) } : {}),
    });
  }

  /** A tRPC call as the console's pages make it (superjson's wire form), as the tests' bearer user. */
  trpc(base: string, procedure: string, input: unknown, user: string, kind: 'query' | 'mutation'): Promise<LoadAnswer> {
    const wire = JSON.stringify({ json: input });
    const headers = { authorization: `Bearer test:${user}` };
    if (kind === 'query') return this.send(base, { method: 'GET', prefix: '/api/trpc', path: `/${procedure}?input=${encodeURIComponent(wire)}`, headers });
    return this.send(base, { method: 'POST', prefix: '/api/trpc', path: `/${procedure}`, headers: { ...headers, 'content-type': 'application/json' }, body: new TextEncoder().encode(wire) });
  }

  close(): void {
    this.agent.destroy();
  }
}
