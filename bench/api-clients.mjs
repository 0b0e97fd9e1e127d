/**
 * The 50 API clients of the `api` benchmark, in their own process: real
 * clients do not share the server's event loop, and on one loop the
 * client's own HTTP work (building requests, parsing answers, timers) was
 * half of every measured millisecond — the figure was the harness's.
 *
 * Each client is one keep-alive TCP connection speaking HTTP/1.1 itself,
 * one request in flight at a time, as load generators (wrk, autocannon) do:
 * the request bytes are built once and the answer is framed by its
 * Content-Length (or chunked encoding) without a general HTTP parser. With
 * node:http's client the harness was the bottleneck on two cores: against
 * a handler doing no work at all it measured a p99 of 45–48 ms, most of the
 * target, because answers waited in the client's own queue before being
 * timed. A client costing a few microseconds per answer measures the server.
 *
 * Plain JavaScript (no TypeScript loader): the client's start-up is not
 * what is measured. Started by api.bench.ts with `fork(this, [port, token])`;
 * answers one IPC message `{ list: number[], create: number[] }`
 * (milliseconds) or `{ error }`.
 */
import { connect } from 'node:net';

const port = Number(process.argv[2]);
const token = process.argv[3];
const CLIENTS = 50;
const HEADER_END = Buffer.from('\r\n\r\n');

function requestBytes(method, path, body) {
  const head =
    `${method} /api/1.0-beta${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
    (body === undefined ? '\r\n' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  return Buffer.from(head);
}

/** One keep-alive connection; `send` resolves with the status once the whole answer has arrived. */
class Connection {
  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.pending = undefined;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      this.drain();
    });
    const fail = (e) => {
      const p = this.pending;
      this.pending = undefined;
      p?.reject(e instanceof Error ? e : new Error('the server closed the connection'));
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
  }

  send(bytes) {
    if (this.pending) return Promise.reject(new Error('one request at a time per connection'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  /** Frame one answer out of the buffer, if it is all there. */
  drain() {
    const end = this.buf.indexOf(HEADER_END);
    if (end < 0 || !this.pending) return;
    const head = this.buf.subarray(0, end).toString('latin1');
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let rest = end + 4;
    if (length) {
      if (this.buf.length < rest + Number(length[1])) return;
      rest += Number(length[1]);
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      // Walk the chunks; the answer is complete at the zero-size chunk.
      for (;;) {
        const line = this.buf.indexOf('\r\n', rest);
        if (line < 0) return;
        const size = parseInt(this.buf.subarray(rest, line).toString('latin1'), 16);
        if (this.buf.length < line + 2 + size + 2) return;
        rest = line + 2 + size + 2;
        if (size === 0) break;
      }
    } else {
      this.pending.reject(new Error(`an answer without Content-Length or chunked encoding: ${head.split('\r\n')[0]}`));
      this.pending = undefined;
      return;
    }
    this.buf = this.buf.subarray(rest);
    const p = this.pending;
    this.pending = undefined;
    p.resolve(status);
  }
}

function open() {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
    socket.once('error', reject);
  });
}

async function timed(conn, method, path, bytes) {
  const t = performance.now();
  const status = await conn.send(bytes);
  const ms = performance.now() - t;
  if (status >= 400) throw new Error(`${method} ${path}: ${status}`);
  return ms;
}

/** `n` requests over the connections, each connection one request at a time. */
async function pool(conns, n, one) {
  const out = [];
  let next = 0;
  await Promise.all(
    conns.map(async (conn) => {
      while (next < n) {
        const i = next++;
        out[i] = await one(conn, i);
      }
    }),
  );
  return out;
}

const LIST = requestBytes('GET', '/tenant/acme/service');
const list = (conn) => timed(conn, 'GET', '/tenant/acme/service', LIST);
// Alice's services share her demo claim's dev instances: its image, or they conflict with it and are refused (422). `build` is
// a label no template reads, so each create is still a claim of its own.
const create = (conn, name, build) =>
  timed(conn, 'POST', `/tenant/acme/service/${name}`, requestBytes('POST', `/tenant/acme/service/${name}`, JSON.stringify({ service: 'twitter_stats', labels: { tsvisimage: 'demo12', build } })));

async function main() {
  // Long-lived API clients hold their connections: open them before measuring.
  const conns = await Promise.all(Array.from({ length: CLIENTS }, open));
  // Warm-up, as a server that has been serving: its caches are full and its
  // hot paths compiled. The first writes after start compile the resolve,
  // plan and revision paths (about 120 ms once); the read path reaches its
  // steady speed after a few thousand requests (measured right after 100,
  // the list's p50 was twice its steady 11–13 ms).
  for (let i = 0; i < 20; i++) await create(conns[0], `warm${i}`, `w${i}`);
  await pool(conns, 3000, list);
  const listed = await pool(conns, 1000, list);
  const created = await pool(conns, 100, (conn, i) => create(conn, `bench${i}`, `b${i}`));
  for (const c of conns) c.socket.destroy();
  return { list: listed, create: created };
}

main().then(
  (r) => process.send(r, () => process.exit(0)),
  (e) => process.send({ error: e instanceof Error ? e.message : String(e) }, () => process.exit(1)),
);
