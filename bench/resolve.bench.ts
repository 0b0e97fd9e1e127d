/**
 * Resolution speed on Aptomi's benchmark policies (bench/generator.ts):
 * small = 50 bundles / 100 users / 500 claims, medium = 100 / 10,000 / 2,000,
 * large = 1,000 bundles / 20,000 users / 20,000 claims. Each preset runs in
 * its own process, so the peak RSS is that of one resolution (plus the
 * generated input and Node itself).
 *
 * Aptomi's resolver on the same shapes (2 vCPU, reference aptomi.md §9):
 * medium 1.1–1.2 s, large 23–33 s.
 *
 * Figures: resolve.<preset>.s (median wall time of a full resolution as the
 * server runs it: decision traces are computed on demand, per claim, when
 * someone looks at one), resolve.large.rss_mib,
 * resolve.large.instances, resolve.<preset>.claims_resolved, and
 * resolve.incremental.ms (re-resolving after one claim changed, large).
 *
 * `resolve-huge` (issue 16) does the same for the huge preset, 10,000
 * bundles / 100,000 users / 100,000 claims, once (a run takes tens of
 * seconds, so it is opt-in: `npm run bench -- resolve-huge`). Figures:
 * resolve.huge.s (wall time of the one resolution in its child process),
 * resolve.huge.rss_mib (the child's peak RSS right after it: Node, the
 * generated input and the resolution), resolve.huge.instances and
 * resolve.huge.claims_resolved. Targets: 10 s and 2,048 MiB.
 */
import { claimsOf, resolvePolicy, ResolveSession } from '../server/engine/resolve';
import { describeInput, generatePolicy, toPolicyInput, isPresetName, PRESET_NAMES, type PresetName } from './generator';
import { figure, maxRssMiB, median, registerBenchmark, round, type Figure, type MeasureArgs, type MeasureResult } from './registry';

/** Huge runs once: a second run would double a minute-long benchmark to smooth JIT warm-up that is a sliver of it. */
const REPEATS: Record<PresetName, number> = { small: 7, medium: 5, large: 3, huge: 1 };

/** Resolve one preset REPEATS times in this (child) process. */
function measurePreset(args: MeasureArgs): MeasureResult {
  const preset = String(args.preset);
  if (!isPresetName(preset)) throw new Error(`unknown preset "${preset}"`);
  const g = generatePolicy(preset);
  const input = toPolicyInput(g);
  const gc = (globalThis as { gc?: () => void }).gc;
  const times: number[] = [];
  let instances = 0;
  let resolved = 0;
  let claims = 0;
  let rss = 0;
  for (let i = 0; i < REPEATS[preset]; i++) {
    gc?.();
    const t = performance.now();
    const state = resolvePolicy(input, { trace: false });
    times.push(performance.now() - t);
    if (i === 0) rss = maxRssMiB();
    instances = state.instances.length;
    claims = state.claims.length;
    resolved = state.claims.filter((c) => c.status === 'resolved').length;
  }
  return { medianMs: median(times), firstMs: times[0]!, instances, claims, resolved, rssMiB: rss, input: describeInput(g) };
}

const PRESET_HEADER = ['preset', 'first s', 'median s', 'claims', 'resolved', 'instances', 'peak MiB', 'input'];

function presetRow(preset: string, r: MeasureResult): (string | number)[] {
  const n = (k: string) => Number(r[k]);
  return [preset, round(n('firstMs') / 1000, 3), round(n('medianMs') / 1000, 3), n('claims'), n('resolved'), n('instances'), round(n('rssMiB'), 0), String(r.input)];
}

registerBenchmark({
  name: 'resolve',
  description: 'resolve the generated Aptomi benchmark policies (small, medium, large) and re-resolve one changed claim',
  measures: {
    preset: measurePreset,
    incremental() {
      const g = generatePolicy('large');
      const input = toPolicyInput(g);
      const session = new ResolveSession(input, { trace: false });
      const claims = claimsOf(input.objects);
      const times: number[] = [];
      let changedInstances = 0;
      for (let i = 0; i < 15; i++) {
        // A claim's labels change (the usual edit): it may now reach other instances.
        const c = claims[(i * 7919) % claims.length]!;
        const edited = { ...c, spec: { ...c.spec, labels: { ...(c.spec.labels ?? {}), edited: String(i) } } };
        const t = performance.now();
        const state = session.updateClaims({ upserts: [edited] });
        times.push(performance.now() - t);
        changedInstances = state.instances.length;
      }
      return { medianMs: median(times), maxMs: Math.max(...times), instances: changedInstances };
    },
  },
  async run(ctx) {
    const figures: Figure[] = [];
    const rows: (string | number)[][] = [PRESET_HEADER];
    for (const preset of PRESET_NAMES) {
      await ctx.emitPreset(preset);
      const run = await ctx.inChild('preset', { preset });
      const r = run.result;
      const n = (k: string) => Number(r[k]);
      rows.push(presetRow(preset, r));
      figures.push(figure(`resolve.${preset}.s`, round(n('medianMs') / 1000, 3)));
      figures.push(figure(`resolve.${preset}.claims_resolved`, n('resolved')));
      if (preset === 'large') {
        figures.push(figure('resolve.large.rss_mib', round(n('rssMiB'), 1)));
        figures.push(figure('resolve.large.instances', n('instances')));
      }
    }
    ctx.table(rows);
    const inc = await ctx.inChild('incremental');
    ctx.note(`incremental (large, one claim's labels changed, 15 runs): median ${round(Number(inc.result.medianMs), 1)} ms, max ${round(Number(inc.result.maxMs), 1)} ms`);
    figures.push(figure('resolve.incremental.ms', round(Number(inc.result.medianMs), 1)));
    return figures;
  },
});

registerBenchmark({
  name: 'resolve-huge',
  description: 'resolve the huge preset (10,000 bundles, 100,000 claims) once; opt-in, it takes tens of seconds',
  optIn: true,
  measures: { preset: measurePreset },
  async run(ctx) {
    await ctx.emitPreset('huge');
    const r = (await ctx.inChild('preset', { preset: 'huge' })).result;
    ctx.table([PRESET_HEADER, presetRow('huge', r)]);
    ctx.note('targets (issue 16): resolve.huge.s ≤ 10, resolve.huge.rss_mib ≤ 2048');
    return [
      figure('resolve.huge.s', round(Number(r.medianMs) / 1000, 3)),
      figure('resolve.huge.rss_mib', round(Number(r.rssMiB), 1)),
      figure('resolve.huge.instances', Number(r.instances)),
      figure('resolve.huge.claims_resolved', Number(r.resolved)),
    ];
  },
});
