/**
 * govaluate's lexer: numbers (decimal or 0x), quoted strings, `[escaped
 * names]`, names and dotted accessors, the `in` function, and operators
 * read as maximal runs of symbol characters, as govaluate does, so `a==-1`
 * is the invalid token `==-` (write `a == -1`).
 */

import { LangFailure } from '../result';

export type Token =
  | { k: 'num'; v: number; pos: number; text: string }
  | { k: 'str'; v: string; pos: number; text: string }
  | { k: 'bool'; v: boolean; pos: number; text: string }
  | { k: 'name'; v: string; path: string[] | null; pos: number; text: string } // path set for a.b.c
  | { k: 'escaped'; v: string; pos: number; text: string } // [name with-any chars]
  | { k: 'func'; v: 'in'; pos: number; text: string }
  | { k: 'op'; v: string; pos: number; text: string } // symbol run, or IN
  | { k: '(' | ')' | ','; pos: number; text: string };

/** The binary operators; their precedence is the parser's (`PRECEDENCE` in parse.ts). */
const BINARY_OPS = [
  '?', ':', '??', '||', '&&',
  '==', '!=', '>', '>=', '<', '<=', '=~', '!~', 'IN',
  '&', '|', '^', '<<', '>>', '+', '-', '*', '/', '%', '**',
] as const;

export type BinaryOp = (typeof BINARY_OPS)[number];

export const PREFIX_OPS = new Set(['-', '!', '~']);
const OPERATORS = new Set<string>([...BINARY_OPS, ...PREFIX_OPS]);

const LETTER_RE = /^\p{L}$/u;
const NAME_CHAR_RE = /^[\p{L}\p{Nd}_.]$/u;
const SPACE_RE = /\s/u;

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** govaluate reads operators as a maximal run of these characters. */
function isSymbolChar(src: string, i: number): boolean {
  const c = src[i] as string;
  return !(isDigit(c) || charLength(src, i, LETTER_RE) > 0 || SPACE_RE.test(c) || '()[]\'"'.includes(c));
}


export function parseError(message: string, pos: number): LangFailure {
  return new LangFailure({ code: 'expr_parse_error', message, column: pos + 1 });
}

export function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (SPACE_RE.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c) || c === '.') {
      // Numbers: digits and dots (ParseFloat decides), or 0x hexadecimal.
      if (c === '0' && (src[i + 1] === 'x' || src[i + 1] === 'X') && /[0-9a-fA-F]/.test(src[i + 2] ?? '')) {
        i += 2;
        while (i < src.length && /[0-9a-fA-F]/.test(src[i] as string)) i++;
        tokens.push({ k: 'num', v: Number.parseInt(src.slice(start + 2, i), 16), pos: start, text: src.slice(start, i) });
        continue;
      }
      while (i < src.length && (isDigit(src[i] as string) || src[i] === '.')) i++;
      const text = src.slice(start, i);
      if (!/^(\d+\.?\d*|\.\d+)$/.test(text)) throw parseError(`unable to parse numeric value '${text}'`, start);
      tokens.push({ k: 'num', v: Number(text), pos: start, text });
      continue;
    }
    if (c === ',' || c === '(' || c === ')') {
      tokens.push({ k: c, pos: start, text: c });
      i++;
      continue;
    }
    if (c === '[') {
      // Escaped parameter name: everything up to `]`, backslash escapes.
      let name = '';
      i++;
      while (i < src.length && src[i] !== ']') {
        if (src[i] === '\\' && i + 1 < src.length) i++;
        name += src[i];
        i++;
      }
      if (i >= src.length) throw parseError('unclosed parameter bracket', start);
      i++;
      tokens.push({ k: 'escaped', v: name, pos: start, text: src.slice(start, i) });
      continue;
    }
    if (c === "'" || c === '"') {
      let value = '';
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\' && i + 1 < src.length) i++; // backslash escapes the next character
        value += src[i];
        i++;
      }
      if (i >= src.length) throw parseError('unclosed string literal', start);
      i++;
      tokens.push({ k: 'str', v: value, pos: start, text: src.slice(start, i) });
      continue;
    }
    if (charLength(src, i, LETTER_RE) > 0) {
      for (let n = 1; n > 0; i += n) n = charLength(src, i, NAME_CHAR_RE);
      const text = src.slice(start, i);
      if (text === 'true' || text === 'false') tokens.push({ k: 'bool', v: text === 'true', pos: start, text });
      else if (text === 'in') tokens.push({ k: 'func', v: 'in', pos: start, text });
      else if (text === 'IN') tokens.push({ k: 'op', v: 'IN', pos: start, text });
      else if (text.includes('.')) {
        if (text.endsWith('.')) throw parseError(`hanging accessor on token '${text}'`, start);
        const path = text.split('.');
        if (path.some((p) => p === '')) throw parseError(`empty field name in accessor '${text}'`, start);
        tokens.push({ k: 'name', v: text, path, pos: start, text });
      } else tokens.push({ k: 'name', v: text, path: null, pos: start, text });
      continue;
    }
    while (i < src.length && isSymbolChar(src, i)) i++;
    const text = src.slice(start, i);
    if (!OPERATORS.has(text)) throw parseError(`invalid token: '${text}'`, start);
    tokens.push({ k: 'op', v: text, pos: start, text });
  }
  return tokens;
}

/** Length (1, or 2 for a surrogate pair) of the character at `i` if it
 * matches `re`, else 0. Letters outside the BMP are surrogate pairs. */
function charLength(src: string, i: number, re: RegExp): number {
  const cp = src.codePointAt(i);
  if (cp === undefined) return 0;
  const ch = String.fromCodePoint(cp);
  return re.test(ch) ? ch.length : 0;
}
