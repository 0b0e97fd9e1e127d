/**
 * Go's fmt, reproduced in TypeScript: how templates' `print`, `printf` and
 * `%v`, and govaluate's string conversion, print a value — `map[a:1 b:2]`,
 * `%!d(string=x)`, widths and flags — with a cap on how much is printed.
 * The strconv rules it builds on (numbers, quoting) are in ./gofmt.ts.
 */
import { compareGoStrings, runeCount, goQuote, goQuoteRune, hex2, isValidCodePoint, canBackquote, formatGoFloat, isGoInt, integerString, type NumberStyle } from './gofmt';
import { isRecord } from './data';

// ---------------------------------------------------------------------------
// Values (fmt %v and friends)

/** An object used as a Go map: a mapping that is not a `Map` (Maps are handled
 * separately since their entries are not properties). */
export function isGoMapObject(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && !(v instanceof Map);
}

/** Map entries of a plain object or Map, sorted the way Go's fmt sorts keys. */
export function sortedEntries(v: Record<string, unknown> | Map<unknown, unknown>): [string, unknown][] {
  const entries: [string, unknown][] =
    v instanceof Map ? [...v].map(([k, x]) => [String(k), x]) : Object.entries(v);
  return entries.sort((a, b) => compareGoStrings(a[0], b[0]));
}

/** The Go type name fmt would print for a value (used by %T and %!verb errors). */
export function goTypeName(v: unknown, style: NumberStyle): string {
  if (v === null || v === undefined) return '<nil>';
  switch (typeof v) {
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'number': return isGoInt(v, style) ? 'int' : 'float64';
  }
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof Map || isGoMapObject(v)) return 'map[string]interface {}';
  return 'interface {}';
}

/**
 * Thrown when a value is too large to print: more than MAX_FORMAT_ELEMENTS
 * nested elements, which also covers cyclic data (YAML aliases can create
 * cycles) and exponentially shared substructures. Callers turn it into
 * their own limit error.
 */
export class FormatLimitError extends Error {
  constructor(tooDeep: boolean) {
    super(
      tooDeep
        ? `value is nested deeper than ${MAX_FORMAT_DEPTH} levels to print`
        : `value has more than ${MAX_FORMAT_ELEMENTS} elements to print`,
    );
    this.name = 'FormatLimitError';
  }
}

export const MAX_FORMAT_ELEMENTS = 100_000;
export const MAX_FORMAT_DEPTH = 100;

/** Elements left to print in the current top-level call. */
interface Budget {
  left: number;
}

function newBudget(): Budget {
  return { left: MAX_FORMAT_ELEMENTS };
}

/** fmt.Sprint of one value with the %v verb. */
export function formatValueV(v: unknown, style: NumberStyle): string {
  return formatArg(v, parseVerbSpec('v'), style, newBudget());
}

/** fmt.Sprint: operands are separated by a space when neither is a string. */
export function goSprint(args: readonly unknown[], style: NumberStyle): string {
  const budget = newBudget();
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (i > 0 && typeof arg !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatArg(arg, parseVerbSpec('v'), style, budget);
  }
  return out;
}

/** fmt.Sprintln: operands always separated by spaces, newline appended. */
export function goSprintln(args: readonly unknown[], style: NumberStyle): string {
  const budget = newBudget();
  return args.map((a) => formatArg(a, parseVerbSpec('v'), style, budget)).join(' ') + '\n';
}

interface VerbSpec {
  verb: string;
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width?: number;
  prec?: number;
}

function parseVerbSpec(verb: string): VerbSpec {
  return { verb, plus: false, minus: false, sharp: false, space: false, zero: false };
}

/** Go refuses widths and precisions above 1e6 (`%!(BADWIDTH)`); so do we,
 * which also stops `%999999999d` from allocating gigabytes. */
const MAX_WIDTH = 1_000_000;

/**
 * fmt.Sprintf for the verbs templates use: %v %s %q %d %b %o %O %x %X %c %U
 * %e %E %f %F %g %G %t %T %%, with flags `+ - # space 0`, widths and
 * precisions (including `*`). Error spellings follow Go: `%!d(string=x)`,
 * `%!s(MISSING)`, `%!(EXTRA int=1)`, `%!(NOVERB)`.
 *
 * Deliberate leniency: Go's `%f` of an int literal prints `%!f(int=5)`; JS
 * cannot tell 5 from 5.0, so the float verbs accept every number.
 */
export function goSprintf(format: string, args: readonly unknown[], style: NumberStyle): string {
  const budget = newBudget();
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    if (i >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const spec = parseVerbSpec('');
    // Flags.
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === '+') spec.plus = true;
      else if (c === '-') spec.minus = true;
      else if (c === '#') spec.sharp = true;
      else if (c === ' ') spec.space = true;
      else if (c === '0') spec.zero = true;
      else break;
    }
    // Width.
    let bad = '';
    if (format[i] === '*') {
      i++;
      const w = args[argIndex++];
      if (typeof w === 'number' && Number.isInteger(w) && Math.abs(w) <= MAX_WIDTH) {
        spec.width = Math.abs(w);
        if (w < 0) spec.minus = true;
      } else bad += '%!(BADWIDTH)';
    } else {
      const m = /^[0-9]+/.exec(format.slice(i, i + 12));
      if (m) {
        i += m[0].length;
        const w = Number(m[0]);
        if (w <= MAX_WIDTH) spec.width = w;
        else bad += '%!(BADWIDTH)';
      }
    }
    // Precision.
    if (format[i] === '.') {
      i++;
      if (format[i] === '*') {
        i++;
        const p = args[argIndex++];
        if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= MAX_WIDTH) spec.prec = p;
        else bad += '%!(BADPREC)';
      } else {
        const m = /^[0-9]*/.exec(format.slice(i, i + 12));
        const digits = m?.[0] ?? '';
        i += digits.length;
        const p = digits === '' ? 0 : Number(digits);
        if (p <= MAX_WIDTH) spec.prec = p;
        else bad += '%!(BADPREC)';
      }
    }
    out += bad;
    if (i >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const cp = format.codePointAt(i) ?? 0;
    const verb = String.fromCodePoint(cp);
    i += verb.length;
    spec.verb = verb;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argIndex >= args.length) {
      out += '%!' + verb + '(MISSING)';
      continue;
    }
    out += formatArg(args[argIndex++], spec, style, budget);
  }
  if (argIndex < args.length) {
    const extra = args.slice(argIndex).map((a) =>
      a === null || a === undefined ? '<nil>' : goTypeName(a, style) + '=' + formatValueV(a, style),
    );
    out += '%!(EXTRA ' + extra.join(', ') + ')';
  }
  return out;
}

function badVerb(v: unknown, spec: VerbSpec, style: NumberStyle): string {
  if (v === null || v === undefined) return '%!' + spec.verb + '(<nil>)';
  return '%!' + spec.verb + '(' + goTypeName(v, style) + '=' + formatValueV(v, style) + ')';
}

function formatArg(v: unknown, spec: VerbSpec, style: NumberStyle, budget: Budget, depth = 0): string {
  if (--budget.left < 0 || depth > MAX_FORMAT_DEPTH) throw new FormatLimitError(depth > MAX_FORMAT_DEPTH);
  if (spec.verb === 'T') return pad(goTypeName(v, style), spec);
  if (v === null || v === undefined) {
    return spec.verb === 'v' ? pad('<nil>', spec) : badVerb(v, spec, style);
  }
  if (typeof v === 'string') return formatString(v, spec, style);
  if (typeof v === 'boolean') {
    return spec.verb === 'v' || spec.verb === 't' ? pad(String(v), spec) : badVerb(v, spec, style);
  }
  if (typeof v === 'number') return formatNumber(v, spec, style);
  // Composite values: fmt applies the verb to every element.
  if (Array.isArray(v)) {
    return '[' + v.map((x) => formatArg(x, spec, style, budget, depth + 1)).join(' ') + ']';
  }
  if (v instanceof Map || isGoMapObject(v)) {
    const parts = sortedEntries(v).map(
      ([k, x]) => formatArg(k, spec, style, budget) + ':' + formatArg(x, spec, style, budget, depth + 1),
    );
    return 'map[' + parts.join(' ') + ']';
  }
  return badVerb(String(v), spec, style);
}

function formatString(s: string, spec: VerbSpec, style: NumberStyle): string {
  switch (spec.verb) {
    case 'v':
    case 's':
      return pad(truncateRunes(s, spec.prec), spec);
    case 'q': {
      const t = truncateRunes(s, spec.prec);
      return pad(spec.sharp && canBackquote(t) ? '`' + t + '`' : goQuote(t), spec);
    }
    case 'x':
    case 'X': {
      const bytes = new TextEncoder().encode(truncateRunes(s, spec.prec));
      const parts = [...bytes].map((b) => {
        const h = hex2(b);
        return spec.verb === 'X' ? h.toUpperCase() : h;
      });
      const prefix = spec.sharp ? (spec.verb === 'X' ? '0X' : '0x') : '';
      const text = spec.space ? parts.map((p) => prefix + p).join(' ') : prefix + parts.join('');
      return pad(text, spec);
    }
    default:
      return badVerb(s, spec, style);
  }
}

function truncateRunes(s: string, prec: number | undefined): string {
  if (prec === undefined) return s;
  let out = '';
  let n = 0;
  for (const ch of s) {
    if (n++ >= prec) break;
    out += ch;
  }
  return out;
}

function formatNumber(n: number, spec: VerbSpec, style: NumberStyle): string {
  const asInt = isGoInt(n, style);
  switch (spec.verb) {
    case 'v':
      return asInt ? formatInteger(n, 10, spec) : formatFloatVerb(n, 'g', spec);
    case 'd':
      return asInt ? formatInteger(n, 10, spec) : badVerb(n, spec, style);
    case 'b':
      return asInt ? formatInteger(n, 2, spec) : badVerb(n, spec, style);
    case 'o':
    case 'O':
      return asInt ? formatInteger(n, 8, spec) : badVerb(n, spec, style);
    case 'x':
    case 'X':
      return asInt ? formatInteger(n, 16, spec) : badVerb(n, spec, style);
    case 'c':
      return asInt ? pad(isValidCodePoint(n) ? String.fromCodePoint(n) : '\ufffd', spec) : badVerb(n, spec, style);
    case 'q':
      return asInt ? pad(goQuoteRune(n), spec) : badVerb(n, spec, style);
    case 'U': {
      if (!asInt) return badVerb(n, spec, style);
      const text = 'U+' + integerString(n, 16).toUpperCase().padStart(4, '0');
      return pad(text, spec);
    }
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      return formatFloatVerb(n, spec.verb, spec);
    default:
      return badVerb(n, spec, style);
  }
}

function formatInteger(n: number, base: number, spec: VerbSpec): string {
  let digits = integerString(Math.abs(n), base);
  if (spec.verb === 'X') digits = digits.toUpperCase();
  if (spec.prec !== undefined) {
    // Precision is the minimum digit count; %.0d of 0 prints nothing.
    digits = spec.prec === 0 && n === 0 ? '' : digits.padStart(spec.prec, '0');
  }
  let prefix = '';
  if (spec.sharp) {
    if (base === 16) prefix = spec.verb === 'X' ? '0X' : '0x';
    else if (base === 8 && !digits.startsWith('0')) prefix = '0';
    else if (base === 2) prefix = '0b';
  }
  if (spec.verb === 'O') prefix = '0o';
  const sign = n < 0 ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  // The zero flag is ignored when a precision is given (as in Go).
  return padNumber(sign, prefix + digits, spec, spec.prec === undefined);
}

function formatFloatVerb(n: number, verb: string, spec: VerbSpec): string {
  const v = (verb === 'F' ? 'f' : verb) as 'e' | 'E' | 'f' | 'g' | 'G';
  const prec = spec.prec ?? (v === 'g' || v === 'G' ? -1 : 6);
  let text = formatGoFloat(n, v, prec);
  let sign = '';
  if (text.startsWith('-')) {
    sign = '-';
    text = text.slice(1);
  } else if (text.startsWith('+')) {
    sign = '+';
    text = text.slice(1);
  } else if (spec.plus) sign = '+';
  else if (spec.space) sign = ' ';
  // Go never zero-pads infinities or NaN.
  return padNumber(sign, text, spec, Number.isFinite(n));
}

function padNumber(sign: string, body: string, spec: VerbSpec, zeroAllowed: boolean): string {
  const width = spec.width ?? 0;
  const len = sign.length + body.length;
  if (len >= width) return sign + body;
  if (spec.minus) return sign + body + ' '.repeat(width - len);
  if (spec.zero && zeroAllowed) return sign + '0'.repeat(width - len) + body;
  return ' '.repeat(width - len) + sign + body;
}

function pad(text: string, spec: VerbSpec): string {
  const width = spec.width ?? 0;
  if (width === 0) return text;
  const n = runeCount(text);
  if (n >= width) return text;
  const fill = ' '.repeat(width - n);
  return spec.minus ? text + fill : fill + text;
}
