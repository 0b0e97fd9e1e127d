/**
 * Go `text/template`, the subset Aptomi's policies use, reimplemented for
 * code parameters, discovery values and allocation keys.
 *
 * Supported: text and `{{ }}` actions with `{{-` / `-}}` whitespace
 * trimming; Go template comments; `.Field.Chains`, `$` and `$variables`
 * (`:=` declares, `=` assigns); pipelines `a | b`; parenthesised pipelines
 * and `(pipeline).Field`; string (Go escapes), raw-string, character,
 * number, bool and nil literals; `if` / `else if` / `else`, `with` /
 * `else with` / `else`, `range` (arrays, maps in sorted key order, integers;
 * `$i, $v :=`; `else`; `break` / `continue`); the builtins `eq ne lt le gt
 * ge and or not len index print printf println`; and Aptomi's `default`.
 * Unknown functions (`upper`) are compile errors, as they were in Aptomi
 * (no sprig). `define`, `template` and `block` are rejected.
 *
 * Data model: plain objects and Maps are Go maps (a missing key yields "no
 * value", printed `<no value>`), arrays are slices, numbers are ints when
 * integral and float64 otherwise, null is nil.
 *
 * Aptomi treats any output containing `<no value>` as an error: that is how
 * a missing label or discovery value surfaces. `renderTemplate` does the
 * same (code `template_no_value`) and points at the first action that
 * printed it.
 *
 * Deliberate differences from Go: numbers compare by value whatever their
 * notation (Go refuses `eq 1 1.0`); `index` of a missing map key is nil
 * (`<no value>`) even for label maps, where Go's map[string]string gave "".
 */

import {
  compareGoStrings,
  FormatLimitError,
  formatValueV,
  goSprint,
  goSprintf,
  goSprintln,
  goTypeName,
  isRecord,
  sortedEntries,
  utf8ByteLength,
} from './gofmt';
import { fail, LangFailure, lineColumn, ok, type LangError, type Result } from './result';

// ---------------------------------------------------------------------------
// Public API

export interface TemplateLimits {
  /** Longest accepted template source, in UTF-16 units. */
  maxSourceLength: number;
  /** Largest rendered output, in UTF-16 units. */
  maxOutputLength: number;
  /** Most execution steps (nodes walked, calls made, range iterations). */
  maxSteps: number;
  /** Deepest nesting of control structures and parentheses. */
  maxDepth: number;
}

export const DEFAULT_TEMPLATE_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  maxSourceLength: 256 * 1024,
  maxOutputLength: 1024 * 1024,
  maxSteps: 100_000,
  maxDepth: 100,
});

/** A parsed template. Immutable and safe to cache and share. */
export interface CompiledTemplate {
  readonly source: string;
  /** Name used in error messages (defaults to the source text). */
  readonly name?: string;
  /** @internal the parse tree; not part of the stable API. */
  readonly root: readonly TNode[];
  /**
   * @internal Text and plain field chains only (`prefix-{{ .Labels.x }}`),
   * the overwhelming majority of policy templates: rendered by string
   * concatenation when every field is a string, else by the executor.
   */
  readonly fast?: readonly FastPart[];
}

type FastPart = string | readonly string[];

/** The fast form of a parse tree, when it has one. */
function fastParts(root: readonly TNode[]): FastPart[] | undefined {
  const parts: FastPart[] = [];
  for (const n of root) {
    if (n.k === 'text') parts.push(n.text);
    else if (n.k === 'action' && n.pipe.decl.length === 0 && n.pipe.cmds.length === 1) {
      const args = n.pipe.cmds[0]!.args;
      if (args.length !== 1 || args[0]!.k !== 'field') return undefined;
      parts.push(args[0]!.idents);
    } else return undefined;
  }
  return parts;
}

/**
 * Renders a fast template; undefined when a field is not a plain own string
 * (missing, nil, number, map…), so that the executor decides — with Go's
 * printing and its errors — exactly as it would have.
 */
function renderFast(parts: readonly FastPart[], data: unknown): string | undefined {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    let cur: unknown = data;
    for (const ident of part) {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, ident)) return undefined;
      cur = (cur as Record<string, unknown>)[ident];
    }
    if (typeof cur !== 'string') return undefined;
    out += cur;
  }
  return out.includes(NO_VALUE) ? undefined : out;
}

export interface CompileOptions {
  name?: string;
  limits?: Partial<TemplateLimits>;
}

export interface RenderOptions {
  /** Overrides the compiled template's name in error messages. */
  name?: string;
  limits?: Partial<TemplateLimits>;
}

/** Compiled templates keyed by source (compile errors are cached too). */
export interface TemplateCache {
  get(source: string): Result<CompiledTemplate> | undefined;
  set(source: string, compiled: Result<CompiledTemplate>): unknown;
}

const BUILTINS = new Set([
  'and', 'default', 'eq', 'ge', 'gt', 'index', 'le', 'len', 'lt', 'ne', 'not', 'or', 'print', 'printf', 'println',
]);
const GO_BUILTINS_NOT_SUPPORTED = new Set(['call', 'html', 'js', 'slice', 'urlquery']);

export function compileTemplate(src: string, options?: CompileOptions): Result<CompiledTemplate> {
  const limits = { ...DEFAULT_TEMPLATE_LIMITS, ...options?.limits };
  const label = templateLabel(src, options?.name);
  if (src.length > limits.maxSourceLength) {
    return fail({ code: 'template_limit', message: `template ${label} is longer than ${limits.maxSourceLength} characters` });
  }
  try {
    const tokens = lexTemplate(src);
    const root = new Parser(src, tokens, limits).parseTemplate();
    const fast = fastParts(root);
    const compiled: CompiledTemplate = { source: src, root, ...(fast ? { fast } : {}) };
    return ok(options?.name === undefined ? compiled : { ...compiled, name: options.name });
  } catch (e) {
    if (e instanceof LangFailure) return fail(locate(src, label, e.error));
    throw e;
  }
}

/** compileTemplate with a cache keyed by source text. */
export function compileTemplateCached(src: string, cache: TemplateCache, limits?: Partial<TemplateLimits>): Result<CompiledTemplate> {
  let hit = cache.get(src);
  if (hit === undefined) {
    hit = compileTemplate(src, limits ? { limits } : undefined);
    cache.set(src, hit);
  }
  return hit;
}

export function renderTemplate(compiled: CompiledTemplate, data: unknown, options?: RenderOptions): Result<string> {
  if (compiled.fast) {
    const out = renderFast(compiled.fast, data);
    if (out !== undefined && out.length <= (options?.limits?.maxOutputLength ?? DEFAULT_TEMPLATE_LIMITS.maxOutputLength)) return storable(compiled, out, options);
  }
  const r = renderWithExecutor(compiled, data, options);
  return r.ok ? storable(compiled, r.value, options) : r;
}

/**
 * Output that could not be stored (a NUL, a lone surrogate — `printf "%c" 0`
 * makes one) is the template's error, not a storage failure later.
 */
function storable(compiled: CompiledTemplate, out: string, options?: RenderOptions): Result<string> {
  // Fast path: nearly every output is plain text.
  if (!/[\0\ud800-\udfff]/.test(out)) return ok(out);
  const what = out.includes('\0') ? 'a NUL character' : /\p{Cs}/u.test(out) ? 'a lone UTF-16 surrogate' : undefined;
  if (!what) return ok(out);
  return fail({ code: 'template_output', message: `template ${templateLabel(compiled.source, options?.name ?? compiled.name)} rendered ${what}, which cannot be stored` });
}

function renderWithExecutor(compiled: CompiledTemplate, data: unknown, options?: RenderOptions): Result<string> {
  const limits = options?.limits ? { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits } : DEFAULT_TEMPLATE_LIMITS;
  // Built only on failure: rendering is on the resolver's hot path.
  function label() {
    return templateLabel(compiled.source, options?.name ?? compiled.name);
  }
  const exec = new Executor(compiled.source, limits);
  let out: string;
  try {
    out = exec.run(compiled.root, data);
  } catch (e) {
    if (e instanceof LangFailure) return fail(locate(compiled.source, label(), e.error));
    if (e instanceof FormatLimitError) return fail({ code: 'template_limit', message: `template ${label()}: ${e.message}` });
    throw e;
  }
  if (out.includes(NO_VALUE)) {
    // Aptomi's rule: any "<no value>" in the output is an error.
    const at = exec.firstNoValue;
    const where = at ? `: <${compiled.source.slice(at.pos, at.end).trim()}> has no value` : '';
    const error: LangError = { code: 'template_no_value', message: `template ${label()} rendered "${NO_VALUE}"${where}` };
    if (at) Object.assign(error, lineColumn(compiled.source, at.pos));
    return fail(error);
  }
  return ok(out);
}

/**
 * Renders every string leaf of a JSON-like tree as a template (Aptomi's code
 * params and discovery values). Numbers, booleans and null pass through
 * unchanged; objects keep their key order. Errors carry the failing leaf's
 * path, e.g. `kafka.addresses.kafka` or `hosts[2]`.
 *
 * The cache is passed in rather than kept in a module-level map so that its
 * lifetime follows the caller's (typically one policy generation): memory
 * is released with it, and one tenant's templates cannot evict or outlive
 * another's.
 */
export function renderParamTree(
  tree: unknown,
  data: unknown,
  cache: TemplateCache = new Map(),
  limits?: Partial<TemplateLimits>,
): Result<unknown> {
  const plan = compileParamTree(tree, cache, limits);
  return plan.ok ? renderPlan(plan.value, data, limits) : plan;
}

/**
 * A parameter tree prepared for repeated rendering: templates compiled,
 * constant subtrees (no string leaf holding `{{`) kept as they are, and each
 * leaf's path computed once for error messages. The resolver renders the
 * same bundle's parameters for every claim, so it caches plans per tree.
 */
export type ParamPlan =
  | { k: 'const'; value: unknown }
  | { k: 'tpl'; t: CompiledTemplate; path: string }
  | { k: 'list'; items: ParamPlan[] }
  | { k: 'map'; keys: string[]; values: ParamPlan[] };

export function compileParamTree(tree: unknown, cache: TemplateCache = new Map(), limits?: Partial<TemplateLimits>): Result<ParamPlan> {
  // Trees come from YAML, whose aliases can share or even cycle back to
  // nodes; cap the walk so neither blows up.
  let nodesLeft = MAX_TREE_NODES;
  const walk = (node: unknown, path: string, depth: number): Result<ParamPlan> => {
    if (--nodesLeft < 0 || depth > MAX_TREE_DEPTH) {
      const what = depth > MAX_TREE_DEPTH ? `nested deeper than ${MAX_TREE_DEPTH} levels` : `larger than ${MAX_TREE_NODES} values`;
      return fail({ code: 'template_limit', message: `${path || 'parameters'}: parameter tree is ${what}`, path });
    }
    if (typeof node === 'string') {
      // Only templates can render differently; Aptomi's "<no value>" check still applies to text.
      if (!node.includes('{{') && !node.includes(NO_VALUE)) return ok({ k: 'const', value: node });
      const compiled = compileTemplateCached(node, cache, limits);
      if (!compiled.ok) return fail({ ...compiled.error, path, message: (path === '' ? '' : `${path}: `) + compiled.error.message });
      return ok({ k: 'tpl', t: compiled.value, path });
    }
    if (Array.isArray(node)) {
      const items: ParamPlan[] = [];
      for (const [i, item] of node.entries()) {
        const r = walk(item, `${path}[${i}]`, depth + 1);
        if (!r.ok) return r;
        items.push(r.value);
      }
      return ok(items.every((x) => x.k === 'const') ? { k: 'const', value: node } : { k: 'list', items });
    }
    if (isRecord(node)) {
      const keys = Object.keys(node);
      const values: ParamPlan[] = [];
      for (const key of keys) {
        const r = walk(node[key], path === '' ? key : `${path}.${key}`, depth + 1);
        if (!r.ok) return r;
        values.push(r.value);
      }
      return ok(values.every((x) => x.k === 'const') ? { k: 'const', value: node } : { k: 'map', keys, values });
    }
    return ok({ k: 'const', value: node });
  };
  return walk(tree, '', 0);
}

/**
 * Renders a plan. Constant subtrees are shared with the plan (and so with
 * every other rendering): treat results as read-only.
 */
export function renderPlan(plan: ParamPlan, data: unknown, limits?: Partial<TemplateLimits>): Result<unknown> {
  const state: PlanRun = { data, opts: limits ? { limits } : undefined, failure: undefined };
  const value = runPlan(plan, state);
  return state.failure ? fail(state.failure) : ok(value);
}

interface PlanRun {
  data: unknown;
  opts: RenderOptions | undefined;
  failure: LangError | undefined;
}

/** Module-level (not a closure per call): the resolver renders plans for every claim. */
function runPlan(p: ParamPlan, st: PlanRun): unknown {
  switch (p.k) {
    case 'const':
      return p.value;
    case 'tpl': {
      const r = renderTemplate(p.t, st.data, st.opts);
      if (r.ok) return r.value;
      st.failure = { ...r.error, path: p.path, message: (p.path === '' ? '' : `${p.path}: `) + r.error.message };
      return undefined;
    }
    case 'list': {
      const out: unknown[] = [];
      for (const item of p.items) {
        out.push(runPlan(item, st));
        if (st.failure) return undefined;
      }
      return out;
    }
    case 'map': {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < p.keys.length; i++) {
        out[p.keys[i]!] = runPlan(p.values[i]!, st);
        if (st.failure) return undefined;
      }
      return out;
    }
  }
}

const MAX_TREE_NODES = 100_000;
const MAX_TREE_DEPTH = 100;

const NO_VALUE = '<no value>';

function templateLabel(src: string, name: string | undefined): string {
  if (name !== undefined) return JSON.stringify(name);
  const oneLine = src.replace(/\s+/g, ' ');
  return JSON.stringify(oneLine.length > 60 ? oneLine.slice(0, 57) + '...' : oneLine);
}

/** Adds line/column (from the error's offset, stashed in `column`) and the label. */
function locate(src: string, label: string, error: LangError): LangError {
  const offset = error.column;
  const out: LangError = { ...error, message: `template ${label}: ${error.message}` };
  if (offset !== undefined) Object.assign(out, lineColumn(src, offset));
  return out;
}

/** Internal errors carry the 0-based source offset in `column` until `locate`. */
function failAt(code: LangError['code'], message: string, offset: number): LangFailure {
  return new LangFailure({ code, message, column: offset });
}

// ---------------------------------------------------------------------------
// Lexer

type TokKind =
  | 'text' | 'open' | 'close' | 'comment'
  | 'ident' | 'keyword' | 'field' | 'var' | 'dot'
  | 'string' | 'raw' | 'char' | 'number' | 'bool' | 'nil'
  | 'pipe' | 'lparen' | 'rparen' | 'declare' | 'assign' | 'comma';

interface Tok {
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

function lexTemplate(src: string): Tok[] {
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

// ---------------------------------------------------------------------------
// Parse tree

interface Pipe {
  decl: string[];
  isAssign: boolean;
  cmds: Cmd[];
  pos: number;
  end: number;
}

interface Cmd {
  args: Operand[];
  pos: number;
  end: number;
}

type Operand = (
  | { k: 'field'; idents: string[] } // .A.B
  | { k: 'var'; name: string; idents: string[] } // $x.A.B
  | { k: 'chain'; node: Operand; idents: string[] } // (pipe).A.B
  | { k: 'ident'; name: string } // function name
  | { k: 'dot' }
  | { k: 'nil' }
  | { k: 'literal'; value: string | number | boolean }
  | { k: 'pipe'; pipe: Pipe }
) & { pos: number; end: number };

/** @internal */
export type TNode =
  | { k: 'text'; text: string; pos: number }
  | { k: 'action'; pipe: Pipe; pos: number; end: number }
  | ControlNode
  | { k: 'break' | 'continue'; pos: number };

interface ControlNode {
  k: 'if' | 'with' | 'range';
  pipe: Pipe;
  list: TNode[];
  elseList: TNode[] | null;
  pos: number;
}

type ListEnd = { k: 'end' | 'else'; pos: number; elseKeyword?: 'if' | 'with' };

function isListEnd(n: TNode | ListEnd): n is ListEnd {
  return n.k === 'end' || n.k === 'else';
}

class Parser {
  private i = 0;
  private depth = 0;
  private rangeDepth = 0;
  /** Declared variable names in scope (Go checks uses at parse time). */
  private vars: string[] = ['$'];

  constructor(
    private readonly src: string,
    private readonly toks: Tok[],
    private readonly limits: TemplateLimits,
  ) {}

  parseTemplate(): TNode[] {
    const [list, end] = this.itemList();
    if (end) throw failAt('template_parse_error', `unexpected {{${end.k}}}`, end.pos);
    return list;
  }

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }

  private next(): Tok {
    const t = this.toks[this.i++];
    if (!t) throw failAt('template_parse_error', 'unexpected EOF', this.src.length);
    return t;
  }

  private expect(k: TokKind, context: string): Tok {
    const t = this.next();
    if (t.k !== k) throw this.unexpected(t, context);
    return t;
  }

  private unexpected(t: Tok, context: string): LangFailure {
    const shown = t.k === 'close' ? '}}' : t.k === 'text' ? 'text' : JSON.stringify(t.v);
    return failAt('template_parse_error', `unexpected ${shown} in ${context}`, t.pos);
  }

  private enter(pos: number): void {
    if (++this.depth > this.limits.maxDepth) {
      throw failAt('template_limit', `template nests deeper than ${this.limits.maxDepth} levels`, pos);
    }
  }

  /** Items up to `{{end}}`, `{{else}}` or EOF (returned as undefined). */
  private itemList(): [TNode[], ListEnd | undefined] {
    const list: TNode[] = [];
    for (;;) {
      const t = this.toks[this.i];
      if (!t) return [list, undefined];
      this.i++;
      if (t.k === 'text') list.push({ k: 'text', text: t.v, pos: t.pos });
      else if (t.k === 'comment') this.expect('close', 'comment');
      else if (t.k === 'open') {
        const node = this.action(t);
        if (isListEnd(node)) return [list, node];
        list.push(node);
      } else throw this.unexpected(t, 'template');
    }
  }

  private action(open: Tok): TNode | ListEnd {
    const t = this.peek();
    if (t?.k === 'keyword') {
      this.i++;
      switch (t.v) {
        case 'if':
        case 'with':
        case 'range':
          return this.control(t.v, t.pos);
        case 'end':
          this.expect('close', 'end');
          return { k: 'end', pos: open.pos };
        case 'else': {
          const after = this.peek();
          if (after?.k === 'keyword' && (after.v === 'if' || after.v === 'with')) {
            this.i++;
            return { k: 'else', pos: open.pos, elseKeyword: after.v };
          }
          this.expect('close', 'else');
          return { k: 'else', pos: open.pos };
        }
        case 'break':
        case 'continue':
          if (this.rangeDepth === 0) throw failAt('template_parse_error', `{{${t.v}}} outside {{range}}`, t.pos);
          this.expect('close', t.v);
          return { k: t.v, pos: t.pos };
        default:
          throw failAt('template_parse_error', `{{${t.v}}} is not supported`, t.pos);
      }
    }
    // Variables declared by a plain action persist until the enclosing {{end}}.
    const pipe = this.pipeline('command', 'close');
    return { k: 'action', pipe, pos: open.pos, end: pipe.end };
  }

  private control(kind: 'if' | 'with' | 'range', pos: number): TNode {
    this.enter(pos);
    const scope = this.vars.length;
    const pipe = this.pipeline(kind, 'close');
    if (kind === 'range') this.rangeDepth++;
    const [list, end] = this.itemList();
    if (kind === 'range') this.rangeDepth--;
    if (!end) throw failAt('template_parse_error', `unexpected EOF: missing {{end}} for {{${kind}}}`, pos);
    let elseList: TNode[] | null = null;
    if (end.k === 'else') {
      if (end.elseKeyword) {
        // `{{else if x}}` is `{{else}}{{if x}}...{{end}}` with the inner
        // {{end}} shared, exactly as Go rewrites it.
        if (end.elseKeyword !== kind) {
          throw failAt('template_parse_error', `{{else ${end.elseKeyword}}} is only allowed in {{${end.elseKeyword}}}`, end.pos);
        }
        elseList = [this.control(end.elseKeyword, end.pos)];
      } else {
        const [rest, end2] = this.itemList();
        if (!end2 || end2.k !== 'end') {
          throw failAt('template_parse_error', end2 ? 'expected {{end}}; found {{else}}' : `unexpected EOF: missing {{end}} for {{${kind}}}`, end2?.pos ?? pos);
        }
        elseList = rest;
      }
    }
    this.vars.length = scope;
    this.depth--;
    return { k: kind, pipe, list, elseList, pos };
  }

  private pipeline(context: string, endKind: 'close' | 'rparen'): Pipe {
    const first = this.peek();
    const pipe: Pipe = { decl: [], isAssign: false, cmds: [], pos: first?.pos ?? this.src.length, end: first?.pos ?? 0 };
    // Declarations: `$x :=`, `$x =`, and in range `$i, $v :=`.
    const v = this.peek();
    const after = this.toks[this.i + 1];
    if (v?.k === 'var' && (after?.k === 'declare' || after?.k === 'assign' || after?.k === 'comma')) {
      if (after.k === 'comma') {
        const v2 = this.toks[this.i + 2];
        const op = this.toks[this.i + 3];
        if (context !== 'range') throw failAt('template_parse_error', `too many declarations in ${context}`, after.pos);
        if (v2?.k !== 'var' || (op?.k !== 'declare' && op?.k !== 'assign')) {
          throw failAt('template_parse_error', 'range can only initialize variables', after.pos);
        }
        pipe.decl.push(v.v, v2.v);
        pipe.isAssign = op.k === 'assign';
        this.i += 4;
      } else {
        pipe.decl.push(v.v);
        pipe.isAssign = after.k === 'assign';
        this.i += 2;
      }
      for (const name of pipe.decl) {
        if (pipe.isAssign) this.useVar(name, v.pos);
        else this.vars.push(name);
      }
    }
    for (;;) {
      const t = this.peek();
      if (!t) throw failAt('template_parse_error', `unclosed action`, pipe.pos);
      if (t.k === endKind) {
        this.i++;
        pipe.end = t.pos;
        break;
      }
      if (isOperandStart(t)) pipe.cmds.push(this.command(endKind));
      else throw this.unexpected(t, context);
      const sep = this.peek();
      if (sep?.k === 'pipe') {
        this.i++;
        const next = this.peek();
        if (!next || !isOperandStart(next)) throw failAt('template_parse_error', `missing command after '|' in ${context}`, sep.pos);
      }
    }
    if (pipe.cmds.length === 0) throw failAt('template_parse_error', `missing value for ${context}`, pipe.pos);
    for (const [n, cmd] of pipe.cmds.entries()) {
      const head = cmd.args[0];
      if (n > 0 && head && (head.k === 'literal' || head.k === 'dot' || head.k === 'nil')) {
        throw failAt('template_parse_error', `non executable command in pipeline stage ${n + 1}`, cmd.pos);
      }
    }
    return pipe;
  }

  private command(endKind: 'close' | 'rparen'): Cmd {
    const first = this.peek() as Tok;
    const cmd: Cmd = { args: [], pos: first.pos, end: first.end };
    for (;;) {
      cmd.args.push(this.operand());
      const t = this.peek();
      if (!t) throw failAt('template_parse_error', 'unclosed action', cmd.pos);
      cmd.end = this.toks[this.i - 1]?.end ?? cmd.end;
      if (t.k === 'pipe' || t.k === endKind) break;
      if (t.k === 'close' || t.k === 'rparen') throw this.unexpected(t, 'operand');
      if (!t.space) throw this.unexpected(t, 'operand');
      if (!isOperandStart(t)) throw this.unexpected(t, 'operand');
    }
    return cmd;
  }

  private operand(): Operand {
    let node = this.term();
    const t = this.peek();
    if (t?.k === 'field' && !t.space) {
      const idents: string[] = [];
      while (this.peek()?.k === 'field' && !this.peek()?.space) idents.push(this.next().v.slice(1));
      const end = this.toks[this.i - 1]?.end ?? node.end;
      switch (node.k) {
        case 'field':
          node = { ...node, idents: [...node.idents, ...idents], end };
          break;
        case 'var':
          node = { ...node, idents: [...node.idents, ...idents], end };
          break;
        case 'literal':
        case 'nil':
        case 'dot':
          throw failAt('template_parse_error', `unexpected . after term ${JSON.stringify(this.src.slice(node.pos, node.end))}`, t.pos);
        default:
          node = { k: 'chain', node, idents, pos: node.pos, end };
      }
    }
    return node;
  }

  private term(): Operand {
    const t = this.next();
    const at = { pos: t.pos, end: t.end };
    switch (t.k) {
      case 'ident':
        if (!BUILTINS.has(t.v)) {
          const why = GO_BUILTINS_NOT_SUPPORTED.has(t.v) ? 'is not supported' : 'not defined';
          throw failAt('template_parse_error', `function ${JSON.stringify(t.v)} ${why}`, t.pos);
        }
        return { k: 'ident', name: t.v, ...at };
      case 'dot':
        return { k: 'dot', ...at };
      case 'nil':
        return { k: 'nil', ...at };
      case 'var': {
        const [name = '$', ...idents] = t.v.split('.');
        this.useVar(name, t.pos);
        return { k: 'var', name, idents, ...at };
      }
      case 'field':
        return { k: 'field', idents: [t.v.slice(1)], ...at };
      case 'bool':
        return { k: 'literal', value: t.v === 'true', ...at };
      case 'number':
        return { k: 'literal', value: parseNumber(t.v, t.pos), ...at };
      case 'char':
        return { k: 'literal', value: unquoteChar(t.v, t.pos), ...at };
      case 'string':
        return { k: 'literal', value: unquoteString(t.v, t.pos), ...at };
      case 'raw':
        return { k: 'literal', value: t.v, ...at };
      case 'lparen': {
        this.enter(t.pos);
        const pipe = this.pipeline('parenthesized pipeline', 'rparen');
        this.depth--;
        return { k: 'pipe', pipe, pos: t.pos, end: this.toks[this.i - 1]?.end ?? t.end };
      }
      default:
        throw this.unexpected(t, 'operand');
    }
  }

  private useVar(name: string, pos: number): void {
    if (!this.vars.includes(name)) throw failAt('template_parse_error', `undefined variable ${JSON.stringify(name)}`, pos);
  }
}

function isOperandStart(t: Tok): boolean {
  switch (t.k) {
    case 'ident': case 'dot': case 'nil': case 'var': case 'field': case 'bool':
    case 'number': case 'char': case 'string': case 'raw': case 'lparen':
      return true;
    default:
      return false;
  }
}

/** Go number literals: decimal, 0x/0o/0b/leading-0 octal ints, floats, `_` separators. */
function parseNumber(text: string, pos: number): number {
  const bad = () => failAt('template_parse_error', `illegal number syntax: ${JSON.stringify(text)}`, pos);
  // Underscores must sit between digits (or after a base prefix).
  if (/(^|[^0-9a-fA-FxXoObB])_|_$|__|_[.eE]|[.eE]_/.test(text.replace(/^[+-]/, ''))) throw bad();
  const clean = text.replace(/_/g, '');
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(clean);
  let value: number;
  if (m) {
    const [, sign = '', body = ''] = m;
    const prefix = body.slice(0, 2).toLowerCase();
    const big =
      prefix === '0x' || prefix === '0o' || prefix === '0b'
        ? BigInt(body.slice(0, 1) + body.slice(1).toLowerCase())
        : body.length > 1 && body.startsWith('0')
          ? BigInt('0o' + body.slice(1))
          : BigInt(body);
    const signed = sign === '-' ? -big : big;
    if (signed > 9223372036854775807n || signed < -9223372036854775808n) {
      throw failAt('template_parse_error', `${text} overflows int`, pos);
    }
    value = Number(signed);
  } else {
    if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(clean)) throw bad();
    value = Number(clean);
    if (!Number.isFinite(value)) throw bad();
  }
  return value;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\',
};

/** strconv.Unquote for an interpreted "..." or '...' literal (quotes included). */
function unquoteBody(lit: string, pos: number, quote: '"' | "'"): string {
  const bad = () => failAt('template_parse_error', `invalid syntax in ${lit}`, pos);
  let out = '';
  const body = lit.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) throw bad();
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (e === quote) out += e;
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw bad();
      const cp = parseInt(hex, 16);
      i += n;
      if (e === 'x') out += String.fromCharCode(cp); // a byte; fine for ASCII, Latin-1 otherwise
      else if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw bad();
      else out += String.fromCodePoint(cp);
    } else if (e >= '0' && e <= '7') {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct)) throw bad();
      const v = parseInt(oct, 8);
      if (v > 255) throw bad();
      out += String.fromCharCode(v);
      i += 2;
    } else throw bad();
  }
  return out;
}

function unquoteString(lit: string, pos: number): string {
  return unquoteBody(lit, pos, '"');
}

function unquoteChar(lit: string, pos: number): number {
  const s = unquoteBody(lit, pos, "'");
  const cp = s.codePointAt(0);
  if (cp === undefined || String.fromCodePoint(cp) !== s) {
    throw failAt('template_parse_error', `malformed character constant: ${lit}`, pos);
  }
  return cp;
}

// ---------------------------------------------------------------------------
// Execution

/** Go's invalid reflect.Value: a missing map key or an unset interface. */
const MISSING: unique symbol = Symbol('no value');
type Value = unknown;

type Flow = 'break' | 'continue' | undefined;

class Executor {
  private out = '';
  private steps = 0;
  /** Variable stack (innermost last), as in Go's push/pop with marks. */
  private vars: { name: string; value: Value }[] = [];
  firstNoValue: { pos: number; end: number } | undefined;

  constructor(
    private readonly src: string,
    private readonly limits: TemplateLimits,
  ) {}

  run(root: readonly TNode[], data: unknown): string {
    const dot = data === undefined || data === null ? MISSING : data;
    this.vars = [{ name: '$', value: dot }];
    this.walkList(dot, root);
    return this.out;
  }

  private step(pos: number): void {
    if (++this.steps > this.limits.maxSteps) {
      throw failAt('template_limit', `template execution exceeded ${this.limits.maxSteps} steps`, pos);
    }
  }

  private write(s: string, pos: number): void {
    this.out += s;
    if (this.out.length > this.limits.maxOutputLength) {
      throw failAt('template_limit', `template output is larger than ${this.limits.maxOutputLength} characters`, pos);
    }
  }

  private error(message: string, pos: number, end: number): LangFailure {
    return failAt('template_exec_error', `executing at <${this.src.slice(pos, end).trim()}>: ${message}`, pos);
  }

  private walkList(dot: Value, list: readonly TNode[]): Flow {
    for (const node of list) {
      const flow = this.walk(dot, node);
      if (flow) return flow;
    }
    return undefined;
  }

  private walk(dot: Value, node: TNode): Flow {
    switch (node.k) {
      case 'text':
        this.step(node.pos);
        this.write(node.text, node.pos);
        return undefined;
      case 'action': {
        this.step(node.pos);
        const v = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.print(v, node.pipe);
        return undefined;
      }
      case 'if':
      case 'with': {
        this.step(node.pos);
        const mark = this.vars.length;
        const v = this.evalPipeline(dot, node.pipe);
        let flow: Flow;
        if (truth(v)) flow = this.walkList(node.k === 'with' ? v : dot, node.list);
        else if (node.elseList) flow = this.walkList(dot, node.elseList);
        this.vars.length = mark;
        return flow;
      }
      case 'range':
        return this.walkRange(dot, node);
      case 'break':
      case 'continue':
        return node.k;
    }
  }

  private walkRange(dot: Value, node: ControlNode): Flow {
    this.step(node.pos);
    const outer = this.vars.length;
    const pipe = node.pipe;
    // As in Go, the range variables are first declared (or assigned) with the
    // pipeline's value like any declaration, then re-set for every item.
    const val = this.evalPipeline(dot, pipe);
    const mark = this.vars.length;
    let iterated = false;
    const iterate = (key: Value, elem: Value): boolean => {
      iterated = true;
      this.step(node.pos);
      const [first, second] = pipe.decl;
      if (pipe.decl.length === 1 && first !== undefined) this.assign(first, elem, pipe);
      if (pipe.decl.length === 2 && first !== undefined && second !== undefined) {
        this.assign(first, key, pipe);
        this.assign(second, elem, pipe);
      }
      const flow = this.walkList(elem, node.list);
      this.vars.length = mark;
      return flow === 'break';
    };
    if (Array.isArray(val)) {
      for (let i = 0; i < val.length; i++) if (iterate(i, val[i])) break;
    } else if (val instanceof Map || isRecord(val)) {
      for (const [k, v] of sortedEntries(val)) if (iterate(k, v)) break;
    } else if (typeof val === 'number' && Number.isInteger(val)) {
      if (pipe.decl.length > 1) throw this.error(`can't use ${val} to iterate over more than one variable`, pipe.pos, pipe.end);
      for (let i = 0; i < val; i++) if (iterate(i, i)) break;
    } else if (val !== MISSING && val !== null) {
      throw this.error(`range can't iterate over ${formatValueV(val, 'int-aware')}`, pipe.pos, pipe.end);
    }
    let flow: Flow;
    if (!iterated && node.elseList) flow = this.walkList(dot, node.elseList);
    this.vars.length = outer;
    return flow;
  }

  /** Range variables: `:=` sets the freshly pushed slot, `=` the outer variable. */
  private assign(name: string, value: Value, pipe: Pipe): void {
    if (pipe.isAssign) this.setVar(name, value, pipe);
    else {
      for (let i = this.vars.length - 1; i >= 0; i--) {
        const slot = this.vars[i];
        if (slot?.name === name) {
          slot.value = value;
          return;
        }
      }
    }
  }

  private print(v: Value, pipe: Pipe): void {
    if (v === MISSING || v === null) {
      this.firstNoValue ??= { pos: pipe.pos, end: pipe.end };
      this.write(NO_VALUE, pipe.pos);
      return;
    }
    this.write(formatValueV(v, 'int-aware'), pipe.pos);
  }

  private evalPipeline(dot: Value, pipe: Pipe): Value {
    let value: Value = NO_FINAL;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // Go unwraps interface values after each command: a nil interface
      // (e.g. a map entry holding nil) becomes "no value".
      if (value === null) value = MISSING;
    }
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, value, pipe);
      else this.vars.push({ name, value });
    }
    return value;
  }

  private setVar(name: string, value: Value, pipe: Pipe): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const slot = this.vars[i];
      if (slot?.name === name) {
        slot.value = value;
        return;
      }
    }
    throw this.error(`undefined variable: ${name}`, pipe.pos, pipe.end);
  }

  private varValue(name: string, at: Operand): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const slot = this.vars[i];
      if (slot?.name === name) return slot.value;
    }
    throw this.error(`undefined variable: ${name}`, at.pos, at.end);
  }

  private evalCommand(dot: Value, cmd: Cmd, final: Value): Value {
    const [head, ...args] = cmd.args;
    if (!head) throw this.error('empty command', cmd.pos, cmd.end);
    const hasArgs = args.length > 0 || final !== NO_FINAL;
    switch (head.k) {
      case 'field':
        return this.fieldChain(dot, head.idents, head, hasArgs);
      case 'var': {
        const v = this.varValue(head.name, head);
        if (head.idents.length === 0) {
          this.notAFunction(head, hasArgs);
          return v;
        }
        return this.fieldChain(v, head.idents, head, hasArgs);
      }
      case 'chain': {
        const base = this.evalArg(dot, head.node);
        return this.fieldChain(base, head.idents, head, hasArgs);
      }
      case 'ident':
        return this.call(dot, head, args, final);
      case 'pipe':
        this.notAFunction(head, hasArgs);
        return this.evalPipeline(dot, head.pipe);
      case 'dot':
        this.notAFunction(head, hasArgs);
        return dot;
      case 'nil':
        throw this.error('nil is not a command', head.pos, head.end);
      case 'literal':
        this.notAFunction(head, hasArgs);
        return head.value;
    }
  }

  private notAFunction(node: Operand, hasArgs: boolean): void {
    if (hasArgs) {
      throw this.error(`can't give argument to non-function ${this.src.slice(node.pos, node.end)}`, node.pos, node.end);
    }
  }

  /** `.A.B.C` on a receiver; only the last field may be "given arguments". */
  private fieldChain(receiver: Value, idents: readonly string[], at: Operand, hasArgs: boolean): Value {
    let v = receiver;
    for (const [i, name] of idents.entries()) {
      v = this.field(v, name, at, hasArgs && i === idents.length - 1);
    }
    return v;
  }

  private field(receiver: Value, name: string, at: Operand, hasArgs: boolean): Value {
    if (receiver === MISSING) return MISSING; // Go: fields of an invalid value are invalid too
    if (receiver === null || receiver === undefined) {
      throw this.error(`nil pointer evaluating interface {}.${name}`, at.pos, at.end);
    }
    if (receiver instanceof Map || isRecord(receiver)) {
      if (hasArgs) throw this.error(`${name} is not a method but has arguments`, at.pos, at.end);
      if (receiver instanceof Map) return receiver.has(name) ? receiver.get(name) : MISSING;
      return Object.prototype.hasOwnProperty.call(receiver, name) ? receiver[name] : MISSING;
    }
    throw this.error(`can't evaluate field ${name} in type ${goTypeName(receiver, 'int-aware')}`, at.pos, at.end);
  }

  /** An argument value; functions see "no value" as nil, as Go's validateType does. */
  private evalArg(dot: Value, node: Operand): Value {
    let v: Value;
    switch (node.k) {
      case 'dot': v = dot; break;
      case 'nil': v = null; break;
      case 'literal': v = node.value; break;
      case 'field': v = this.fieldChain(dot, node.idents, node, false); break;
      case 'var': v = node.idents.length === 0 ? this.varValue(node.name, node) : this.fieldChain(this.varValue(node.name, node), node.idents, node, false); break;
      case 'chain': v = this.fieldChain(this.evalArg(dot, node.node), node.idents, node, false); break;
      case 'pipe': v = this.evalPipeline(dot, node.pipe); break;
      case 'ident': v = this.call(dot, node, [], NO_FINAL); break;
    }
    return v === MISSING || v === undefined ? null : v;
  }

  private call(dot: Value, fn: Extract<Operand, { k: 'ident' }>, argNodes: readonly Operand[], final: Value): Value {
    this.step(fn.pos);
    const name = fn.name;
    const count = argNodes.length + (final === NO_FINAL ? 0 : 1);
    const callError = (msg: string) => this.error(`error calling ${name}: ${msg}`, fn.pos, fn.end);
    const arity = (min: number, max: number) => {
      if (count < min || count > max) {
        const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
        throw this.error(`wrong number of args for ${name}: want ${want} got ${count}`, fn.pos, fn.end);
      }
    };
    // Arguments are evaluated lazily so `and` / `or` can short-circuit.
    const arg = (i: number): Value =>
      i < argNodes.length ? this.evalArg(dot, argNodes[i] as Operand) : final === MISSING ? null : final;
    const all = (): Value[] => Array.from({ length: count }, (_, i) => arg(i));

    switch (name) {
      case 'and':
      case 'or': {
        arity(1, Infinity);
        let v: Value = null;
        for (let i = 0; i < count; i++) {
          v = arg(i);
          if (truth(v) === (name === 'or')) break;
        }
        return v;
      }
      case 'not':
        arity(1, 1);
        return !truth(arg(0));
      case 'default': {
        // Aptomi: `default X` → X or "" when nil; `default D X` → D when X is
        // nil, empty or false. Any other arity returns nil (→ <no value>).
        if (count === 0 || count > 2) {
          all();
          return null;
        }
        if (count === 1) {
          const x = arg(0);
          return x === null ? '' : x;
        }
        const [d, x] = all();
        return isEmptyForDefault(x) ? d : x;
      }
      case 'eq': {
        arity(1, Infinity);
        const [a, ...bs] = all();
        if (bs.length === 0) throw callError('missing argument for comparison');
        for (const b of bs) {
          const r = goEqual(a, b);
          if (typeof r === 'string') throw callError(r);
          if (r) return true;
        }
        return false;
      }
      case 'ne': {
        arity(2, 2);
        const [a, b] = all();
        const r = goEqual(a, b);
        if (typeof r === 'string') throw callError(r);
        return !r;
      }
      case 'lt':
      case 'le':
      case 'gt':
      case 'ge': {
        arity(2, 2);
        const [a, b] = all();
        const c = goCompare(a, b);
        if (typeof c === 'string') throw callError(c);
        return name === 'lt' ? c < 0 : name === 'le' ? c <= 0 : name === 'gt' ? c > 0 : c >= 0;
      }
      case 'len': {
        arity(1, 1);
        const x = arg(0);
        if (typeof x === 'string') return utf8ByteLength(x);
        if (Array.isArray(x)) return x.length;
        if (x instanceof Map) return x.size;
        if (isRecord(x)) return Object.keys(x).length;
        if (x === null) throw callError('len of nil pointer');
        throw callError(`len of type ${goTypeName(x, 'int-aware')}`);
      }
      case 'index': {
        arity(1, Infinity);
        const [item, ...indexes] = all();
        return goIndex(item, indexes, callError);
      }
      case 'print':
        return this.checkedString(goSprint(all(), 'int-aware'), fn);
      case 'println':
        return this.checkedString(goSprintln(all(), 'int-aware'), fn);
      case 'printf': {
        arity(1, Infinity);
        const [format, ...rest] = all();
        if (typeof format !== 'string') {
          throw this.error(`wrong type for value; expected string; got ${goTypeName(format, 'int-aware')}`, fn.pos, fn.end);
        }
        return this.checkedString(goSprintf(format, rest, 'int-aware'), fn);
      }
    }
    throw this.error(`function ${JSON.stringify(name)} not defined`, fn.pos, fn.end);
  }

  /** Strings built by print functions count against the output limit early. */
  private checkedString(s: string, at: Operand): string {
    if (s.length > this.limits.maxOutputLength) {
      throw failAt('template_limit', `template output is larger than ${this.limits.maxOutputLength} characters`, at.pos);
    }
    return s;
  }
}

/** Marks "no previous pipeline value" (distinct from nil). */
const NO_FINAL: unique symbol = Symbol('no final');

/** Go's template truth: zero values, empty containers and nil are false. */
function truth(v: Value): boolean {
  if (v === MISSING || v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return true;
}

function isEmptyForDefault(x: Value): boolean {
  if (x === null || x === false) return true;
  if (typeof x === 'string' || Array.isArray(x)) return x.length === 0;
  if (x instanceof Map) return x.size === 0;
  if (isRecord(x)) return Object.keys(x).length === 0;
  return false;
}

type BasicKind = 'bool' | 'number' | 'string' | 'nil' | 'other';

function basicKind(v: Value): BasicKind {
  if (v === null || v === undefined || v === MISSING) return 'nil';
  switch (typeof v) {
    case 'boolean': return 'bool';
    case 'number': return 'number';
    case 'string': return 'string';
    default: return 'other';
  }
}

/** Go 1.18+ `eq` for two values: a boolean, or an error message. */
function goEqual(a: Value, b: Value): boolean | string {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka !== kb) {
    // Comparing with nil / a missing value is simply false.
    return ka === 'nil' || kb === 'nil' ? false : 'incompatible types for comparison';
  }
  if (ka === 'nil') return true;
  if (ka === 'other') return 'non-comparable types';
  return a === b;
}

/** `lt` and friends: a sign, or an error message. */
function goCompare(a: Value, b: Value): number | string {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka === 'nil' || kb === 'nil' || ka === 'other' || kb === 'other' || ka === 'bool') {
    return 'invalid type for comparison';
  }
  if (ka !== kb) return 'incompatible types for comparison';
  if (ka === 'number') return (a as number) - (b as number);
  return compareGoStrings(a as string, b as string);
}

function goIndex(item: Value, indexes: Value[], callError: (msg: string) => LangFailure): Value {
  let v = item;
  if (v === null) throw callError('index of untyped nil');
  for (const ix of indexes) {
    if (v === null || v === undefined) throw callError('index of nil pointer');
    if (Array.isArray(v) || typeof v === 'string') {
      if (typeof ix !== 'number' || !Number.isInteger(ix)) {
        throw callError(`cannot index slice/array with type ${goTypeName(ix, 'int-aware')}`);
      }
      const len = typeof v === 'string' ? utf8ByteLength(v) : v.length;
      if (ix < 0 || ix >= len) throw callError(`index out of range: ${ix}`);
      // Go indexes strings by byte.
      v = typeof v === 'string' ? (new TextEncoder().encode(v)[ix] as number) : v[ix];
    } else if (v instanceof Map || isRecord(v)) {
      if (typeof ix !== 'string') {
        throw callError(`value has type ${goTypeName(ix, 'int-aware')}; should be string`);
      }
      const present = v instanceof Map ? v.has(ix) : Object.prototype.hasOwnProperty.call(v, ix);
      v = present ? (v instanceof Map ? v.get(ix) : (v as Record<string, unknown>)[ix]) : null;
    } else {
      throw callError(`can't index item of type ${goTypeName(v, 'int-aware')}`);
    }
  }
  return v;
}
