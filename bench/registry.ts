/**
 * The benchmark registry: `*.bench.ts` files call `registerBenchmark` when
 * imported; `run.ts` imports them, runs the selected ones and prints their
 * figures; `child.ts` imports one of them again in a fresh process to run a
 * single measurement. See the top of `run.ts` for how to add a benchmark.
 */

/** One number a benchmark reports, printed as `name value`. */
export interface Figure {
  /** Lower-case dotted name, e.g. `resolve.medium.s`; the unit is the last part. */
  name: string;
  value: number;
}

/** Arguments and results cross a process boundary, so they stay flat and JSON-safe. */
export type MeasureArgs = Record<string, string | number | boolean>;
export type MeasureResult = Record<string, string | number>;

/** A function run in a child process so that its time and memory are its own. */
export type Measure = (args: MeasureArgs) => Promise<MeasureResult> | MeasureResult;

export interface ChildRun {
  /** What the measure returned. */
  result: MeasureResult;
  /** Peak resident set size of the child over its whole life, MiB. */
  maxRssMiB: number;
  /** Peak RSS of the child after loading the benchmark file, before measuring, MiB. */
  baselineRssMiB: number;
  /** Wall time of the whole child, start-up included, ms. */
  wallMs: number;
}

export interface BenchContext {
  /** `--emit DIR`, when given. */
  readonly emitDir: string | undefined;
  /** Print a human-readable line (never mistaken for a figure line). */
  note(text: string): void;
  /** Print an aligned table; the first row is the header. */
  table(rows: readonly (readonly (string | number)[])[]): void;
  /** Run `measures[key](args)` of this benchmark in a fresh Node process. */
  inChild(key: string, args?: MeasureArgs): Promise<ChildRun>;
  /**
   * With `--emit DIR`, write the generated preset's YAML to `DIR/<preset>/`
   * (once per run, however many benchmarks use the preset); otherwise nothing.
   */
  emitPreset(preset: string): Promise<void>;
}

export interface Benchmark {
  /** Lower-case, dotted or dashed; also the prefix of its figures by convention. */
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<Figure[]>;
  /** Measurements `run` starts with `ctx.inChild(key, args)`. */
  measures?: Record<string, Measure>;
  /**
   * Too slow for every run (the huge preset): runs only when named in full,
   * `npm run bench -- resolve-huge`, never by default nor by a shorter prefix.
   */
  optIn?: boolean;
}

export interface RegisteredBenchmark extends Benchmark {
  /** Absolute path of the file that registered it (set by the loader). */
  file?: string;
}

export const FIGURE_NAME_RE = /^[a-z0-9_.]+$/;
export const FIGURE_LINE_RE = /^[a-z0-9_.]+ -?[0-9.]+$/;
const BENCHMARK_NAME_RE = /^[a-z0-9][a-z0-9_.-]*$/;

const benchmarks: RegisteredBenchmark[] = [];

export function registerBenchmark(b: Benchmark): void {
  if (!BENCHMARK_NAME_RE.test(b.name)) throw new Error(`benchmark name "${b.name}" must be lower-case letters, digits, "_", "." or "-"`);
  if (benchmarks.some((x) => x.name === b.name)) throw new Error(`benchmark "${b.name}" is registered twice`);
  benchmarks.push({ ...b });
}

export function listBenchmarks(): readonly RegisteredBenchmark[] {
  return benchmarks;
}

/**
 * The benchmarks a run with these NAMEs runs: all but the opt-in ones when
 * none is given; else those whose name starts with a NAME, opt-in ones only
 * when a NAME is their whole name (`resolve` must not start a minute-long
 * `resolve-huge`).
 */
export function selectBenchmarks<B extends Benchmark>(all: readonly B[], names: readonly string[]): B[] {
  if (names.length === 0) return all.filter((b) => !b.optIn);
  return all.filter((b) => names.some((n) => (b.optIn ? b.name === n : b.name.startsWith(n))));
}

/** Build a figure, refusing names the figure-line format cannot carry. */
export function figure(name: string, value: number): Figure {
  if (!FIGURE_NAME_RE.test(name)) throw new Error(`figure name "${name}" must match ${FIGURE_NAME_RE}`);
  if (!Number.isFinite(value)) throw new Error(`figure ${name} is not a finite number (${value})`);
  // toFixed switches to exponent notation from 1e21 on, which the line format forbids.
  if (Math.abs(value) >= 1e21) throw new Error(`figure ${name} is too large to print as a plain decimal (${value})`);
  return { name, value };
}

/**
 * `name value` with the value in plain decimal: no exponent (so it matches
 * FIGURE_LINE_RE), integers as such, others with at most 3 decimals.
 */
export function formatFigure(f: Figure): string {
  const v = Number.isInteger(f.value) ? f.value.toFixed(0) : trimZeros(f.value.toFixed(3));
  return `${f.name} ${v === '-0' ? '0' : v}`;
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** Peak RSS of this process so far, MiB (Node reports KiB). */
export function maxRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Round for display and for figures: `digits` decimals. */
export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
