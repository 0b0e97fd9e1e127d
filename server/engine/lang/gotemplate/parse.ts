/**
 * Go template parser: tokens to the parse tree that `exec.ts` walks, with
 * Go's parse-time checks (undefined variables and functions, `break`
 * outside `range`, pipelines that cannot execute) and a nesting budget.
 */

import { BudgetMeter, type Budget } from '../budget';
import type { LangFailure } from '../result';
import { failAt, templateOverBudget } from './errors';
import type { Tok, TokKind } from './lex';

// ---------------------------------------------------------------------------
// Parse tree

/** A parsed template. Immutable and safe to cache and share. */
export interface CompiledTemplate {
  readonly source: string;
  /** Name used in error messages (defaults to the source text). */
  readonly name?: string;
  /** @internal the parse tree; not part of the stable API. */
  readonly root: readonly TNode[];
  /** Functions beyond Go's builtins this template was compiled with (a dialect's, such as Sprig's). */
  readonly functions?: TemplateFunctions;
  /**
   * @internal Text and plain field chains only (`prefix-{{ .Labels.x }}`),
   * the overwhelming majority of policy templates: rendered by string
   * concatenation when every field is a string, else by the executor.
   */
  readonly fast?: readonly FastPart[];
}

export type FastPart = string | readonly string[];

/** The fast form of a parse tree, when it has one. */
export function fastParts(root: readonly TNode[]): FastPart[] | undefined {
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

export interface Pipe {
  decl: string[];
  isAssign: boolean;
  cmds: Cmd[];
  pos: number;
  end: number;
}

export interface Cmd {
  args: Operand[];
  pos: number;
  end: number;
}

export type Operand = (
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

export interface ControlNode {
  k: 'if' | 'with' | 'range';
  pipe: Pipe;
  list: TNode[];
  elseList: TNode[] | null;
  pos: number;
}

// ---------------------------------------------------------------------------
// Parser

const BUILTINS = new Set([
  'and', 'default', 'eq', 'ge', 'gt', 'index', 'le', 'len', 'lt', 'ne', 'not', 'or', 'print', 'printf', 'println',
]);
const GO_BUILTINS_NOT_SUPPORTED = new Set(['call', 'html', 'js', 'slice', 'urlquery']);

type ListEnd = { k: 'end' | 'else'; pos: number; elseKeyword?: 'if' | 'with' };

function isListEnd(n: TNode | ListEnd): n is ListEnd {
  return n.k === 'end' || n.k === 'else';
}

/** Parses a lexed template; `budget.depth` caps the nesting of blocks and parentheses. */
/** Functions a dialect adds to Go's builtins (Sprig's, for Landscaper): called with the evaluated arguments, the pipeline's value last. */
export type TemplateFunction = (args: unknown[]) => unknown;
export type TemplateFunctions = Readonly<Record<string, TemplateFunction>>;

export function parseTemplate(src: string, toks: Tok[], budget: Budget, functions?: TemplateFunctions): TNode[] {
  return new Parser(src, toks, new BudgetMeter(budget, templateOverBudget), functions).parseTemplate();
}

class Parser {
  private i = 0;
  private rangeDepth = 0;
  /** Declared variable names in scope (Go checks uses at parse time). */
  private vars: string[] = ['$'];

  constructor(
    private readonly src: string,
    private readonly toks: Tok[],
    private readonly meter: BudgetMeter,
    private readonly functions?: TemplateFunctions,
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
    this.meter.enter(pos);
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
    this.meter.leave();
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
        if (!BUILTINS.has(t.v) && !(this.functions && Object.hasOwn(this.functions, t.v))) {
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
        this.meter.enter(t.pos);
        const pipe = this.pipeline('parenthesized pipeline', 'rparen');
        this.meter.leave();
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
