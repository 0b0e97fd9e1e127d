/**
 * Kubernetes resource quantities (`500m`, `2`, `1.5`, `512Mi`, `10Gi`, `1e3`),
 * parsed the Kubernetes way into integers: CPU as millicores, memory and
 * storage as bytes. Integers keep sums exact (Axebow §3: no float drift), and
 * the arithmetic runs on BigInt so `0.1` or `1.1Gi` are not rounded through a
 * binary fraction. Like Kubernetes' `ScaledValue`, a value that does not fall
 * on a whole unit is rounded up (`0.5m` CPU is 1 millicore): a request is a
 * floor the scheduler must honour, so rounding down would understate it.
 *
 * Errors are data: parsers return `{ ok: false, error }`, never throw.
 */

/**
 * Kubernetes quantity syntax, non-negative only (resources and quotas cannot
 * be negative): a decimal number, then at most one suffix — binary
 * (Ki…Ei), decimal (n, u, m, k, M, G, T, P, E) or an exponent (`e3`, `E-2`).
 * `1E` is one exa (a suffix); `1E3` is an exponent, as in Kubernetes.
 */
export const QUANTITY_RE = /^\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$/;

export const QUANTITY_MESSAGE =
  'must be a Kubernetes quantity: a non-negative number with an optional suffix m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi or Ei (e.g. 500m, 2, 1.5, 512Mi, 10Gi)';

const PARTS_RE = /^\+?(\d*)(?:\.(\d*))?(.*)$/;

const DECIMAL_POWER: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_POWER: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

/** Exponents past this can only overflow (or round a non-zero value up to 1), so the BigInt never grows huge. */
const MAX_EXPONENT = 40;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export type QuantityResult = { ok: true; value: number } | { ok: false; error: string };

/** How a quantity is scaled: `milli` for CPU (result in millicores), `unit` for bytes and counts. */
export type QuantityScale = 'milli' | 'unit';

/**
 * Parse a quantity given as text or as a YAML number. Numbers mean the base
 * unit (cores for CPU, bytes for memory), as they do in Kubernetes manifests.
 */
export function parseQuantity(q: unknown, scale: QuantityScale): QuantityResult {
  let text: string;
  if (typeof q === 'number') {
    if (!Number.isFinite(q) || q < 0) return { ok: false, error: `${String(q)} ${QUANTITY_MESSAGE}` };
    // String(0.1) is "0.1" and String(1e21) is "1e+21": both are quantity syntax.
    text = String(q);
  } else if (typeof q === 'string') {
    text = q.trim();
  } else {
    return { ok: false, error: `${describe(q)} ${QUANTITY_MESSAGE}` };
  }
  if (!QUANTITY_RE.test(text)) return { ok: false, error: `${JSON.stringify(q)} ${QUANTITY_MESSAGE}` };
  const m = PARTS_RE.exec(text)!;
  const intPart = m[1] ?? '';
  const fracPart = m[2] ?? '';
  const suffix = m[3] ?? '';
  let num = BigInt((intPart + fracPart) || '0') * (scale === 'milli' ? 1000n : 1n);
  let den = 10n ** BigInt(fracPart.length);
  if (suffix in BINARY_POWER) {
    num *= 1024n ** BigInt(BINARY_POWER[suffix]!);
  } else {
    const power = suffix in DECIMAL_POWER ? DECIMAL_POWER[suffix]! : Number(suffix.slice(1));
    if (power > MAX_EXPONENT) {
      if (num === 0n) return { ok: true, value: 0 };
      return { ok: false, error: `${JSON.stringify(q)} is too large` };
    }
    if (power >= 0) num *= 10n ** BigInt(power);
    else den *= 10n ** BigInt(Math.min(-power, MAX_EXPONENT));
  }
  // Round up, as Kubernetes does when scaling to a whole unit.
  const value = (num + den - 1n) / den;
  if (value > MAX_SAFE) return { ok: false, error: `${JSON.stringify(q)} is too large` };
  return { ok: true, value: Number(value) };
}

/** CPU in integer millicores (`"250m"` → 250, `2` → 2000, `"0.5"` → 500). */
export function parseCpuMillis(q: unknown): QuantityResult {
  return parseQuantity(q, 'milli');
}

/** Memory or storage in integer bytes (`"512Mi"` → 536870912, `"1G"` → 1e9). */
export function parseBytes(q: unknown): QuantityResult {
  return parseQuantity(q, 'unit');
}

/** Syntax check only (schemas, editors). */
export function isQuantity(q: unknown): boolean {
  if (typeof q === 'number') return Number.isFinite(q) && q >= 0;
  return typeof q === 'string' && QUANTITY_RE.test(q.trim());
}

/**
 * Whether a syntactically valid quantity also fits an exact integer in the
 * given scale. Invalid syntax counts as "in range" so that a schema reports
 * one problem (the syntax) rather than two.
 */
export function quantityInRange(q: unknown, scale: QuantityScale): boolean {
  if (!isQuantity(q)) return true;
  return parseQuantity(q, scale).ok;
}

const GIB = 1024 ** 3;

/** Millicores as vCPU for reports: up to 3 decimals, trailing zeros dropped (`1250` → "1.25"). */
export function formatVcpu(millis: number): string {
  const sign = millis < 0 ? '-' : '';
  const abs = Math.abs(millis);
  const whole = Math.floor(abs / 1000);
  const frac = abs % 1000;
  if (frac === 0) return `${sign}${whole}`;
  return `${sign}${whole}.${String(frac).padStart(3, '0').replace(/0+$/, '')}`;
}

/** Bytes as GiB for reports, 2 decimals (`1610612736` → "1.50"). */
export function formatGiB(bytes: number): string {
  return (bytes / GIB).toFixed(2);
}

/** vCPU as a number (reports, prices). */
export function millisToVcpu(millis: number): number {
  return millis / 1000;
}

/** GiB as a number (reports, prices). */
export function bytesToGiB(bytes: number): number {
  return bytes / GIB;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
