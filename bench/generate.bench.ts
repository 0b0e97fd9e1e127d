/**
 * How long generating each preset takes, in a fresh process per preset.
 * Generation runs before every resolve benchmark, so it must stay cheap next
 * to resolution (large in well under 2 s).
 *
 * Figures: `generate.<preset>.ms` (median of warm runs), `generate.<preset>.rss_mib`
 * (the child's peak RSS right after the first generation, the generated
 * policy still alive), and `generate.large.objects`.
 */
import { describeInput, generatePolicy, isPresetName, PRESET_NAMES, type PresetName } from './generator';
import { figure, maxRssMiB, median, registerBenchmark, round, type Figure } from './registry';

/** Warm repetitions after the first (cold) run; fewer for the bigger presets. */
const REPEATS: Record<PresetName, number> = { small: 9, medium: 7, large: 5, huge: 3 };

registerBenchmark({
  name: 'generate',
  description: 'generate Aptomi benchmark policies (bench/generator.ts), one fresh process per preset',
  measures: {
    preset(args) {
      const preset = String(args.preset);
      if (!isPresetName(preset)) throw new Error(`unknown preset "${preset}"`);
      const gc = (globalThis as { gc?: () => void }).gc;

      let t = performance.now();
      let g: ReturnType<typeof generatePolicy> | undefined = generatePolicy(preset);
      const coldMs = performance.now() - t;
      // maxRSS only grows, so reading it now gives the peak of one generation
      // (plus the process's baseline), unaffected by the repetitions below.
      const rssMiB = maxRssMiB();
      const input = describeInput(g);
      const objects = g.objects.length;
      const users = g.users.length;
      g = undefined;

      const times: number[] = [];
      for (let i = 0; i < REPEATS[preset]; i++) {
        gc?.();
        t = performance.now();
        generatePolicy(preset);
        times.push(performance.now() - t);
      }
      return {
        coldMs,
        medianMs: median(times),
        minMs: Math.min(...times),
        maxMs: Math.max(...times),
        repeats: times.length,
        objects,
        users,
        rssMiB,
        input,
      };
    },
  },
  async run(ctx) {
    const figures: Figure[] = [];
    const rows: (string | number)[][] = [['preset', 'cold ms', 'median ms', 'min–max ms', 'objects', 'users', 'base MiB', 'peak MiB', 'input']];
    for (const preset of PRESET_NAMES) {
      await ctx.emitPreset(preset);
      const run = await ctx.inChild('preset', { preset });
      const r = run.result;
      const num = (k: string) => Number(r[k]);
      rows.push([
        preset,
        round(num('coldMs'), 1),
        round(num('medianMs'), 1),
        `${num('minMs').toFixed(1)}–${num('maxMs').toFixed(1)} (×${num('repeats')})`,
        num('objects'),
        num('users'),
        round(run.baselineRssMiB, 0),
        round(num('rssMiB'), 0),
        String(r.input),
      ]);
      figures.push(figure(`generate.${preset}.ms`, round(num('medianMs'), 1)));
      figures.push(figure(`generate.${preset}.rss_mib`, round(num('rssMiB'), 1)));
      if (preset === 'large') figures.push(figure('generate.large.objects', num('objects')));
    }
    ctx.table(rows);
    return figures;
  },
});
