/**
 * Benchmark runner: `npm run bench [-- NAME...] [--emit DIR] [--list]`.
 *
 * Runs every registered benchmark, or those whose name starts with one of the
 * NAMEs. Opt-in benchmarks (too slow for every run: `resolve-huge`, the
 * 100,000-claim preset) run only when a NAME is their full name:
 * `npm run bench -- resolve-huge`; `--list` marks them. Each one prints a human-readable table (indented, so it never looks
 * like a figure) and then one line per figure, `name value`, matching
 * `^[a-z0-9_.]+ -?[0-9.]+$` — e.g. `resolve.medium.s 0.21`. Scripts read the
 * figure lines; people read the rest. `--emit DIR` writes the YAML of every
 * generated preset a benchmark uses to `DIR/<preset>/` (see
 * `generator.ts#emitPolicy`), so other engines (Aptomi) can run the same input.
 * Exit status is 1 if any benchmark failed; the others still run.
 *
 * Adding a benchmark
 * ------------------
 * 1. Create `bench/NAME.bench.ts`; the runner imports every `*.bench.ts` here.
 * 2. In it, call `registerBenchmark({ name, description, measures, run })`
 *    from `./registry`:
 *    - `measures` are functions run in a fresh child process through
 *      `ctx.inChild(key, args)`, which returns what the function returned plus
 *      the child's peak RSS. Put anything whose time or memory you report in
 *      a measure: the runner's own heap holds other benchmarks' leftovers.
 *      Measures take and return flat JSON (strings and numbers).
 *    - `run(ctx)` drives them, prints a table with `ctx.table(rows)` that
 *      names the generated input (`describeInput` from `./generator`: seed
 *      and counts), calls `ctx.emitPreset(preset)` for each preset it uses,
 *      and returns its figures, built with `figure(name, value)`. Figure
 *      names start with the benchmark name and end with the unit:
 *      `generate.large.ms`, `resolve.medium.s`, `resolve.large.rss_mib`.
 * 3. `npm run bench -- NAME` to try it.
 * `generate.bench.ts` is a complete example.
 */
import { fork } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChildMessage } from './child';
import { emitPolicy, generatePolicy, isPresetName } from './generator';
import {
  FIGURE_LINE_RE,
  formatFigure,
  listBenchmarks,
  selectBenchmarks,
  type BenchContext,
  type ChildRun,
  type MeasureArgs,
  type RegisteredBenchmark,
} from './registry';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(BENCH_DIR, '..');
const CHILD = join(BENCH_DIR, 'child.ts');

interface Options {
  names: string[];
  emitDir?: string;
  list: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const opts: Options = { names: [], list: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--emit') {
      const dir = argv[++i];
      if (!dir) throw new UsageError('--emit needs a directory');
      opts.emitDir = resolve(dir);
    } else if (a.startsWith('--emit=')) {
      opts.emitDir = resolve(a.slice('--emit='.length));
    } else if (a === '--list') {
      opts.list = true;
    } else if (a === '--help' || a === '-h') {
      throw new UsageError('');
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown option ${a}`);
    } else {
      opts.names.push(a);
    }
  }
  return opts;
}

class UsageError extends Error {}
/** A measure failed in its child; the message already holds the child's stack. */
class ChildError extends Error {}

/** Import every `*.bench.ts`, remembering which file registered which benchmark (the child re-imports it). */
async function loadBenchmarks(): Promise<readonly RegisteredBenchmark[]> {
  const files = readdirSync(BENCH_DIR).filter((f) => f.endsWith('.bench.ts')).sort();
  for (const f of files) {
    const file = join(BENCH_DIR, f);
    const before = listBenchmarks().length;
    await import(pathToFileURL(file).href);
    for (const b of listBenchmarks().slice(before)) b.file = file;
  }
  return listBenchmarks();
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function formatCell(v: string | number): string {
  if (typeof v === 'string') return v;
  return v.toLocaleString('en-US', { maximumFractionDigits: Number.isInteger(v) ? 0 : 2 });
}

function printTable(rows: readonly (readonly (string | number)[])[]): void {
  const cells = rows.map((r) => r.map(formatCell));
  const widths: number[] = [];
  for (const r of cells) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  const numeric = (i: number) => rows.slice(1).every((r) => typeof r[i] === 'number' || r[i] === undefined);
  const line = (r: readonly string[]) =>
    // Leading indent: a table line can never match the figure-line pattern.
    '  ' + r.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  cells.forEach((r, i) => {
    out(line(r));
    if (i === 0) out(line(widths.map((w) => '-'.repeat(w))));
  });
}

function runChild(bench: RegisteredBenchmark, key: string, args: MeasureArgs): Promise<ChildRun> {
  if (!bench.file) return Promise.reject(new Error(`benchmark "${bench.name}" was not loaded from a file`));
  if (!bench.measures?.[key]) return Promise.reject(new Error(`benchmark "${bench.name}" has no measure "${key}"`));
  const started = performance.now();
  // The child loads TypeScript the way we were loaded (tsx, resolved here so
  // it does not depend on the cwd); --expose-gc lets measures collect
  // between repetitions.
  const tsx = import.meta.resolve('tsx');
  const child = fork(CHILD, [bench.file, bench.name, key, JSON.stringify(args)], {
    cwd: REPO_ROOT,
    execArgv: ['--import', tsx, '--expose-gc'],
    // The child's stdout goes to our stderr: only this process writes figures.
    stdio: ['ignore', 2, 'inherit', 'ipc'],
  });
  return new Promise((resolvePromise, reject) => {
    let msg: ChildMessage | undefined;
    child.on('message', (m) => (msg = m as ChildMessage));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (msg?.ok) {
        resolvePromise({
          result: msg.result,
          maxRssMiB: msg.maxRssMiB,
          baselineRssMiB: msg.baselineRssMiB,
          wallMs: performance.now() - started,
        });
      } else {
        reject(new ChildError(msg ? msg.error : `measure ${bench.name}/${key} exited with ${signal ?? `code ${code}`} and no result`));
      }
    });
  });
}

async function main(): Promise<number> {
  let opts: Options;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.message) console.error(`bench: ${e.message}`);
    console.error('usage: npm run bench [-- NAME...] [--emit DIR] [--list]');
    return e.message ? 2 : 0;
  }

  const all = await loadBenchmarks();
  if (opts.list) {
    for (const b of all) out(`${b.name}\t${b.optIn ? '(only when named) ' : ''}${b.description}`);
    return 0;
  }
  const selected = selectBenchmarks(all, opts.names);
  if (selected.length === 0) {
    console.error(`bench: no benchmark starts with ${opts.names.join(', ')} (opt-in ones need their full name); known: ${all.map((b) => b.name).join(', ')}`);
    return 2;
  }

  const cpu = cpus();
  out(`# keelson bench · node ${process.version} · ${process.platform} ${process.arch} · ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? '?'}) · ${(totalmem() / 2 ** 30).toFixed(1)} GiB`);

  const emitted = new Map<string, Promise<void>>();
  const emitPreset = (preset: string): Promise<void> => {
    const dir = opts.emitDir;
    if (!dir) return Promise.resolve();
    if (!isPresetName(preset)) return Promise.reject(new Error(`unknown preset "${preset}"`));
    let p = emitted.get(preset);
    if (!p) {
      p = emitPolicy(join(dir, preset), generatePolicy(preset)).then((r) => out(`  wrote ${r.files.length} files to ${join(dir, preset)}`));
      emitted.set(preset, p);
    }
    return p;
  };

  let failed = 0;
  for (const bench of selected) {
    out('');
    out(`== ${bench.name}: ${bench.description}`);
    const ctx: BenchContext = {
      emitDir: opts.emitDir,
      note: (text) => out(FIGURE_LINE_RE.test(text) ? `  ${text}` : text),
      table: printTable,
      inChild: (key, args = {}) => runChild(bench, key, args),
      emitPreset,
    };
    try {
      const figures = await bench.run(ctx);
      for (const f of figures) out(formatFigure(f));
    } catch (e) {
      failed++;
      const detail = e instanceof ChildError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
      console.error(`bench: ${bench.name} failed: ${detail}`);
    }
  }
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  },
);
