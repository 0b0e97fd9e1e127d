/**
 * Parser for the dynaml subset. Precedence, loosest first, as in spiff's
 * grammar:
 *
 *   `||`  →  `c ? a : b`  →  juxtaposition (concatenation)  →  `-or` `-and`
 *   →  `== != < <= > >=`  →  `+ -`  →  `* / %`  →  `! -` (unary)
 *   →  postfix `.name` `.[i]` `[i]` `(args)`  →  primaries
 *
 * Binary operators need whitespace around them in spiff (`a-b` is a name),
 * which the lexer already took care of. Anything outside the subset
 * (`&temporary` markers, `read`, `exec`, templates, `select` etc.) is a
 * `spiff_unsupported` error rather than a silently wrong value.
 */
import type { Budget } from '../budget';
import { SpiffFailure } from './errors';
import { lexExpression, type Token } from './lex';

export type Expr =
  | { k: 'lit'; value: unknown; pos: number }
  | { k: 'delete'; pos: number }
  | { k: 'ref'; name: string; pos: number }
  | { k: 'field'; obj: Expr; name: string; pos: number }
  | { k: 'index'; obj: Expr; index: Expr; pos: number }
  | { k: 'call'; fn: Expr; args: Expr[]; pos: number }
  | { k: 'unary'; op: '!' | '-'; arg: Expr; pos: number }
  | { k: 'binary'; op: string; left: Expr; right: Expr; pos: number }
  | { k: 'concat'; parts: Expr[]; pos: number }
  | { k: 'or'; left: Expr; right: Expr; pos: number }
  | { k: 'cond'; test: Expr; then: Expr; else: Expr; pos: number }
  | { k: 'list'; items: Expr[]; pos: number }
  | { k: 'map'; entries: { key: Expr; value: Expr }[]; pos: number }
  | { k: 'lambda'; params: string[]; body: Expr; pos: number }
  | { k: 'fold'; fn: 'sum' | 'map' | 'select'; source: Expr; init?: Expr; lambda: Expr; pos: number };

const COMPARISON = new Set(['==', '!=', '<', '<=', '>', '>=']);
const PRIMARY_START_OPS = new Set(['(', '[', '{', '~', '~~', '!', '|']);

export function parseExpression(src: string, budget: Budget = {}): Expr {
  const tokens = lexExpression(src);
  let i = 0;
  let nodes = 0;
  let depth = 0;
  const maxNodes = budget.steps ?? Number.POSITIVE_INFINITY;
  const maxDepth = budget.depth ?? 200;

  const peek = (o = 0): Token => tokens[Math.min(i + o, tokens.length - 1)]!;
  const isOp = (t: Token, text: string) => t.kind === 'op' && t.text === text;
  const next = (): Token => tokens[i++]!;
  const expect = (text: string): Token => {
    const t = next();
    if (!isOp(t, text)) throw new SpiffFailure('spiff_parse_error', `expected "${text}" but found ${describe(t)}`, t.pos);
    return t;
  };
  const node = <T extends Expr>(e: T): T => {
    if (++nodes > maxNodes) throw new SpiffFailure('spiff_limit', `expression has more than ${maxNodes} nodes`, e.pos);
    return e;
  };
  const nested = <T>(pos: number, f: () => T): T => {
    if (++depth > maxDepth) throw new SpiffFailure('spiff_limit', `expression nests deeper than ${maxDepth} levels`, pos);
    try {
      return f();
    } finally {
      depth--;
    }
  };

  function expression(): Expr {
    return nested(peek().pos, () => (isLambdaStart() ? lambda() : orLevel()));
  }

  function isLambdaStart(): boolean {
    if (!isOp(peek(), '|')) return false;
    // `|a,b|->`: names and commas up to the closing bar.
    let j = 1;
    while (peek(j).kind === 'name' || isOp(peek(j), ',')) j++;
    return isOp(peek(j), '|') && isOp(peek(j + 1), '->');
  }

  function lambda(): Expr {
    const start = expect('|');
    const params: string[] = [];
    while (!isOp(peek(), '|')) {
      const t = next();
      if (t.kind !== 'name') throw new SpiffFailure('spiff_parse_error', `expected a parameter name but found ${describe(t)}`, t.pos);
      params.push(t.text);
      if (isOp(peek(), ',')) next();
    }
    expect('|');
    expect('->');
    return node({ k: 'lambda', params, body: expression(), pos: start.pos });
  }

  function orLevel(): Expr {
    let left = condLevel();
    while (isOp(peek(), '||')) {
      const t = next();
      left = node({ k: 'or', left, right: condLevel(), pos: t.pos });
    }
    return left;
  }

  function condLevel(): Expr {
    const test = concatLevel();
    if (!isOp(peek(), '?')) return test;
    const t = next();
    const then = expression();
    expect(':');
    return node({ k: 'cond', test, then, else: expression(), pos: t.pos });
  }

  function startsOperand(t: Token): boolean {
    if (t.kind === 'num' || t.kind === 'str' || t.kind === 'name') return true;
    if (t.kind !== 'op') return false;
    if (t.text === '|') return isLambdaStart();
    return PRIMARY_START_OPS.has(t.text);
  }

  function concatLevel(): Expr {
    const first = logicLevel();
    const parts = [first];
    // Juxtaposition: another operand after whitespace.
    while (peek().spaced && startsOperand(peek())) parts.push(logicLevel());
    return parts.length === 1 ? first : node({ k: 'concat', parts, pos: first.pos });
  }

  function logicLevel(): Expr {
    let left = compareLevel();
    while (isOp(peek(), '-or') || isOp(peek(), '-and')) {
      const t = next();
      left = node({ k: 'binary', op: t.text, left, right: compareLevel(), pos: t.pos });
    }
    return left;
  }

  function compareLevel(): Expr {
    let left = addLevel();
    while (peek().kind === 'op' && COMPARISON.has(peek().text)) {
      const t = next();
      left = node({ k: 'binary', op: t.text, left, right: addLevel(), pos: t.pos });
    }
    return left;
  }

  function addLevel(): Expr {
    let left = mulLevel();
    while (isOp(peek(), '+') || isOp(peek(), '-')) {
      const t = next();
      left = node({ k: 'binary', op: t.text, left, right: mulLevel(), pos: t.pos });
    }
    return left;
  }

  function mulLevel(): Expr {
    let left = unary();
    while (isOp(peek(), '*') || isOp(peek(), '/') || isOp(peek(), '%')) {
      const t = next();
      left = node({ k: 'binary', op: t.text, left, right: unary(), pos: t.pos });
    }
    return left;
  }

  function unary(): Expr {
    const t = peek();
    if (isOp(t, '!') || isOp(t, '-')) {
      next();
      return nested(t.pos, () => node({ k: 'unary', op: t.text as '!' | '-', arg: unary(), pos: t.pos }));
    }
    return postfix(primary());
  }

  function postfix(base: Expr): Expr {
    let e = base;
    for (;;) {
      const t = peek();
      if (t.spaced) return e;
      if (isOp(t, '.')) {
        next();
        const n = next();
        if (n.kind === 'name') e = node({ k: 'field', obj: e, name: n.text, pos: n.pos });
        else if (n.kind === 'num') e = node({ k: 'index', obj: e, index: { k: 'lit', value: Number(n.text), pos: n.pos }, pos: n.pos });
        else if (isOp(n, '[')) {
          const index = expression();
          expect(']');
          e = node({ k: 'index', obj: e, index, pos: n.pos });
        } else throw new SpiffFailure('spiff_parse_error', `expected a field name after "." but found ${describe(n)}`, n.pos);
      } else if (isOp(t, '[')) {
        next();
        const index = expression();
        expect(']');
        e = node({ k: 'index', obj: e, index, pos: t.pos });
      } else if (isOp(t, '(') && (e.k === 'ref' || e.k === 'field' || e.k === 'lambda')) {
        next();
        const args: Expr[] = [];
        while (!isOp(peek(), ')')) {
          args.push(expression());
          if (isOp(peek(), ',')) next();
          else if (!isOp(peek(), ')')) throw new SpiffFailure('spiff_parse_error', `expected "," or ")" but found ${describe(peek())}`, peek().pos);
        }
        next();
        e = node({ k: 'call', fn: e, args, pos: t.pos });
      } else return e;
    }
  }

  function primary(): Expr {
    const t = next();
    switch (t.kind) {
      case 'num':
        return node({ k: 'lit', value: Number(t.text), pos: t.pos });
      case 'str':
        return node({ k: 'lit', value: t.text, pos: t.pos });
      case 'name':
        if (t.text === 'true' || t.text === 'false') return node({ k: 'lit', value: t.text === 'true', pos: t.pos });
        if (t.text === 'nil') return node({ k: 'lit', value: null, pos: t.pos });
        if ((t.text === 'sum' || t.text === 'map' || t.text === 'select') && isOp(peek(), '[') && !peek().spaced) return fold(t);
        return node({ k: 'ref', name: t.text, pos: t.pos });
      case 'op':
        switch (t.text) {
          case '~':
            return node({ k: 'lit', value: null, pos: t.pos });
          case '~~':
            return node({ k: 'delete', pos: t.pos });
          case '(': {
            const e = expression();
            expect(')');
            return e;
          }
          case '[': {
            const items: Expr[] = [];
            while (!isOp(peek(), ']')) {
              items.push(expression());
              if (isOp(peek(), ',')) next();
              else if (!isOp(peek(), ']')) throw new SpiffFailure('spiff_parse_error', `expected "," or "]" but found ${describe(peek())}`, peek().pos);
            }
            next();
            return node({ k: 'list', items, pos: t.pos });
          }
          case '{': {
            const entries: { key: Expr; value: Expr }[] = [];
            while (!isOp(peek(), '}')) {
              const keyTok = peek();
              // `{ name = v }` uses the bare name as the key; `{ "k" = v }` and `{ (expr) = v }` evaluate.
              const key: Expr = keyTok.kind === 'name' && isOp(peek(1), '=') ? (next(), node({ k: 'lit', value: keyTok.text, pos: keyTok.pos })) : concatLevel();
              expect('=');
              entries.push({ key, value: expression() });
              if (isOp(peek(), ',')) next();
              else if (!isOp(peek(), '}')) throw new SpiffFailure('spiff_parse_error', `expected "," or "}" but found ${describe(peek())}`, peek().pos);
            }
            next();
            return node({ k: 'map', entries, pos: t.pos });
          }
          case '|':
            i--;
            if (isLambdaStart()) return lambda();
            break;
          case '&':
            break;
        }
        break;
      case 'eof':
        throw new SpiffFailure('spiff_parse_error', 'unexpected end of expression', t.pos);
    }
    throw new SpiffFailure('spiff_parse_error', `unexpected ${describe(t)}`, t.pos);
  }

  /** `sum[list|init|s,k,v|->e]`, `map[list|x|->e]`, `select[list|x|->e]`. */
  function fold(name: Token): Expr {
    expect('[');
    const source = concatLevel();
    expect('|');
    let init: Expr | undefined;
    if (name.text === 'sum') {
      init = concatLevel();
      expect('|');
    }
    i--; // give the bar back: the lambda starts with it
    if (!isLambdaStart()) throw new SpiffFailure('spiff_parse_error', `${name.text}[...] needs a lambda "|x|-> expr"`, peek().pos);
    const fn = lambda();
    expect(']');
    return node({ k: 'fold', fn: name.text as 'sum' | 'map' | 'select', source, ...(init ? { init } : {}), lambda: fn, pos: name.pos });
  }

  const e = expression();
  if (peek().kind !== 'eof') throw new SpiffFailure('spiff_parse_error', `unexpected ${describe(peek())}`, peek().pos);
  return e;
}

function describe(t: Token): string {
  if (t.kind === 'eof') return 'end of expression';
  if (t.kind === 'str') return `string ${JSON.stringify(t.text)}`;
  return `"${t.text}"`;
}
