/**
 * Tokens of a spiff++ dynaml expression (the text between `((` and `))`).
 *
 * Whitespace matters in dynaml: `a b` concatenates, `a[0]` indexes while
 * `a [0]` concatenates a list, and `a-b` is one name while `a - b`
 * subtracts. Each token therefore records whether whitespace preceded it.
 */
import { SpiffFailure } from './errors';

export type TokenKind = 'num' | 'str' | 'name' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The operator text, the name, the decoded string, or the number's source. */
  text: string;
  /** Offset in the expression. */
  pos: number;
  /** Whitespace directly before this token. */
  spaced: boolean;
}

/** Longest first, so `||` wins over `|` and `->` over `-`. */
const OPERATORS = ['~~', '||', '->', '==', '!=', '<=', '>=', '-or', '-and', '|', '?', ':', '<', '>', '+', '-', '*', '/', '%', '!', '(', ')', '[', ']', '{', '}', ',', '=', '.', '~'];

const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[A-Za-z0-9_$-]/;

export function lexExpression(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let spaced = false;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      spaced = true;
      i++;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(c)) {
      while (i < src.length && /[0-9_]/.test(src[i]!)) i++;
      if (src[i] === '.' && /[0-9]/.test(src[i + 1] ?? '')) {
        i++;
        while (i < src.length && /[0-9]/.test(src[i]!)) i++;
      }
      tokens.push({ kind: 'num', text: src.slice(start, i).replace(/_/g, ''), pos: start, spaced });
    } else if (c === '"') {
      i++;
      let text = '';
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\') {
          const e = src[i + 1];
          if (e === undefined) break;
          text += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
          i += 2;
        } else {
          text += src[i];
          i++;
        }
      }
      if (src[i] !== '"') throw new SpiffFailure('spiff_parse_error', 'unterminated string', start);
      i++;
      tokens.push({ kind: 'str', text, pos: start, spaced });
    } else if (NAME_START.test(c)) {
      // A name may contain '-', but `x|->` must still end the name before `->`.
      while (i < src.length && NAME_PART.test(src[i]!) && !(src[i] === '-' && src[i + 1] === '>')) i++;
      tokens.push({ kind: 'name', text: src.slice(start, i), pos: start, spaced });
    } else {
      const op = OPERATORS.find((o) => src.startsWith(o, i) && !(/^-[a-z]/.test(o) && NAME_PART.test(src[i + o.length] ?? '')));
      if (!op) throw new SpiffFailure('spiff_parse_error', `unexpected character ${JSON.stringify(c)}`, i);
      i += op.length;
      tokens.push({ kind: 'op', text: op, pos: start, spaced });
    }
    spaced = false;
  }
  tokens.push({ kind: 'eof', text: '', pos: src.length, spaced });
  return tokens;
}
