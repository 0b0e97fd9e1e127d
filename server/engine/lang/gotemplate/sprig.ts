/**
 * The Sprig functions Landscaper's templates use (Landscaper renders Go
 * templates with Sprig): YAML/JSON conversion, indentation, strings, lists
 * and dicts. Offered only where a dialect asks for them (`functions` at
 * compile time); Aptomi's templates keep Go's builtins alone, as Aptomi did.
 *
 * Each function receives the evaluated arguments, the pipeline's value
 * last, and throws with a message for a wrong call (the executor reports
 * it as `error calling <name>: …`). Output size is checked by the executor.
 */
import { stringify } from 'yaml';
import type { TemplateFunctions } from './parse';
import { isRecord } from '../data';

function arity(name: string, args: unknown[], min: number, max = min) {
  if (args.length < min || args.length > max) throw new Error(`wrong number of args for ${name}: want ${min === max ? min : `${min} to ${max}`} got ${args.length}`);
}

const str = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

function int(name: string, v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 10_000) throw new Error(`${name} needs a count from 0 to 10000, got ${str(v)}`);
  return n;
}

function indent(n: number, s: string): string {
  const pad = ' '.repeat(n);
  return pad + s.split('\n').join('\n' + pad);
}


export const SPRIG_FUNCTIONS: TemplateFunctions = Object.freeze({
  // Sprig trims the trailing newline, so `toYaml | nindent n` lays out cleanly.
  toYaml: (a) => (arity('toYaml', a, 1), a[0] === null || a[0] === undefined ? 'null' : stringify(a[0], { lineWidth: 0 }).replace(/\n$/, '')),
  toJson: (a) => (arity('toJson', a, 1), JSON.stringify(a[0] ?? null)),
  toPrettyJson: (a) => (arity('toPrettyJson', a, 1), JSON.stringify(a[0] ?? null, null, 2)),
  fromJson: (a) => {
    arity('fromJson', a, 1);
    try {
      return JSON.parse(str(a[0]));
    } catch {
      return {};
    }
  },
  indent: (a) => (arity('indent', a, 2), indent(int('indent', a[0]), str(a[1]))),
  nindent: (a) => (arity('nindent', a, 2), '\n' + indent(int('nindent', a[0]), str(a[1]))),
  quote: (a) => a.map((v) => JSON.stringify(str(v))).join(' '),
  squote: (a) => a.map((v) => `'${str(v)}'`).join(' '),
  upper: (a) => (arity('upper', a, 1), str(a[0]).toUpperCase()),
  lower: (a) => (arity('lower', a, 1), str(a[0]).toLowerCase()),
  trim: (a) => (arity('trim', a, 1), str(a[0]).trim()),
  trimPrefix: (a) => (arity('trimPrefix', a, 2), str(a[1]).startsWith(str(a[0])) ? str(a[1]).slice(str(a[0]).length) : str(a[1])),
  trimSuffix: (a) => (arity('trimSuffix', a, 2), str(a[0]) !== '' && str(a[1]).endsWith(str(a[0])) ? str(a[1]).slice(0, -str(a[0]).length) : str(a[1])),
  replace: (a) => (arity('replace', a, 3), str(a[2]).split(str(a[0])).join(str(a[1]))),
  contains: (a) => (arity('contains', a, 2), str(a[1]).includes(str(a[0]))),
  hasPrefix: (a) => (arity('hasPrefix', a, 2), str(a[1]).startsWith(str(a[0]))),
  hasSuffix: (a) => (arity('hasSuffix', a, 2), str(a[1]).endsWith(str(a[0]))),
  join: (a) => (arity('join', a, 2), (Array.isArray(a[1]) ? a[1] : [a[1]]).map(str).join(str(a[0]))),
  split: (a) => {
    arity('split', a, 2);
    return Object.fromEntries(str(a[1]).split(str(a[0])).map((p, i) => [`_${i}`, p]));
  },
  list: (a) => [...a],
  dict: (a) => {
    if (a.length % 2 !== 0) throw new Error('dict needs key and value pairs');
    const out: Record<string, unknown> = {};
    for (let i = 0; i < a.length; i += 2) Object.defineProperty(out, str(a[i]), { value: a[i + 1], enumerable: true, writable: true, configurable: true });
    return out;
  },
  get: (a) => (arity('get', a, 2), isRecord(a[0]) && Object.hasOwn(a[0], str(a[1])) ? a[0][str(a[1])] : ''),
  hasKey: (a) => (arity('hasKey', a, 2), isRecord(a[0]) && Object.hasOwn(a[0], str(a[1]))),
  keys: (a) => a.flatMap((d) => (isRecord(d) ? Object.keys(d) : [])).sort(),
  empty: (a) => {
    arity('empty', a, 1);
    const v = a[0];
    return v === null || v === undefined || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0);
  },
  required: (a) => {
    arity('required', a, 2);
    if (a[1] === null || a[1] === undefined || a[1] === '') throw new Error(str(a[0]));
    return a[1];
  },
  b64enc: (a) => {
    arity('b64enc', a, 1);
    const bytes = new TextEncoder().encode(str(a[0]));
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin);
  },
  b64dec: (a) => {
    arity('b64dec', a, 1);
    try {
      const bin = atob(str(a[0]));
      return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    } catch {
      throw new Error('illegal base64 data');
    }
  },
});
