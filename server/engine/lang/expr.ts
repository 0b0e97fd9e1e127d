/**
 * Keelson's expression language: govaluate as forked and used by Aptomi
 * (`ralekseenkov/govaluate`), reimplemented so that policies written for
 * Aptomi evaluate identically.
 *
 * Semantics reproduced on purpose (see reference/aptomi.md §4):
 * - Precedence, lowest first: `? : ??` | `||` | `&&` | comparators
 *   (`== != > >= < <= =~ !~ IN`) | `& | ^` | `<< >>` | `+ -` | `* / %` | `**`
 *   | prefix `- ! ~`. Every binary level is left-associative (govaluate
 *   reorders its right-leaning plan into left-associative order), so
 *   `2 ** 3 ** 2` is 64 and `-2 ** 2` is 4.
 * - All numbers are float64. `+` adds two numbers or, if either side is a
 *   string, concatenates both sides printed with Go's `%v` (so
 *   `'a' + 'b' + true` is the string "abtrue", which then fails the "must be
 *   a boolean" check). `> >= < <=` need two numbers or two strings.
 * - A parameter that does not exist anywhere in the evaluated path makes the
 *   whole expression false (the fork's MissingParameterError, swallowed by
 *   Aptomi), while short-circuiting still skips unevaluated operands.
 * - Labels are strings coerced like Aptomi's params.go (see `coerceLabel`);
 *   nested values (`Bundle.Labels.x`) are not coerced.
 * - The only function is `in(x, a, b, ...)`; any other call is a parse error.
 * - The lexer reads operators as maximal runs of symbol characters, as
 *   govaluate does, so `a==-1` is the invalid token `==-` (write `a == -1`).
 *
 * Deliberate differences (documented in DESIGN.md / the report):
 * - `bundle.Labels.blog == true` is true for the label string "true": when a
 *   parameter's string value meets a boolean under `==`/`!=`, the string is
 *   read with Go's ParseBool first. (Aptomi compared raw strings, so the
 *   documented example could never match.) A string *literal* is never
 *   coerced, so `b == 't'` stays false as in Aptomi.
 * - An accessor root that does not exist is retried with its first letter's
 *   case flipped, so `bundle.Name` and `Bundle.Name` both work.
 * - String literals end at the matching quote (govaluate ends them at any
 *   quote), and string literals are never reinterpreted as dates.
 * - `in()` with no arguments and an empty expression are parse errors
 *   (govaluate failed only when evaluating them).
 * - `=~` uses an RE2-compatible linear-time matcher (./re2), not JS RegExp.
 */

import { compareGoStrings, formatValueV, FormatLimitError, isRecord, parseGoBool, parseGoInt } from './gofmt';
import { compileRe2, type Re2 } from './re2';
import { fail, LangFailure, ok, type Result } from './result';

// ---------------------------------------------------------------------------
// Public API

export interface ExprLimits {
  /** Longest accepted source text, in UTF-16 units. */
  maxSourceLength: number;
  /** Most AST nodes a compiled expression may have. */
  maxNodes: number;
  /** Deepest operator/parenthesis nesting accepted by the parser. */
  maxDepth: number;
  /** Most node evaluations per `evalExpr` call. */
  maxSteps: number;
  /** Longest string `+` may build. */
  maxStringLength: number;
  /** Regex matcher budget (NFA steps) per evaluation. */
  maxRegexWork: number;
}

export const DEFAULT_EXPR_LIMITS: Readonly<ExprLimits> = Object.freeze({
  maxSourceLength: 4096,
  maxNodes: 2000,
  maxDepth: 100,
  maxSteps: 10_000,
  maxStringLength: 65_536,
  maxRegexWork: 2_000_000,
});

/** A parsed expression. Immutable and safe to cache and share. */
export interface CompiledExpr {
  readonly source: string;
  /** Parameter names the expression reads (accessors dotted), in source order. */
  readonly references: readonly string[];
  /** @internal the syntax tree; not part of the stable API. */
  readonly root: ExprNode;
}

export interface EvalOptions {
  /**
   * Coerce top-level string parameters with `coerceLabel` when they are read
   * (labels passed as `Record<string, string>`). Nested values are never
   * coerced. Leave false when the caller already coerced (faster for reuse).
   */
  coerceLabels?: boolean;
  limits?: Partial<ExprLimits>;
}

export interface ExprOutcome {
  value: boolean;
  /** Set when the result is false because this parameter was missing. */
  missing?: string;
}

/** Parameters: a plain object (top-level labels and objects such as `Bundle`). */
export type ExprParams = Readonly<Record<string, unknown>>;

/** Compiled expressions keyed by source (compile errors are cached too); a
 * `Map` works, or any bounded cache with the same two methods. */
export interface ExprCache {
  get(source: string): Result<CompiledExpr> | undefined;
  set(source: string, compiled: Result<CompiledExpr>): unknown;
}

/**
 * Aptomi's label coercion (`params.go`): strconv.Atoi first (optional sign and
 * digits: "10" → 10, "1.5" is not an int), then strconv.ParseBool
 * (`t`, `TRUE`, `False`, ...), else the string itself. "1" and "0" are ints.
 */
export function coerceLabel(s: string): number | boolean | string {
  const n = parseGoInt(s);
  if (n !== undefined) return n;
  const b = parseGoBool(s);
  if (b !== undefined) return b;
  return s;
}

/** Coerces every value of a label set (see `coerceLabel`). */
export function coerceLabelSet(labels: Readonly<Record<string, string>>): Record<string, number | boolean | string> {
  // A keys loop, not Object.entries: this runs for every claim at every
  // level, and the entry arrays were most of its cost.
  const out: Record<string, number | boolean | string> = {};
  const keys = Object.keys(labels);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out[k] = coerceLabel(labels[k]!);
  }
  return out;
}

export function compileExpr(src: string, limits?: Partial<ExprLimits>): Result<CompiledExpr> {
  const lim = { ...DEFAULT_EXPR_LIMITS, ...limits };
  if (src.length > lim.maxSourceLength) {
    return fail({ code: 'expr_limit', message: `expression is longer than ${lim.maxSourceLength} characters` });
  }
  try {
    const tokens = lex(src);
    const parser = new Parser(src, tokens, lim);
    const root = parser.parseAll();
    return ok({ source: src, references: parser.references, root });
  } catch (e) {
    if (e instanceof LangFailure) return fail(e.error);
    throw e;
  }
}

/** compileExpr with a cache keyed by source text. */
export function compileExprCached(src: string, cache: ExprCache, limits?: Partial<ExprLimits>): Result<CompiledExpr> {
  let hit = cache.get(src);
  if (hit === undefined) {
    hit = compileExpr(src, limits);
    cache.set(src, hit);
  }
  return hit;
}

/** Evaluates to a boolean; a missing parameter yields `{ ok: true, value: false }`. */
export function evalExpr(compiled: CompiledExpr, params: ExprParams, options?: EvalOptions): Result<boolean> {
  const r = evalExprDetailed(compiled, params, options);
  return r.ok ? ok(r.value.value) : r;
}

/** Like `evalExpr`, but also reports which missing parameter forced `false`. */
export function evalExprDetailed(compiled: CompiledExpr, params: ExprParams, options?: EvalOptions): Result<ExprOutcome> {
  const lim = options?.limits ? { ...DEFAULT_EXPR_LIMITS, ...options.limits } : DEFAULT_EXPR_LIMITS;
  const ev = new Evaluator(params, options?.coerceLabels === true, lim);
  try {
    const v = ev.eval(compiled.root);
    if (v === MISSING) return ok({ value: false, missing: ev.missingName });
    if (typeof v !== 'boolean') {
      return fail({
        code: 'expr_type_error',
        message: `expression must evaluate to a boolean, got ${describe(v)}`,
      });
    }
    return ok({ value: v });
  } catch (e) {
    if (e instanceof LangFailure) return fail(e.error);
    if (e instanceof FormatLimitError) return fail({ code: 'expr_limit', message: e.message });
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Lexer (govaluate's token rules)

type Token =
  | { k: 'num'; v: number; pos: number; text: string }
  | { k: 'str'; v: string; pos: number; text: string }
  | { k: 'bool'; v: boolean; pos: number; text: string }
  | { k: 'name'; v: string; path: string[] | null; pos: number; text: string } // path set for a.b.c
  | { k: 'escaped'; v: string; pos: number; text: string } // [name with-any chars]
  | { k: 'func'; v: 'in'; pos: number; text: string }
  | { k: 'op'; v: string; pos: number; text: string } // symbol run, or IN
  | { k: '(' | ')' | ','; pos: number; text: string };

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

function parseError(message: string, pos: number): LangFailure {
  return new LangFailure({ code: 'expr_parse_error', message, column: pos + 1 });
}

function lex(src: string): Token[] {
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

// ---------------------------------------------------------------------------
// Syntax tree and parser

type BinaryOp =
  | '?' | ':' | '??' | '||' | '&&'
  | '==' | '!=' | '>' | '>=' | '<' | '<=' | '=~' | '!~' | 'IN'
  | '&' | '|' | '^' | '<<' | '>>' | '+' | '-' | '*' | '/' | '%' | '**';

/** @internal */
export type ExprNode =
  | { k: 'lit'; v: unknown; pos: number }
  | { k: 'param'; name: string; pos: number }
  | { k: 'access'; path: string[]; pos: number }
  | { k: 'unary'; op: '-' | '!' | '~'; x: ExprNode; pos: number }
  | { k: 'binary'; op: BinaryOp; l: ExprNode; r: ExprNode; pos: number; re?: Re2 }
  | { k: 'in'; args: ExprNode[]; pos: number }
  | { k: 'list'; items: ExprNode[]; pos: number };

const PRECEDENCE: Record<BinaryOp, number> = {
  '?': 1, ':': 1, '??': 1,
  '||': 2,
  '&&': 3,
  '==': 4, '!=': 4, '>': 4, '>=': 4, '<': 4, '<=': 4, '=~': 4, '!~': 4, IN: 4,
  '&': 5, '|': 5, '^': 5,
  '<<': 6, '>>': 6,
  '+': 7, '-': 7,
  '*': 8, '/': 8, '%': 8,
  '**': 9,
};

const PREFIX_OPS = new Set(['-', '!', '~']);
const OPERATORS = new Set<string>([...Object.keys(PRECEDENCE), ...PREFIX_OPS]);

class Parser {
  private i = 0;
  private depth = 0;
  private nodes = 0;
  readonly references: string[] = [];

  constructor(
    private readonly src: string,
    private readonly tokens: Token[],
    private readonly limits: ExprLimits,
  ) {}

  parseAll(): ExprNode {
    if (this.tokens.length === 0) throw parseError('empty expression', 0);
    const root = this.parseBinary(1);
    const extra = this.tokens[this.i];
    if (extra) throw parseError(`unexpected ${describeToken(extra)}`, extra.pos);
    return root;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private node<T extends ExprNode>(n: T): T {
    if (++this.nodes > this.limits.maxNodes) {
      throw new LangFailure({ code: 'expr_limit', message: `expression has more than ${this.limits.maxNodes} nodes`, column: n.pos + 1 });
    }
    return n;
  }

  private enter(pos: number): void {
    if (++this.depth > this.limits.maxDepth) {
      throw new LangFailure({ code: 'expr_limit', message: `expression nests deeper than ${this.limits.maxDepth} levels`, column: pos + 1 });
    }
  }

  /** Precedence climbing; `minPrec` is the lowest binary level accepted. */
  private parseBinary(minPrec: number): ExprNode {
    const startTok = this.peek();
    this.enter(startTok?.pos ?? this.src.length);
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      if (!t || t.k !== 'op' || !(t.v in PRECEDENCE)) break;
      const op = t.v as BinaryOp;
      const prec = PRECEDENCE[op];
      if (prec < minPrec) break;
      this.i++;
      // prec + 1 on the right makes every level left-associative.
      const right = this.parseBinary(prec + 1);
      const bin = this.node({ k: 'binary', op, l: left, r: right, pos: t.pos } as Extract<ExprNode, { k: 'binary' }>);
      if ((op === '=~' || op === '!~') && right.k === 'lit' && typeof right.v === 'string') {
        // Like govaluate, a literal pattern is compiled (and rejected) up front.
        const re = compileRe2(right.v);
        if (!re.ok) throw parseError(re.error.message, right.pos);
        bin.re = re.value;
      }
      left = bin;
    }
    this.depth--;
    return left;
  }

  private parseUnary(): ExprNode {
    const t = this.peek();
    if (t && t.k === 'op' && PREFIX_OPS.has(t.v)) {
      this.i++;
      // govaluate's lexer forbids a prefix right after a prefix (`- -1`, `! !a`).
      const next = this.peek();
      if (next && next.k === 'op' && PREFIX_OPS.has(next.v)) {
        throw parseError(`unexpected ${describeToken(next)} after prefix '${t.v}'`, next.pos);
      }
      const x = this.parsePrimary();
      return this.node({ k: 'unary', op: t.v as '-' | '!' | '~', x, pos: t.pos });
    }
    return this.parsePrimary();
  }

  private parsePrimary(): ExprNode {
    const t = this.peek();
    if (!t) throw parseError('unexpected end of expression', this.src.length);
    this.i++;
    switch (t.k) {
      case 'num':
      case 'str':
      case 'bool':
        return this.node({ k: 'lit', v: t.v, pos: t.pos });
      case 'escaped':
        this.references.push(t.v);
        return this.node({ k: 'param', name: t.v, pos: t.pos });
      case 'name': {
        const after = this.peek();
        if (after?.k === '(') {
          throw parseError(
            t.path ? `method calls are not supported: '${t.v}(...)'` : `undefined function '${t.v}' (the only function is in)`,
            t.pos,
          );
        }
        this.references.push(t.v);
        if (t.path) return this.node({ k: 'access', path: t.path, pos: t.pos });
        return this.node({ k: 'param', name: t.v, pos: t.pos });
      }
      case 'func':
        return this.parseInCall(t.pos);
      case '(': {
        const first = this.parseBinary(1);
        if (this.peek()?.k !== ',') {
          this.expectClose(t.pos);
          return first; // plain parentheses add no node
        }
        const items = [first];
        while (this.peek()?.k === ',') {
          this.i++;
          items.push(this.parseBinary(1));
        }
        this.expectClose(t.pos);
        return this.node({ k: 'list', items, pos: t.pos });
      }
      default:
        throw parseError(`unexpected ${describeToken(t)}`, t.pos);
    }
  }

  private parseInCall(pos: number): ExprNode {
    const open = this.peek();
    if (open?.k !== '(') throw parseError("function 'in' must be followed by '('", open?.pos ?? this.src.length);
    this.i++;
    if (this.peek()?.k === ')') throw parseError('in() needs at least one argument', pos);
    const args = [this.parseBinary(1)];
    while (this.peek()?.k === ',') {
      this.i++;
      args.push(this.parseBinary(1));
    }
    this.expectClose(open.pos);
    return this.node({ k: 'in', args, pos });
  }

  private expectClose(openPos: number): void {
    const t = this.peek();
    if (t?.k === ')') {
      this.i++;
      return;
    }
    if (!t) throw parseError('unbalanced parenthesis', openPos);
    throw parseError(`expected ')' but found ${describeToken(t)}`, t.pos);
  }
}

function describeToken(t: Token): string {
  if (t.k === 'op') return `operator '${t.text}'`;
  if (t.k === ',' || t.k === '(' || t.k === ')') return `'${t.k}'`;
  return `'${t.text}'`;
}

// ---------------------------------------------------------------------------
// Evaluation

/** Marks "a parameter was missing"; propagates outward like govaluate's error. */
const MISSING: unique symbol = Symbol('missing');

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'number') return `number ${formatValueV(v, 'float64')}`;
  if (typeof v === 'boolean') return `bool ${v}`;
  if (Array.isArray(v)) return `list ${formatValueV(v, 'float64')}`;
  return `map ${formatValueV(v, 'float64')}`;
}

function typeError(message: string, pos: number): LangFailure {
  return new LangFailure({ code: 'expr_type_error', message, column: pos + 1 });
}

/** Deeper than this, `==` on nested values gives up (cyclic parameters). */
const MAX_EQUAL_DEPTH = 100;

/** Go's reflect.DeepEqual over JSON-like values (govaluate's `==`). */
function deepEqual(a: unknown, b: unknown, pos: number, depth = 0): boolean {
  if (a === b) return true; // NaN never gets here: NaN !== NaN, as in DeepEqual
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (depth > MAX_EQUAL_DEPTH) {
    throw new LangFailure({ code: 'expr_limit', message: `'==' compared values nested deeper than ${MAX_EQUAL_DEPTH} levels`, column: pos + 1 });
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i], pos, depth + 1));
  }
  const ea = entriesOf(a);
  const eb = entriesOf(b);
  if (!ea || !eb || ea.size !== eb.size) return false;
  for (const [k, v] of ea) {
    if (!eb.has(k) || !deepEqual(v, eb.get(k), pos, depth + 1)) return false;
  }
  return true;
}

function entriesOf(v: object): Map<string, unknown> | undefined {
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [String(k), x]));
  if (isRecord(v)) return new Map(Object.entries(v));
  return undefined;
}

/** Go's `==` on interface values (used by `in`): scalars by value only. */
function scalarEqual(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  return typeof a !== 'object' && a === b;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Own keys only: `constructor` or `__proto__` must never resolve to JS internals. */
function lookup(container: unknown, key: string): unknown {
  if (isRecord(container)) return hasOwn.call(container, key) ? container[key] : MISSING;
  if (container instanceof Map) return container.has(key) ? container.get(key) : MISSING;
  return MISSING; // fields of strings, numbers, lists or nil do not exist
}

function flipFirstLetter(name: string): string {
  const first = name.charAt(0);
  const flipped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return flipped + name.slice(1);
}

/** float64 → int64 the way Go does on amd64 (NaN/Inf/out of range → min int64). */
function toInt64(x: number): bigint {
  if (!Number.isFinite(x) || Math.abs(x) >= 9223372036854775808) return -9223372036854775808n;
  return BigInt(Math.trunc(x));
}

function toUint64(x: number): bigint {
  return BigInt.asUintN(64, toInt64(x));
}

class Evaluator {
  private steps = 0;
  missingName: string | undefined;

  constructor(
    private readonly params: ExprParams,
    private readonly coerce: boolean,
    private readonly limits: ExprLimits,
  ) {}

  private missing(name: string): typeof MISSING {
    this.missingName ??= name;
    return MISSING;
  }

  eval(n: ExprNode): unknown {
    if (++this.steps > this.limits.maxSteps) {
      throw new LangFailure({ code: 'expr_limit', message: `expression evaluation exceeded ${this.limits.maxSteps} steps`, column: n.pos + 1 });
    }
    switch (n.k) {
      case 'lit':
        return n.v;
      case 'param': {
        const v = lookup(this.params, n.name);
        if (v === MISSING || v === undefined) return this.missing(n.name);
        return this.coerce && typeof v === 'string' ? coerceLabel(v) : v;
      }
      case 'access':
        return this.evalAccess(n.path);
      case 'unary':
        return this.evalUnary(n);
      case 'binary':
        return this.evalBinary(n);
      case 'in': {
        // Arguments are evaluated left to right; a missing one stops everything.
        const values: unknown[] = [];
        for (const arg of n.args) {
          const v = this.eval(arg);
          if (v === MISSING) return MISSING;
          values.push(v);
        }
        const [x, ...candidates] = values;
        return candidates.some((c) => scalarEqual(x, c));
      }
      case 'list': {
        const values: unknown[] = [];
        for (const item of n.items) {
          const v = this.eval(item);
          if (v === MISSING) return MISSING;
          values.push(v);
        }
        return values;
      }
    }
  }

  private evalAccess(path: string[]): unknown {
    const [root = '', ...fields] = path;
    let v = lookup(this.params, root);
    if (v === MISSING) v = lookup(this.params, flipFirstLetter(root));
    if (v === MISSING || v === undefined) return this.missing(path.join('.'));
    for (const field of fields) {
      v = lookup(v, field);
      if (v === MISSING || v === undefined) return this.missing(path.join('.'));
    }
    return v;
  }

  private evalUnary(n: Extract<ExprNode, { k: 'unary' }>): unknown {
    const x = this.eval(n.x);
    if (x === MISSING) return MISSING;
    switch (n.op) {
      case '-':
        if (typeof x !== 'number') throw typeError(`prefix '-' needs a number, got ${describe(x)}`, n.pos);
        return -x;
      case '!':
        if (typeof x !== 'boolean') throw typeError(`prefix '!' needs a boolean, got ${describe(x)}`, n.pos);
        return !x;
      case '~':
        if (typeof x !== 'number') throw typeError(`prefix '~' needs a number, got ${describe(x)}`, n.pos);
        return Number(BigInt.asIntN(64, ~toInt64(x)));
    }
  }

  private evalBinary(n: Extract<ExprNode, { k: 'binary' }>): unknown {
    const l = this.eval(n.l);
    if (l === MISSING) return MISSING;

    // Short-circuiting operators decide before (or instead of) the right side.
    switch (n.op) {
      case '&&':
      case '||': {
        if (n.op === '&&' ? l === false : l === true) return l;
        const r = this.eval(n.r);
        if (r === MISSING) return MISSING;
        if (typeof l !== 'boolean' || typeof r !== 'boolean') {
          const bad = typeof l !== 'boolean' ? l : r;
          throw typeError(`'${n.op}' needs booleans, got ${describe(bad)}`, n.pos);
        }
        return r;
      }
      case '?': {
        // govaluate: `c ? x` yields x when c is true, nil otherwise; `:` then
        // picks its right side only when the left is nil.
        let r: unknown = null;
        if (l !== false) {
          r = this.eval(n.r);
          if (r === MISSING) return MISSING;
        }
        if (typeof l !== 'boolean') throw typeError(`'?' needs a boolean condition, got ${describe(l)}`, n.pos);
        return l ? r : null;
      }
      case ':':
      case '??':
        return l !== null ? l : this.eval(n.r);
    }

    const r = this.eval(n.r);
    if (r === MISSING) return MISSING;
    switch (n.op) {
      case '==':
        return this.equals(n, l, r);
      case '!=':
        return !this.equals(n, l, r);
      case '>':
      case '>=':
      case '<':
      case '<=':
        return compare(n, l, r);
      case '=~':
      case '!~':
        return this.regexMatch(n, l, r) === (n.op === '=~');
      case 'IN':
        if (!Array.isArray(r)) throw typeError(`right side of 'IN' must be a list like ('a', 'b'), got ${describe(r)}`, n.pos);
        return r.some((c) => scalarEqual(l, c));
      case '+':
        if (typeof l === 'number' && typeof r === 'number') return l + r;
        if (typeof l === 'string' || typeof r === 'string') {
          const s = formatValueV(l, 'float64') + formatValueV(r, 'float64');
          if (s.length > this.limits.maxStringLength) {
            throw new LangFailure({ code: 'expr_limit', message: `string longer than ${this.limits.maxStringLength} characters`, column: n.pos + 1 });
          }
          return s;
        }
        throw typeError(`'+' needs two numbers or a string, got ${describe(l)} and ${describe(r)}`, n.pos);
    }

    // Everything left is arithmetic or bitwise on float64 operands.
    if (typeof l !== 'number' || typeof r !== 'number') {
      const bad = typeof l !== 'number' ? l : r;
      throw typeError(`'${n.op}' needs numbers, got ${describe(bad)}`, n.pos);
    }
    switch (n.op) {
      case '-': return l - r;
      case '*': return l * r;
      case '/': return l / r;
      case '%': return l % r; // same as Go's math.Mod (sign of the dividend)
      case '**': return goPow(l, r);
      case '&': return Number(BigInt.asIntN(64, toInt64(l) & toInt64(r)));
      case '|': return Number(BigInt.asIntN(64, toInt64(l) | toInt64(r)));
      case '^': return Number(BigInt.asIntN(64, toInt64(l) ^ toInt64(r)));
      case '<<': {
        const count = toUint64(r);
        return count >= 64n ? 0 : Number(BigInt.asUintN(64, toUint64(l) << count));
      }
      case '>>': {
        const count = toUint64(r);
        return count >= 64n ? 0 : Number(toUint64(l) >> count);
      }
    }
    throw typeError(`unknown operator '${n.op}'`, n.pos);
  }

  private equals(n: Extract<ExprNode, { k: 'binary' }>, l: unknown, r: unknown): boolean {
    // Keelson: a parameter's raw string meets a boolean -> read it as a bool.
    if (typeof l === 'string' && typeof r === 'boolean' && isParamRef(n.l)) {
      return parseGoBool(l) === r;
    }
    if (typeof r === 'string' && typeof l === 'boolean' && isParamRef(n.r)) {
      return parseGoBool(r) === l;
    }
    return deepEqual(l, r, n.pos);
  }

  private regexMatch(n: Extract<ExprNode, { k: 'binary' }>, l: unknown, r: unknown): boolean {
    if (typeof l !== 'string') throw typeError(`left side of '${n.op}' must be a string, got ${describe(l)}`, n.pos);
    let re = n.re;
    if (!re) {
      if (typeof r !== 'string') throw typeError(`right side of '${n.op}' must be a string pattern, got ${describe(r)}`, n.pos);
      const compiled = compileRe2(r);
      if (!compiled.ok) throw typeError(compiled.error.message, n.r.pos);
      re = compiled.value;
    }
    const matched = re.test(l, this.limits.maxRegexWork);
    if (matched === undefined) {
      throw new LangFailure({ code: 'expr_limit', message: `regular expression '${re.source}' needed too much work`, column: n.pos + 1 });
    }
    return matched;
  }
}

function isParamRef(n: ExprNode): boolean {
  return n.k === 'param' || n.k === 'access';
}

function compare(n: Extract<ExprNode, { k: 'binary' }>, l: unknown, r: unknown): boolean {
  let c: number;
  if (typeof l === 'number' && typeof r === 'number') {
    if (Number.isNaN(l) || Number.isNaN(r)) return false;
    c = l - r;
  } else if (typeof l === 'string' && typeof r === 'string') {
    c = compareGoStrings(l, r);
  } else {
    throw typeError(
      `'${n.op}' compares two numbers or two strings, got ${describe(l)} and ${describe(r)}`,
      n.pos,
    );
  }
  switch (n.op) {
    case '>': return c > 0;
    case '>=': return c >= 0;
    case '<': return c < 0;
    default: return c <= 0;
  }
}

/** math.Pow differs from JS `**` on a few special cases. */
function goPow(x: number, y: number): number {
  if (x === 1) return 1; // Go: Pow(1, y) = 1 for any y, even NaN
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return x ** y;
}
