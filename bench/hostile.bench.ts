/**
 * A console under hostile input from users with no role: while one client
 * asks `GET /` back to back, another — a user no ACL rule or tenant gives
 * a role — sends a hostile payload in every language the server evaluates
 * (server/testing/hostile-languages.ts) through every door that takes it:
 * save, preview, Capact's Try it (tRPC), an API create's bundle (REST,
 * multipart, a dry run), Deployment Manager's expand, and a tenant's
 * selector rules; three rounds, four in flight. Every one must be refused.
 *
 * The console is the one of the tests (server/testing/console.ts: REST, DM,
 * tRPC and `GET /` on one event loop; PGlite on its own thread and the
 * resolver's worker threads, as `npm start` has them); each client is a
 * process of its own.
 * - hostile.norole.get_p99_ms: p99 latency of `GET /` meanwhile (target ≤ 250).
 * - hostile.norole.max_stall_ms: the longest the server's event loop was
 *   held meanwhile (perf_hooks' event-loop delay, its maximum).
 * - hostile.norole.slowest_refusal_ms: the slowest refusal, sending
 *   included (target: every one within 2,000).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { figure, registerBenchmark, round, type Figure } from './registry';

const ROUNDS = 3;
const IN_FLIGHT = 4;

function p(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

/** A client process (hostile-clients.ts), and its next message. */
function client(args: string[]): { proc: ChildProcess; next<T>(): Promise<T> } {
  const proc = fork(fileURLToPath(new URL('./hostile-clients.ts', import.meta.url)), args, { execArgv: ['--import', 'tsx'] });
  return {
    proc,
    next<T>() {
      return new Promise<T>((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`a client (${args[0]}) exited (${code}) without an answer`));
        proc.once('exit', onExit);
        proc.once('message', (m) => {
          proc.off('exit', onExit);
          const e = (m as { error?: string }).error;
          if (e) reject(new Error(`client ${args[0]}: ${e}`));
          else resolve(m as T);
        });
      });
    },
  };
}

registerBenchmark({
  name: 'hostile',
  description: 'GET / latency and event-loop stalls while users with no role send hostile payloads in every language through every door',
  measures: {
    async run() {
      const { monitorEventLoopDelay } = await import('node:perf_hooks');
      const { openDb } = await import('../server/db/client');
      const { drizzleRepos } = await import('../server/repo/drizzle');
      const { seedDemo } = await import('../server/seed/demo');
      const { createServices } = await import('../server/services');
      const { serveEveryDoorForTests } = await import('../server/testing/console');
      const { HOSTILE_TENANT } = await import('../server/testing/hostile-doors');
      const h = await openDb({ pgliteDir: 'memory://', pgliteThread: true });
      const repos = drizzleRepos(h.db, { exclusive: true });
      await seedDemo(repos);
      const services = createServices(repos, { usersFile: undefined, domainAdmins: [], freeNamespaces: ['acme-*'], resolver: { threads: 2, timeoutMs: 60_000, memoryMb: 2048 } });
      await services.tenants.create({ id: 'local:Olga', name: 'Olga', labels: {}, provider: 'test' }, { name: HOSTILE_TENANT.name, namespaces: [HOSTILE_TENANT.namespace] });
      await services.revisions.ensureForGeneration(await repos.policy.head());
      const server = await serveEveryDoorForTests(services);
      try {
        // One round first, unmeasured: the server's paths compiled, as on a console that has been serving.
        const warm = client(['send', server.url, 'nina', '1', String(IN_FLIGHT)]);
        await warm.next();
        warm.proc.send('go');
        await warm.next();

        const prober = client(['probe', server.url]);
        const sender = client(['send', server.url, 'nina', String(ROUNDS), String(IN_FLIGHT)]);
        await Promise.all([prober.next(), sender.next()]);
        const loop = monitorEventLoopDelay({ resolution: 5 });
        loop.enable();
        sender.proc.send('go');
        const { answers } = await sender.next<{ answers: { name: string; status: number; ms: number }[] }>();
        loop.disable();
        const probed = prober.next<{ latencies: number[] }>();
        prober.proc.send('stop');
        const { latencies } = await probed;
        const wrong = answers.filter((a) => a.status !== 403);
        if (wrong.length) throw new Error(`not refused: ${wrong.map((a) => `${a.name}: ${a.status}`).join('; ')}`);
        const slowest = answers.reduce((a, b) => (b.ms > a.ms ? b : a));
        return {
          requests: answers.length,
          probes: latencies.length,
          getP50: p(latencies, 0.5),
          getP99: p(latencies, 0.99),
          getMax: Math.max(...latencies),
          maxStall: loop.max / 1e6,
          slowestMs: slowest.ms,
          slowest: slowest.name,
        };
      } finally {
        await server.close();
        await services.resolution.close();
        await h.close();
      }
    },
  },
  async run(ctx) {
    const r = (await ctx.inChild('run')).result as Record<string, number> & { slowest: string };
    ctx.table([
      ['measured', 'n', 'p50 ms', 'p99 ms', 'max ms'],
      ['GET /', r.probes!, round(r.getP50!, 1), round(r.getP99!, 1), round(r.getMax!, 1)],
      ['hostile requests, all refused', r.requests!, '', '', round(r.slowestMs!, 1)],
      ['event-loop stall', '', '', '', round(r.maxStall!, 1)],
    ]);
    ctx.note(`slowest refusal: ${r.slowest}`);
    const figures: Figure[] = [
      figure('hostile.norole.get_p99_ms', round(r.getP99!, 1)),
      figure('hostile.norole.max_stall_ms', round(r.maxStall!, 1)),
      figure('hostile.norole.slowest_refusal_ms', round(r.slowestMs!, 1)),
    ];
    return figures;
  },
});
