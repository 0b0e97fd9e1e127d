/**
 * Resolve benchmarks — a hook, to be replaced once the resolver lands.
 *
 * The resolver (`server/engine/resolve`, exporting `resolvePolicy`) is being
 * written now, so it is imported only if it exists at run time. Until then
 * this benchmark prints one note and reports no figures. To wire it up,
 * follow `generate.bench.ts`: a measure that runs `generatePolicy(preset)`
 * then times `resolvePolicy` in a child (`ctx.inChild`), and `run` reporting
 * `resolve.<preset>.s` and `resolve.<preset>.rss_mib` per preset, with
 * `describeInput` in its table and `ctx.emitPreset(preset)` for `--emit`.
 */
import { registerBenchmark } from './registry';

// A variable specifier keeps the type checker from requiring the module.
const ENGINE = '../server/engine/resolve';

async function loadResolver(): Promise<unknown> {
  try {
    const mod = (await import(ENGINE)) as { resolvePolicy?: unknown };
    return mod.resolvePolicy;
  } catch (e) {
    // Only "the resolver module is not there" means skip; a resolver that
    // fails to load (or misses one of its own imports) is a real error.
    const err = e as { code?: string; message?: string };
    if (err.code === 'ERR_MODULE_NOT_FOUND' && err.message?.includes('/server/engine/resolve\'')) return undefined;
    throw e;
  }
}

registerBenchmark({
  name: 'resolve',
  description: 'resolve the generated Aptomi benchmark policies (small, medium, large)',
  async run(ctx) {
    const resolvePolicy = await loadResolver();
    if (typeof resolvePolicy !== 'function') {
      ctx.note('resolve benchmarks skipped: engine not available');
      return [];
    }
    ctx.note('resolve benchmarks skipped: resolvePolicy exists but bench/resolve.bench.ts does not measure it yet');
    return [];
  },
});
