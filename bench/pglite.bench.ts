/**
 * What a throw-away PGlite database costs (server/db/client.ts): the first in a process boots,
 * runs initdb and every migration and keeps a copy of the migrated data folder; each later one
 * loads that copy. Storage tests open hundreds, so this figure is most of their time.
 *
 * Figures: `pglite.open.first_ms` (boot, initdb, migrations, the copy taken) and
 * `pglite.open.copy_ms` (median of the later opens, from the copy).
 */
import { openDb } from '../server/db/client';
import { figure, median, registerBenchmark, round } from './registry';

const LATER_OPENS = 5;

registerBenchmark({
  name: 'pglite',
  description: 'open a throw-away PGlite database: the first in a process (migrated), then from its copy',
  measures: {
    async open() {
      let t = performance.now();
      const first = await openDb({ pgliteDir: 'memory://' });
      const firstMs = performance.now() - t;
      await first.close();
      const times: number[] = [];
      for (let i = 0; i < LATER_OPENS; i++) {
        t = performance.now();
        const h = await openDb({ pgliteDir: 'memory://' });
        times.push(performance.now() - t);
        await h.close();
      }
      return { firstMs, copyMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times) };
    },
  },
  async run(ctx) {
    const r = (await ctx.inChild('open')).result as Record<string, number>;
    ctx.table([
      ['first open ms', `median of ${LATER_OPENS} later opens ms`, 'min–max ms'],
      [round(r.firstMs!, 0), round(r.copyMs!, 0), `${round(r.minMs!, 0)}–${round(r.maxMs!, 0)}`],
    ]);
    return [figure('pglite.open.first_ms', round(r.firstMs!, 0)), figure('pglite.open.copy_ms', round(r.copyMs!, 0))];
  },
});
