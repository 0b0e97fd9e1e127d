/**
 * Go template lexer: text, `{{ }}` actions with `{{-` / `-}}` trimming,
 * comments, and the tokens inside actions (Go's text/template/parse/lex.go
 * rules: names end at a space or one of `. , | : ( )`, numbers in every Go
 * notation, quoted, raw and character literals).
 */

import { failAt } from './errors';

export type TokKind =
  | 'text' | 'open' | 'close' | 'comment'
  | 'ident' | 'keyword' | 'field' | 'var' | 'dot'
  | 'string' | 'raw' | 'char' | 'number' | 'bool' | 'nil'
  | 'pipe' | 'lparen' | 'rparen' | 'declare' | 'assign' | 'comma';

export interface Tok {
  k: TokKind;
  /** Token text, or the decoded value for strings and text. */
  v: string;
  pos: number;
  end: number;
  /** Whitespace separates this token from the previous one (argument boundary). */
  space: boolean;
}

const KEYWORDS = new Set(['block', 'break', 'continue', 'define', 'else', 'end', 'if', 'range', 'template', 'with']);
const SPACE_CHARS = ' \t\r\n';
const IDENT_CHAR_RE = /^[\p{L}\p{Nd}_]$/u;

function isSpaceChar(c: string | undefined): boolean {
  return c !== undefined && c !== '' && SPACE_CHARS.includes(c);
}

/** Length of the identifier character at `i` (2 for a surrogate pair), else 0. */
function identCharLength(src: string, i: number): number {
  const cp = src.codePointAt(i);
  if (cp === undefined) return 0;
  const ch = String.fromCodePoint(cp);
  return IDENT_CHAR_RE.test(ch) ? ch.length : 0;
}

export function lexTemplate(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  let trimNextText = false;
  while (i < src.length) {
    let open = src.indexOf('{{', i);
    if (open < 0) open = src.length;
    let text = src.slice(i, open);
    const leftTrim = open < src.length && src[open + 2] === '-' && isSpaceChar(src[open + 3]);
    if (trimNextText) text = text.replace(/^[ \t\r\n]+/, '');
    if (leftTrim) text = text.replace(/[ \t\r\n]+$/, '');
    if (text !== '') toks.push({ k: 'text', v: text, pos: i, end: open, space: false });
    if (open >= src.length) break;
    i = lexAction(src, open, leftTrim, toks);
    trimNextText = toks[toks.length - 1]?.v === '-}}';
  }
  return toks;
}

/** Lexes one action starting at `{{`; returns the offset after its `}}`. */
function lexAction(src: string, open: number, leftTrim: boolean, toks: Tok[]): number {
  let i = open + 2 + (leftTrim ? 2 : 0);
  if (src.startsWith('/*', i)) {
    const close = src.indexOf('*/', i + 2);
    if (close < 0) throw failAt('template_parse_error', 'unclosed comment', open);
    i = close + 2;
    const right = atRightDelim(src, i);
    if (!right) throw failAt('template_parse_error', 'comment ends before closing delimiter', i);
    toks.push({ k: 'comment', v: '', pos: open, end: i + right.length, space: false });
    toks.push({ k: 'close', v: right.trim ? '-}}' : '}}', pos: i, end: i + right.length, space: false });
    return i + right.length;
  }
  toks.push({ k: 'open', v: '{{', pos: open, end: i, space: false });
  let space = false;
  for (;;) {
    if (i >= src.length) throw failAt('template_parse_error', 'unclosed action', open);
    const right = atRightDelim(src, i);
    if (right) {
      toks.push({ k: 'close', v: right.trim ? '-}}' : '}}', pos: i, end: i + right.length, space });
      return i + right.length;
    }
    const c = src[i] as string;
    if (isSpaceChar(c)) {
      i++;
      space = true;
      continue;
    }
    const start = i;
    const push = (k: TokKind, end: number, v = src.slice(start, end)) => {
      toks.push({ k, v, pos: start, end, space });
      space = false;
      i = end;
    };
    if (c === '|') push('pipe', i + 1);
    else if (c === '(') push('lparen', i + 1);
    else if (c === ')') push('rparen', i + 1);
    else if (c === ',') push('comma', i + 1);
    else if (c === '=') push('assign', i + 1);
    else if (c === ':') {
      if (src[i + 1] !== '=') throw failAt('template_parse_error', 'expected :=', i);
      push('declare', i + 2);
    } else if (c === '"') push('string', scanQuoted(src, i, '"'));
    else if (c === '`') {
      const close = src.indexOf('`', i + 1);
      if (close < 0) throw failAt('template_parse_error', 'unterminated raw quoted string', i);
      push('raw', close + 1, src.slice(i + 1, close).replace(/\r/g, ''));
    } else if (c === "'") push('char', scanQuoted(src, i, "'"));
    else if (c === '$') push('var', scanName(src, i + 1));
    else if (c === '.' && !/[0-9]/.test(src[i + 1] ?? '')) {
      const end = scanName(src, i + 1);
      push(end === i + 1 ? 'dot' : 'field', end);
    } else if (c === '.' || c === '+' || c === '-' || (c >= '0' && c <= '9')) push('number', scanNumber(src, i));
    else if (identCharLength(src, i) > 0) {
      let end = i;
      for (let n = 1; n > 0; end += n) n = identCharLength(src, end);
      const word = src.slice(i, end);
      checkTerminator(src, end);
      if (word === 'true' || word === 'false') push('bool', end);
      else if (word === 'nil') push('nil', end);
      else push(KEYWORDS.has(word) ? 'keyword' : 'ident', end);
    } else {
      throw failAt('template_parse_error', `unrecognized character in action: ${JSON.stringify(c)}`, i);
    }
  }
}

/** `}}` or ` -}}` at `i`. */
function atRightDelim(src: string, i: number): { length: number; trim: boolean } | undefined {
  if (isSpaceChar(src[i]) && src[i + 1] === '-' && src.startsWith('}}', i + 2)) return { length: 4, trim: true };
  if (src.startsWith('}}', i)) return { length: 2, trim: false };
  return undefined;
}

/** After a name, Go requires a space, delimiter or one of `. , | : ( )`. */
function checkTerminator(src: string, i: number): void {
  const c = src[i];
  if (c === undefined || isSpaceChar(c) || '.,|:()'.includes(c) || src.startsWith('}}', i)) return;
  throw failAt('template_parse_error', `bad character ${JSON.stringify(c)}`, i);
}

/** Reads a `$name` or `.Name` body starting at `i`; returns its end. */
function scanName(src: string, i: number): number {
  let end = i;
  for (let n = 1; n > 0; end += n) n = identCharLength(src, end);
  checkTerminator(src, end);
  return end;
}

function scanQuoted(src: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < src.length && src[i] !== quote) {
    if (src[i] === '\\') i++;
    if (src[i] === '\n' || i >= src.length) break;
    i++;
  }
  if (i >= src.length || src[i] !== quote) {
    throw failAt('template_parse_error', quote === '"' ? 'unterminated quoted string' : 'unterminated character constant', start);
  }
  return i + 1;
}

function scanNumber(src: string, start: number): number {
  let i = start;
  const accept = (chars: string) => {
    if (i < src.length && chars.includes(src[i] as string)) {
      i++;
      return true;
    }
    return false;
  };
  const acceptRun = (chars: string) => {
    while (accept(chars));
  };
  accept('+-');
  let digits = '0123456789_';
  if (accept('0')) {
    if (accept('xX')) digits = '0123456789abcdefABCDEF_';
    else if (accept('oO')) digits = '01234567_';
    else if (accept('bB')) digits = '01_';
  }
  acceptRun(digits);
  if (accept('.')) acceptRun(digits);
  if (digits.length === 11 && accept('eE')) {
    accept('+-');
    acceptRun('0123456789_');
  }
  if (accept('i')) throw failAt('template_parse_error', 'complex numbers are not supported', start);
  if (i < src.length && identCharLength(src, i) > 0) {
    throw failAt('template_parse_error', `bad number syntax: ${JSON.stringify(src.slice(start, i + 1))}`, start);
  }
  return i;
}
