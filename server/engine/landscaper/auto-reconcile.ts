/**
 * Landscaper's `automaticReconcile` (reference landscaper.md §10,
 * retry_helper.go), as a pure decision: given an installation's setting,
 * its phase, its generation, what was done so far and the time, is a
 * reconcile due now, and what is remembered afterwards?
 *
 *  - failedReconcile (Failed): the first time, reconcile at once (count 1);
 *    then every `interval` (default 5m) or at the next `cronSpec` time after
 *    the last one; stop at `numberOfReconciles` (unset: no limit).
 *  - succeededReconcile (Succeeded): the first time, only remember (count
 *    0); then every `interval` (default 24h) or per `cronSpec`.
 *  - What is remembered starts over on a new generation or a flip between
 *    failed and succeeded.
 */

export interface ReconcileSetting {
  interval?: string;
  cronSpec?: string;
  /** failedReconcile only. */
  numberOfReconciles?: number;
}

export interface AutomaticReconcile {
  succeededReconcile?: ReconcileSetting;
  failedReconcile?: ReconcileSetting;
}

export interface ReconcileMemory {
  /** The generation it counts for (the applied revision's). */
  generation: number;
  count: number;
  /** ISO time of the last reconcile (or of the first look, for succeeded ones). */
  lastAt: string;
  onFailed: boolean;
}

export type ReconcileDecision = { due: boolean; memory: ReconcileMemory; why: string } | { due: false; memory?: undefined; why: string };

const DEFAULT_FAILED_MS = 5 * 60_000;
const DEFAULT_SUCCEEDED_MS = 24 * 3600_000;
/** A reconcile more often than this would be a storm, not a retry. */
export const MIN_INTERVAL_MS = 60_000;

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration (`5m`, `1h30m`, `90s`, `1.5h`) in milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s)) return undefined;
  let total = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return total;
}

interface CronField {
  values: Set<number>;
  any: boolean;
}

function cronField(text: string, min: number, max: number): CronField | undefined {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const step = m[2] ? Number(m[2]) : 1;
    if (step < 1) return undefined;
    let lo = min;
    let hi = max;
    if (m[1] !== '*') {
      const [a, b] = m[1]!.split('-').map(Number) as [number, number | undefined];
      lo = a;
      hi = b ?? (m[2] ? max : a);
    }
    if (lo < min || hi > max || lo > hi) return undefined;
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, any: text === '*' };
}

/**
 * The first time after `after` (exclusive, whole minutes, UTC) that a
 * five-field cron spec (`min hour day-of-month month day-of-week`) names;
 * undefined when the spec is not one or names no time within four years.
 * Day-of-month and day-of-week combine as cron's do: either matches when
 * both are restricted.
 */
export function nextCronTime(spec: string, after: Date): Date | undefined {
  const parts = spec.trim().split(/\s+/);
  if (parts.length !== 5) return undefined;
  const [mi, h, dom, mon, dow] = [cronField(parts[0]!, 0, 59), cronField(parts[1]!, 0, 23), cronField(parts[2]!, 1, 31), cronField(parts[3]!, 1, 12), cronField(parts[4]!.replace(/\b7\b/g, '0'), 0, 6)];
  if (!mi || !h || !dom || !mon || !dow) return undefined;
  const t = new Date(Math.floor(after.getTime() / 60_000) * 60_000 + 60_000);
  const limit = after.getTime() + 4 * 366 * 24 * 3600_000;
  while (t.getTime() <= limit) {
    const dayOk = dom.any || dow.any ? dom.values.has(t.getUTCDate()) && dow.values.has(t.getUTCDay()) : dom.values.has(t.getUTCDate()) || dow.values.has(t.getUTCDay());
    if (!mon.values.has(t.getUTCMonth() + 1) || !dayOk) {
      t.setUTCHours(0, 0, 0, 0);
      t.setUTCDate(t.getUTCDate() + 1);
      continue;
    }
    if (!h.values.has(t.getUTCHours())) {
      t.setUTCMinutes(0, 0, 0);
      t.setUTCHours(t.getUTCHours() + 1);
      continue;
    }
    if (!mi.values.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return t;
  }
  return undefined;
}

/** Problems with a setting, in the words the installation's outcome shows. */
export function checkSetting(s: ReconcileSetting | undefined, which: string): string[] {
  if (!s) return [];
  const out: string[] = [];
  if (s.interval !== undefined) {
    const ms = parseDuration(s.interval);
    if (ms === undefined) out.push(`${which}.interval "${s.interval}" is not a duration such as 5m or 24h`);
    else if (ms < MIN_INTERVAL_MS) out.push(`${which}.interval ${s.interval} is under a minute`);
  }
  if (s.cronSpec !== undefined && nextCronTime(s.cronSpec, new Date(0)) === undefined) out.push(`${which}.cronSpec "${s.cronSpec}" is not a five-field cron spec`);
  if (s.numberOfReconciles !== undefined && !(Number.isInteger(s.numberOfReconciles) && s.numberOfReconciles >= 0)) out.push(`${which}.numberOfReconciles must be a whole number`);
  return out;
}

/** When the next reconcile after `last` is due under a setting (cron first, as Landscaper reads it). */
function nextAfter(s: ReconcileSetting, last: Date, fallbackMs: number): Date | undefined {
  if (s.cronSpec) return nextCronTime(s.cronSpec, last);
  const ms = s.interval !== undefined ? parseDuration(s.interval) : fallbackMs;
  if (ms === undefined || ms < MIN_INTERVAL_MS) return undefined;
  return new Date(last.getTime() + ms);
}

export function reconcileDecision(setting: AutomaticReconcile | undefined, phase: 'Succeeded' | 'Failed', generation: number, memory: ReconcileMemory | undefined, now: Date): ReconcileDecision {
  const failed = phase === 'Failed';
  const s = failed ? setting?.failedReconcile : setting?.succeededReconcile;
  if (!s) return { due: false, why: `no automatic reconcile when ${failed ? 'failed' : 'succeeded'}` };
  const fresh = !memory || memory.generation !== generation || memory.onFailed !== failed;
  const at = now.toISOString();
  if (fresh) {
    if (failed && s.numberOfReconciles === 0) return { due: false, memory: { generation, count: 0, lastAt: at, onFailed: true }, why: 'failed: numberOfReconciles is 0' };
    return failed
      ? { due: true, memory: { generation, count: 1, lastAt: at, onFailed: true }, why: 'failed: first automatic reconcile' }
      : { due: false, memory: { generation, count: 0, lastAt: at, onFailed: false }, why: 'succeeded: the first look only starts the clock' };
  }
  if (failed && s.numberOfReconciles !== undefined && memory.count >= s.numberOfReconciles) return { due: false, why: `failed: all ${s.numberOfReconciles} automatic reconciles done` };
  const next = nextAfter(s, new Date(memory.lastAt), failed ? DEFAULT_FAILED_MS : DEFAULT_SUCCEEDED_MS);
  if (!next) return { due: false, why: 'the setting names no next time' };
  if (now < next) return { due: false, why: `next at ${next.toISOString()}` };
  return { due: true, memory: { generation, count: memory.count + 1, lastAt: at, onFailed: failed }, why: `${failed ? 'failed' : 'succeeded'}: reconcile ${memory.count + 1}${failed && s.numberOfReconciles !== undefined ? ` of ${s.numberOfReconciles}` : ''}` };
}
