/**
 * The 50 API clients of the `api` benchmark, in their own process: real
 * clients do not share the server's event loop, and on one loop the
 * client's own HTTP work (building requests, parsing answers, timers) was
 * half of every measured millisecond — the figure was the harness's.
 *
 * Plain JavaScript (no TypeScript loader): the client's start-up is not
 * what is measured, and it should cost the server's core as little as
 * possible. Started by api.bench.ts with `fork(this, [port, token])`; answers one
 * IPC message `{ list: number[], create: number[] }` (milliseconds) or
 * `{ error }`.
 */
import { Agent, request } from 'node:http';

const port = Number(process.argv[2]);
const token = process.argv[3];
const CLIENTS = 50;
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

function timed(path, init = {}) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = request({ host: '127.0.0.1', port, path: `/api/1.0-beta${path}`, method: init.method ?? 'GET', headers, agent }, (res) => {
      res.resume();
      res.on('error', reject);
      res.on('end', () => (res.statusCode >= 400 ? reject(new Error(`${init.method ?? 'GET'} ${path}: ${res.statusCode}`)) : resolve(performance.now() - t)));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

async function pool(n, concurrency, one) {
  const out = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await one(i);
      }
    }),
  );
  return out;
}

function openSockets() {
  let n = 0;
  for (const list of [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)]) n += list.length;
  return n;
}

const create = (name, image) => ({ method: 'POST', body: JSON.stringify({ service: 'twitter_stats', labels: { tsvisimage: image } }) });

async function main() {
  // Warm-up: the 50 clients connect (each keeps its connection) and the server's caches fill.
  for (let round = 0; openSockets() < CLIENTS && round < 20; round++) await pool(CLIENTS, CLIENTS, () => timed('/tenant/acme/service'));
  // A server that has made revisions before: the first write after start compiles the
  // resolve, plan and revision paths (about 120 ms once), which is not what clients see after.
  for (let i = 0; i < 3; i++) await timed(`/tenant/acme/service/warm${i}`, create(`warm${i}`, `w${i}`));
  const list = await pool(1000, CLIENTS, () => timed('/tenant/acme/service'));
  const created = await pool(100, CLIENTS, (i) => timed(`/tenant/acme/service/bench${i}`, create(`bench${i}`, `b${i}`)));
  agent.destroy();
  return { list, create: created };
}

main().then(
  (r) => process.send(r, () => process.exit(0)),
  (e) => process.send({ error: e instanceof Error ? e.message : String(e) }, () => process.exit(1)),
);
