/**
 * Go value formatting and parsing rules, reproduced in TypeScript.
 *
 * Aptomi's expressions (govaluate) and templates (text/template) are Go code,
 * so what a policy author sees -- `'n' + 1000000` concatenating to
 * `n1e+06`, a map printing as `map[a:1 b:2]`, `printf "%05.1f"` -- is decided
 * by Go's `fmt` and `strconv`. The helpers here implement the subset those two
 * languages can reach (strconv and numbers here; fmt's printing in
 * ./gosprint.ts), with JS values standing in for Go ones:
 *
 *   string -> string, number -> float64 (or int, see NumberStyle), boolean ->
 *   bool, null/undefined -> nil, array -> []interface{}, plain object or Map
 *   -> map[string]interface{}.
 */

/**
 * How numbers map onto Go types.
 * - `float64`: every number is a float64 (govaluate converts all numeric
 *   parameters to float64, so `%v` formatting applies: 1e6 prints `1e+06`).
 * - `int-aware`: integral numbers behave as Go `int` (templates, where labels
 *   and literals such as `5` are ints), others as float64.
 */
export type NumberStyle = 'float64' | 'int-aware';

const MAX_INT64 = 9223372036854775807; // rounds to 2^63 as a double

// ---------------------------------------------------------------------------
// strconv parsing

/** strconv.ParseBool: exactly the spellings Go accepts, else undefined. */
export function parseGoBool(s: string): boolean | undefined {
  switch (s) {
    case '1': case 't': case 'T': case 'TRUE': case 'true': case 'True':
      return true;
    case '0': case 'f': case 'F': case 'FALSE': case 'false': case 'False':
      return false;
    default:
      return undefined;
  }
}

const ATOI_RE = /^[+-]?[0-9]+$/;

/**
 * strconv.Atoi on a 64-bit platform: optional sign and ASCII digits only, in
 * int64 range. Anything else (spaces, "1.5", "0x10", "1_000") is not an int.
 */
export function parseGoInt(s: string): number | undefined {
  // Most label values are words: skip the regex unless it could be a number.
  const c = s.charCodeAt(0);
  if (!((c >= 48 && c <= 57) || c === 43 || c === 45)) return undefined;
  if (!ATOI_RE.test(s)) return undefined;
  // Range check on the exact value: "9223372036854775808" must be rejected
  // even though it rounds to a representable double.
  if (s.length > 18) {
    const big = BigInt(s);
    if (big > 9223372036854775807n || big < -9223372036854775808n) return undefined;
  }
  return Number(s);
}

// ---------------------------------------------------------------------------
// Strings

/** Go orders strings by UTF-8 bytes, which equals code point order; JS `<`
 * compares UTF-16 units, which differs for characters above U+FFFF. */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

// Surrogates (U+D800..DFFF) encode code points >= U+10000, so they must sort
// after U+E000..FFFF; shifting the two ranges restores code point order.
function codeUnitRank(u: number): number {
  if (u >= 0xd800 && u <= 0xdfff) return u + 0x2000;
  if (u >= 0xe000) return u - 0x800;
  return u;
}

/** len() of a Go string counts UTF-8 bytes. */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
        continue;
      }
      n += 3; // lone surrogate: encoded as U+FFFD
    } else n += 3;
  }
  return n;
}

export function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const PRINTABLE_RE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** strconv.Quote: a double-quoted Go string literal. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    out += quoteRune(ch, '"');
  }
  return out + '"';
}

/** strconv.QuoteRune: a single-quoted Go rune literal. */
export function goQuoteRune(codePoint: number): string {
  const ch = isValidCodePoint(codePoint) ? String.fromCodePoint(codePoint) : '\ufffd';
  return "'" + quoteRune(ch, "'") + "'";
}

function quoteRune(ch: string, quote: string): string {
  let cp = ch.codePointAt(0) ?? 0xfffd;
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // lone surrogate
  if (ch === quote || ch === '\\') return '\\' + ch;
  if (cp === 0xfffd || PRINTABLE_RE.test(ch)) return String.fromCodePoint(cp);
  switch (cp) {
    case 7: return '\\a';
    case 8: return '\\b';
    case 12: return '\\f';
    case 10: return '\\n';
    case 13: return '\\r';
    case 9: return '\\t';
    case 11: return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + hex2(cp);
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

export function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

export function isValidCodePoint(cp: number): boolean {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
}

/** strconv.CanBackquote: true when s can be written as a raw `string`. */
export function canBackquote(s: string): boolean {
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '`' || cp === 0xfeff || cp === 0xfffd) return false;
    if (cp < 0x20 && cp !== 9) return false;
    if (cp === 0x7f) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Floating point (strconv.FormatFloat)

interface Decimal {
  /** Significant digits without leading or trailing zeros ("" for zero). */
  digits: string;
  /** Position of the decimal point relative to `digits` (value = 0.digits × 10^dp). */
  dp: number;
}

/** Shortest digits that round-trip, which is what Go's %v uses. JS's
 * toExponential() without an argument produces exactly those digits. */
function shortestDecimal(x: number): Decimal {
  if (x === 0) return { digits: '', dp: 0 };
  const [mant = '0', exp = '0'] = x.toExponential().split('e');
  const digits = mant.replace('.', '');
  return { digits, dp: Number(exp) + 1 };
}

/** The exact decimal expansion of a positive finite double, via BigInt. */
function exactDecimal(x: number): Decimal {
  if (x === 0) return { digits: '', dp: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  let exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  if (exp === 0) exp = 1;
  else mant |= 1n << 52n;
  exp -= 1075; // value = mant × 2^exp
  let s: string;
  let dp: number;
  if (exp >= 0) {
    s = (mant << BigInt(exp)).toString();
    dp = s.length;
  } else {
    // mant × 2^exp = mant × 5^-exp / 10^-exp
    s = (mant * 5n ** BigInt(-exp)).toString();
    dp = s.length + exp;
  }
  const trimmed = s.replace(/0+$/, '');
  return { digits: trimmed, dp };
}

/** Rounds to `n` significant digits, half to even (Go's decimal.Round). */
function roundDecimal(d: Decimal, n: number): Decimal {
  if (n < 0 || d.digits.length <= n) return d;
  const next = d.digits.charCodeAt(n) - 48;
  let up: boolean;
  if (next > 5) up = true;
  else if (next < 5) up = false;
  else if (n + 1 < d.digits.length) up = true; // more non-zero digits follow
  else up = n > 0 && (d.digits.charCodeAt(n - 1) - 48) % 2 === 1;
  if (!up) return { digits: d.digits.slice(0, n).replace(/0+$/, ''), dp: d.dp };
  // Increment, propagating carries through trailing nines.
  let i = n - 1;
  while (i >= 0 && d.digits[i] === '9') i--;
  if (i < 0) return { digits: '1', dp: d.dp + 1 };
  const digit = String.fromCharCode(d.digits.charCodeAt(i) + 1);
  return { digits: d.digits.slice(0, i) + digit, dp: d.dp };
}

function fmtE(d: Decimal, prec: number, upper: boolean): string {
  let out = d.digits[0] ?? '0';
  if (prec > 0) {
    out += '.' + d.digits.slice(1, prec + 1).padEnd(prec, '0');
  }
  const exp = d.digits === '' ? 0 : d.dp - 1;
  const abs = Math.abs(exp);
  return out + (upper ? 'E' : 'e') + (exp < 0 ? '-' : '+') + (abs < 10 ? '0' : '') + abs;
}

function fmtF(d: Decimal, prec: number): string {
  let out = d.dp > 0 ? d.digits.slice(0, d.dp).padEnd(d.dp, '0') : '0';
  if (prec > 0) {
    let frac = '';
    for (let i = 0; i < prec; i++) {
      const j = d.dp + i;
      frac += j >= 0 && j < d.digits.length ? d.digits[j] : '0';
    }
    out += '.' + frac;
  }
  return out;
}

/**
 * strconv.FormatFloat(x, verb, prec, 64) for verbs e, E, f, g, G.
 * `prec < 0` means "shortest representation that round-trips".
 */
export function formatGoFloat(x: number, verb: 'e' | 'E' | 'f' | 'g' | 'G', prec = -1): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const neg = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  const shortest = prec < 0;
  let body: string;
  switch (verb) {
    case 'e':
    case 'E': {
      const d = shortest ? shortestDecimal(abs) : roundDecimal(exactDecimal(abs), prec + 1);
      body = fmtE(d, shortest ? Math.max(d.digits.length - 1, 0) : prec, verb === 'E');
      break;
    }
    case 'f': {
      let d: Decimal;
      if (shortest) d = shortestDecimal(abs);
      else {
        const exact = exactDecimal(abs);
        d = roundDecimal(exact, exact.dp + prec);
        // Rounding to "zero digits" keeps only a possible carry into a new digit.
        if (exact.dp + prec < 0) d = { digits: '', dp: 0 };
      }
      body = fmtF(d, shortest ? Math.max(d.digits.length - d.dp, 0) : prec);
      break;
    }
    default: {
      const upper = verb === 'G';
      let d: Decimal;
      let p: number;
      let eprec: number;
      if (shortest) {
        d = shortestDecimal(abs);
        p = d.digits.length;
        eprec = 6; // Go: "if precision was the shortest possible, use precision 6"
      } else {
        p = prec === 0 ? 1 : prec;
        d = roundDecimal(exactDecimal(abs), p);
        eprec = p;
        if (eprec > d.digits.length && d.digits.length >= d.dp) eprec = d.digits.length;
      }
      const exp = d.dp - 1;
      if (d.digits !== '' && (exp < -4 || exp >= eprec)) {
        body = fmtE(d, Math.min(p, d.digits.length) - 1, upper);
      } else {
        if (p > d.dp) p = d.digits.length;
        body = fmtF(d, Math.max(p - d.dp, 0));
      }
    }
  }
  return neg ? '-' + body : body;
}

/** True when a number plays the role of a Go int under the given style. */
export function isGoInt(n: number, style: NumberStyle): boolean {
  return style === 'int-aware' && Number.isInteger(n) && Math.abs(n) < MAX_INT64;
}

/** %v of a number. */
export function formatNumberV(n: number, style: NumberStyle): string {
  if (isGoInt(n, style)) return integerString(n, 10);
  return formatGoFloat(n, 'g');
}

export function integerString(n: number, base: number): string {
  // Doubles above 2^53 are still exact integers; BigInt prints all digits.
  if (Math.abs(n) <= Number.MAX_SAFE_INTEGER) return (n === 0 ? 0 : n).toString(base);
  return BigInt(n).toString(base);
}
