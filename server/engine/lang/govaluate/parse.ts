/**
 * govaluate's parser: precedence climbing over the lexed tokens, building
 * the syntax tree `eval.ts` walks (levels and associativity: see index.ts).
 * Literal patterns of `=~` / `!~` are compiled here, so a bad one is a parse
 * error, as in govaluate.
 */

import { BudgetMeter, type Budget, type OverBudget } from '../budget';
import { compileRe2, type Re2 } from '../re2';
import { LangFailure } from '../result';
import { parseError, PREFIX_OPS, type BinaryOp, type Token } from './lex';

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


/** A parser's budget: `steps` counts the nodes it builds, `depth` its nesting. */
const parseOverBudget: OverBudget = (kind, limit, at) => {
  switch (kind) {
    case 'steps':
      return new LangFailure({ code: 'expr_limit', message: `expression has more than ${limit} nodes`, column: at + 1 });
    case 'depth':
      return new LangFailure({ code: 'expr_limit', message: `expression nests deeper than ${limit} levels`, column: at + 1 });
    case 'output':
    case 'volume':
      return new LangFailure({ code: 'expr_limit', message: `expression is longer than ${limit} characters`, column: at + 1 });
    case 'time':
      return new LangFailure({ code: 'expr_limit', message: `expression parsing ran out of its time (${limit} ms)`, column: at + 1 });
  }
};

/** Parses lexed tokens; also returns the parameter names read (accessors dotted), in source order. */
export function parseExpr(src: string, tokens: Token[], budget: Budget): { root: ExprNode; references: string[] } {
  const parser = new Parser(src, tokens, new BudgetMeter(budget, parseOverBudget));
  const root = parser.parseAll();
  return { root, references: parser.references };
}

class Parser {
  private i = 0;
  readonly references: string[] = [];

  constructor(
    private readonly src: string,
    private readonly tokens: Token[],
    private readonly meter: BudgetMeter,
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
    this.meter.step(n.pos);
    return n;
  }

  /** Precedence climbing; `minPrec` is the lowest binary level accepted. */
  private parseBinary(minPrec: number): ExprNode {
    const startTok = this.peek();
    this.meter.enter(startTok?.pos ?? this.src.length);
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
    this.meter.leave();
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
