/**
 * Hostile policies saved and previewed by a user with the right (Sam, in the
 * demo's `main`), through tRPC as the console sends them, on the seeded demo
 * with the resolver's worker threads as the server runs them: the payloads
 * of server/testing/hostile-engine.ts (HOSTILE_SAVES), each saved (resolved
 * and its revision computed) and previewed, then a large legitimate policy
 * (60 heavy claims) resolved; a policy list is read alongside each. The
 * service tests (server/services/hostile.test.ts) check that every payload
 * ends as its claim's error; these figures say how fast, which a test on a
 * loaded machine cannot.
 *
 * - hostile.policy.slowest_ms: the slowest save or preview of a payload until
 *   its claim's error is known (target 5,000; the resolver's budget is 120 s,
 *   so an uncapped payload would take minutes).
 * - hostile.policy.read_max_ms: the slowest concurrent read (target 500).
 * - hostile.policy.max_stall_ms: the longest the event loop was held over the
 *   whole run (perf_hooks' event-loop delay, its maximum; target 500).
 */
import { figure, registerBenchmark, round, type MeasureResult } from './registry';

registerBenchmark({
  name: 'hostile.policy',
  description: 'save and preview of hostile policies by a user with the right: time to the claim error, a concurrent read, event-loop stalls',
  measures: {
    async run(): Promise<MeasureResult> {
      const { monitorEventLoopDelay } = await import('node:perf_hooks');
      const { createCaller } = await import('../server/api/root');
      const { openDb } = await import('../server/db/client');
      const { drizzleRepos } = await import('../server/repo/drizzle');
      const { seedDemo } = await import('../server/seed/demo');
      const { createServices } = await import('../server/services');
      const { HOSTILE_SAVES } = await import('../server/testing/hostile-engine');
      const { heavyPolicy } = await import('../server/testing/policies');
      const h = await openDb({ pgliteDir: 'memory://' });
      const repos = drizzleRepos(h.db);
      await seedDemo(repos);
      const services = createServices(repos, { usersFile: undefined, domainAdmins: [], resolver: { threads: 2, timeoutMs: 120_000, memoryMb: 512, warmSandbox: true } });
      const sam = { id: 'local:Sam', name: 'Sam', labels: { global_ops: 'true' }, provider: 'test' as const };
      const api = () => createCaller({ actor: sam, services });
      try {
        await services.revisions!.ensureForGeneration(await repos.policy.head());
        const reads: number[] = [];
        const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
          const t0 = performance.now();
          const read = (async () => {
            await new Promise((r) => setImmediate(r));
            const r0 = performance.now();
            await api().policy.list({});
            reads.push(performance.now() - r0);
          })();
          const value = await work();
          const ms = performance.now() - t0;
          await read;
          return { value, ms };
        };
        const loop = monitorEventLoopDelay({ resolution: 5 });
        loop.enable();
        let slowest = { ms: 0, name: '' };
        const note = (ms: number, name: string) => {
          if (ms > slowest.ms) slowest = { ms, name };
        };
        for (const p of HOSTILE_SAVES) {
          const saved = await timed(async () => {
            const w = await api().policy.applyText({ text: p.yaml, baseGeneration: await repos.policy.head() });
            const state = (await services.resolution.ensure(w.generation)).state;
            await services.revisions!.ensureForGeneration(w.generation);
            return state.claims.find((c) => c.namespace === 'main' && c.name === p.claim);
          });
          if (saved.value?.status !== 'error' || !p.error.test(saved.value.errors[0] ?? '')) throw new Error(`${p.name}: saved, its claim did not fail on the cap: ${JSON.stringify(saved.value?.errors)}`);
          note(saved.ms, `${p.name} (saved)`);
          const previewed = await timed(() => api().revisions.preview({ text: p.yaml }));
          if (!previewed.value.ok) throw new Error(`${p.name}: the preview failed`);
          note(previewed.ms, `${p.name} (previewed)`);
        }
        const w = await api().policy.applyText({ text: heavyPolicy(60), baseGeneration: await repos.policy.head() });
        const heavy = await timed(async () => (await services.resolution.ensure(w.generation)).state);
        if (heavy.value.claims.filter((c) => c.name.startsWith('hv') && c.status === 'resolved').length !== 60) throw new Error('the heavy policy did not resolve');
        loop.disable();
        return { slowestMs: slowest.ms, slowest: slowest.name, readMaxMs: Math.max(...reads), reads: reads.length, maxStall: loop.max / 1e6, heavyMs: heavy.ms };
      } finally {
        await services.resolution.close();
        await h.close();
      }
    },
  },
  async run(ctx) {
    const r = (await ctx.inChild('run')).result;
    const n = (k: string) => Number(r[k]);
    ctx.table([
      ['measured', 'ms', 'target ms'],
      [`slowest hostile save or preview: ${String(r.slowest)}`, round(n('slowestMs'), 0), 5000],
      [`slowest of ${n('reads')} concurrent reads`, round(n('readMaxMs'), 1), 500],
      ['event-loop stall, the whole run', round(n('maxStall'), 1), 500],
      ['60 heavy claims resolved (not a figure)', round(n('heavyMs'), 0), ''],
    ]);
    return [figure('hostile.policy.slowest_ms', round(n('slowestMs'), 0)), figure('hostile.policy.read_max_ms', round(n('readMaxMs'), 1)), figure('hostile.policy.max_stall_ms', round(n('maxStall'), 1))];
  },
});
