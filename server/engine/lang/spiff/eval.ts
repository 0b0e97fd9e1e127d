/**
 * Evaluation of dynaml expressions and of whole spiff documents.
 *
 * A document is a YAML tree whose string leaves `(( expr ))` are
 * expressions. A reference's first name is looked up in the lambda
 * parameters, then in the maps enclosing the expression (innermost first,
 * as spiff's scopes do), then in the bound values. Document nodes are
 * evaluated lazily and once; a node that needs itself is a cycle error.
 *
 * `~~` removes the node it produces; `<<<:` (and the older `<<:`) merges a
 * map into the enclosing map, or a list into the enclosing list when it is
 * the only key of a list item.
 */
import { BudgetMeter, type Budget, type OverBudget } from '../budget';
import { formatPath, SpiffFailure } from './errors';
import { parseExpression, type Expr } from './parse';
import { isRecord } from '../data';

/** What `~~` evaluates to: the node is dropped from the result. */
export const DELETE: unique symbol = Symbol('spiff.delete');

export interface Lambda {
  kind: 'lambda';
  params: string[];
  body: Expr;
  env: Map<string, unknown>;
  /** Where the lambda was written: its body sees that node's scopes. */
  path: Path;
}

type Path = (string | number)[];

const MERGE_KEYS = new Set(['<<<', '<<']);
const EXPR_RE = /^\s*\(\(([\s\S]*)\)\)\s*$/;

/** Thrown for a reference that does not resolve: `||` catches only this kind of failure and `nil`. */
class Undefined extends SpiffFailure {}

export interface DocumentRun {
  /** Document being evaluated (a YAML tree). */
  doc: unknown;
  bindings: Record<string, unknown>;
  budget: Budget;
}

/** spiff's wording for an exhausted budget. */
const spiffOverBudget: OverBudget = (kind, limit, at) => {
  switch (kind) {
    case 'steps':
      return new SpiffFailure('spiff_limit', `evaluation took more than ${limit} steps`, at);
    case 'output':
      return new SpiffFailure('spiff_limit', `value is larger than ${limit} characters or items`, at);
    case 'volume':
      return new SpiffFailure('spiff_limit', `evaluation built more than ${limit} characters or items in all`, at);
    case 'depth':
      return new SpiffFailure('spiff_limit', `evaluation nests deeper than ${limit} levels`, at);
    case 'time':
      return new SpiffFailure('spiff_limit', `evaluation ran out of its time (${limit} ms)`, at);
  }
};

export class Evaluator {
  private readonly meter: BudgetMeter;
  private readonly maxSteps: number;
  private readonly memo = new Map<string, unknown>();
  private readonly pending = new Set<string>();
  private readonly parsed = new Map<string, Expr>();

  constructor(private readonly run: DocumentRun) {
    this.meter = new BudgetMeter(run.budget, spiffOverBudget);
    this.maxSteps = run.budget.steps ?? Number.POSITIVE_INFINITY;
  }

  step(pos: number): void {
    this.meter.step(pos);
  }

  /** Strings, lists and maps may not grow past the output budget. */
  size(n: number, pos: number): void {
    this.meter.output(n, pos);
  }

  // -------------------------------------------------------------------------
  // Documents

  /** The document node at `path`, raw (unevaluated), or undefined. */
  private rawAt(path: Path): unknown {
    let node: unknown = this.run.doc;
    for (const p of path) {
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Record<string | number, unknown>)[p];
    }
    return node;
  }

  evaluateDocument(): unknown {
    return this.valueAt([]);
  }

  /** Fully evaluated value of the document node at `path` (DELETE when removed). */
  valueAt(path: Path): unknown {
    const key = JSON.stringify(path);
    if (this.memo.has(key)) return this.memo.get(key);
    if (this.pending.has(key)) throw new SpiffFailure('spiff_eval_error', `cyclic reference to ${formatPath(path) || 'the document'}`, 0);
    this.pending.add(key);
    try {
      const v = this.evaluateNode(this.rawAt(path), path);
      this.memo.set(key, v);
      return v;
    } finally {
      this.pending.delete(key);
    }
  }

  private evaluateNode(raw: unknown, path: Path): unknown {
    this.step(0);
    if (typeof raw === 'string') {
      const m = EXPR_RE.exec(raw);
      if (!m) return raw;
      // `((!` escapes: the text is kept as a literal without the bang.
      if (m[1]!.startsWith('!')) return raw.replace('((!', '((');
      return this.evaluateAt(m[1]!, path);
    }
    if (Array.isArray(raw)) {
      const out: unknown[] = [];
      raw.forEach((item, i) => {
        if (isPlainMap(item) && Object.keys(item).length === 1 && MERGE_KEYS.has(Object.keys(item)[0]!)) {
          const merged = this.valueAt([...path, i, Object.keys(item)[0]!]);
          if (merged === DELETE || merged === null) return;
          if (!Array.isArray(merged)) throw new SpiffFailure('spiff_eval_error', `${formatPath([...path, i])}: only a list can be merged into a list`, 0);
          out.push(...merged);
        } else {
          const v = this.valueAt([...path, i]);
          if (v !== DELETE) out.push(v);
        }
        this.size(out.length, 0);
      });
      return out;
    }
    if (isPlainMap(raw)) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(raw)) {
        if (!MERGE_KEYS.has(k)) continue;
        const merged = this.valueAt([...path, k]);
        if (merged === DELETE || merged === null) continue;
        if (!isPlainMap(merged)) throw new SpiffFailure('spiff_eval_error', `${formatPath([...path, k])}: only a map can be merged into a map`, 0);
        Object.assign(out, merged);
      }
      for (const k of Object.keys(raw)) {
        if (MERGE_KEYS.has(k)) continue;
        if (k.startsWith('&')) throw new SpiffFailure('spiff_unsupported', `${formatPath([...path, k])}: markers such as &temporary are not supported`, 0);
        const v = this.valueAt([...path, k]);
        if (v !== DELETE) out[k] = v;
      }
      return out;
    }
    return raw;
  }

  private evaluateAt(expression: string, path: Path): unknown {
    try {
      let expr = this.parsed.get(expression);
      if (!expr) {
        expr = parseExpression(expression, { steps: this.maxSteps, depth: 200 });
        this.parsed.set(expression, expr);
      }
      return this.evaluate(expr, new Map(), path);
    } catch (err) {
      // The innermost expression names the failure; outer ones pass it on.
      if (err instanceof SpiffFailure && err.expression === undefined) {
        err.expression = expression;
        err.path = path;
      }
      throw err;
    }
  }

  // -------------------------------------------------------------------------
  // Expressions

  private lookup(name: string, env: Map<string, unknown>, path: Path, pos: number): unknown {
    if (env.has(name)) return env.get(name);
    // Enclosing maps, innermost first; a node never sees itself.
    for (let depth = path.length - 1; depth >= 0; depth--) {
      const scope = this.rawAt(path.slice(0, depth));
      if (isPlainMap(scope) && Object.hasOwn(scope, name) && path[depth] !== name) return this.valueAt([...path.slice(0, depth), name]);
    }
    if (Object.hasOwn(this.run.bindings, name)) return this.run.bindings[name];
    throw new Undefined('spiff_eval_error', `'${name}' not found`, pos);
  }

  evaluate(e: Expr, env: Map<string, unknown>, path: Path): unknown {
    this.step(e.pos);
    switch (e.k) {
      case 'lit':
        return e.value;
      case 'delete':
        return DELETE;
      case 'ref':
        return this.lookup(e.name, env, path, e.pos);
      case 'field': {
        const obj = this.evaluate(e.obj, env, path);
        if (!isPlainMap(obj) || !Object.hasOwn(obj, e.name)) throw new Undefined('spiff_eval_error', `'${describeRef(e)}' not found`, e.pos);
        return obj[e.name];
      }
      case 'index': {
        const obj = this.evaluate(e.obj, env, path);
        const index = this.evaluate(e.index, env, path);
        if (Array.isArray(obj) && typeof index === 'number') {
          const at = index < 0 ? obj.length + index : index;
          if (!Number.isInteger(at) || at < 0 || at >= obj.length) throw new Undefined('spiff_eval_error', `index ${index} out of range (list has ${obj.length} items)`, e.pos);
          return obj[at];
        }
        if (isPlainMap(obj) && typeof index === 'string') {
          if (!Object.hasOwn(obj, index)) throw new Undefined('spiff_eval_error', `'${describeRef(e.obj)}["${index}"]' not found`, e.pos);
          return obj[index];
        }
        throw new SpiffFailure('spiff_eval_error', `cannot index ${typeName(obj)} with ${typeName(index)}`, e.pos);
      }
      case 'unary': {
        const v = this.evaluate(e.arg, env, path);
        if (e.op === '!') return !truthy(v);
        if (typeof v !== 'number') throw new SpiffFailure('spiff_eval_error', `cannot negate ${typeName(v)}`, e.pos);
        return -v;
      }
      case 'binary':
        return this.binary(e.op, this.evaluate(e.left, env, path), () => this.evaluate(e.right, env, path), e.pos);
      case 'concat': {
        let acc = this.evaluate(e.parts[0]!, env, path);
        for (const part of e.parts.slice(1)) acc = this.concat(acc, this.evaluate(part, env, path), part.pos);
        return acc;
      }
      case 'or': {
        try {
          const v = this.evaluate(e.left, env, path);
          if (v !== null && v !== undefined) return v;
        } catch (err) {
          if (!(err instanceof Undefined)) throw err;
        }
        return this.evaluate(e.right, env, path);
      }
      case 'cond':
        return truthy(this.evaluate(e.test, env, path)) ? this.evaluate(e.then, env, path) : this.evaluate(e.else, env, path);
      case 'list': {
        const out = e.items.map((x) => this.evaluate(x, env, path)).filter((x) => x !== DELETE);
        this.size(out.length, e.pos);
        return out;
      }
      case 'map': {
        const out: Record<string, unknown> = {};
        for (const entry of e.entries) {
          const k = this.evaluate(entry.key, env, path);
          if (typeof k !== 'string') throw new SpiffFailure('spiff_eval_error', `map key must be a string, not ${typeName(k)}`, entry.key.pos);
          const v = this.evaluate(entry.value, env, path);
          if (v !== DELETE) out[k] = v;
        }
        return out;
      }
      case 'lambda':
        return { kind: 'lambda', params: e.params, body: e.body, env, path } satisfies Lambda;
      case 'call':
        return this.call(e, env, path);
      case 'fold':
        return this.fold(e, env, path);
    }
  }

  private binary(op: string, left: unknown, right: () => unknown, pos: number): unknown {
    if (op === '-or') return truthy(left) || truthy(right());
    if (op === '-and') return truthy(left) && truthy(right());
    const r = right();
    switch (op) {
      case '==':
        return deepEqual(left, r);
      case '!=':
        return !deepEqual(left, r);
    }
    if (typeof left !== 'number' || typeof r !== 'number') {
      if ((op === '<' || op === '<=' || op === '>' || op === '>=') && typeof left === 'string' && typeof r === 'string') {
        return op === '<' ? left < r : op === '<=' ? left <= r : op === '>' ? left > r : left >= r;
      }
      throw new SpiffFailure('spiff_eval_error', `operator ${op} needs numbers, got ${typeName(left)} and ${typeName(r)}`, pos);
    }
    const ints = Number.isInteger(left) && Number.isInteger(r);
    switch (op) {
      case '+':
        return left + r;
      case '-':
        return left - r;
      case '*':
        return left * r;
      case '/':
        if (r === 0) throw new SpiffFailure('spiff_eval_error', 'division by zero', pos);
        // spiff's integers are int64: 7 / 2 is 3.
        return ints ? Math.trunc(left / r) : left / r;
      case '%':
        if (r === 0) throw new SpiffFailure('spiff_eval_error', 'division by zero', pos);
        return left % r;
      case '<':
        return left < r;
      case '<=':
        return left <= r;
      case '>':
        return left > r;
      case '>=':
        return left >= r;
    }
    throw new SpiffFailure('spiff_eval_error', `unknown operator ${op}`, pos);
  }

  /** Juxtaposition: strings join, lists append, maps merge (right wins). */
  private concat(a: unknown, b: unknown, pos: number): unknown {
    if (b === DELETE) return a;
    if (Array.isArray(a)) {
      const out = Array.isArray(b) ? [...a, ...b] : [...a, b];
      this.size(out.length, pos);
      return out;
    }
    if (isPlainMap(a) && isPlainMap(b)) return { ...a, ...b };
    if (isScalar(a) && isScalar(b)) {
      const s = scalarText(a) + scalarText(b);
      this.size(s.length, pos);
      return s;
    }
    throw new SpiffFailure('spiff_eval_error', `cannot concatenate ${typeName(a)} and ${typeName(b)}`, pos);
  }

  private applyLambda(fn: unknown, args: unknown[], pos: number): unknown {
    if (!isLambda(fn)) throw new SpiffFailure('spiff_eval_error', `${typeName(fn)} is not a lambda`, pos);
    if (args.length !== fn.params.length) throw new SpiffFailure('spiff_eval_error', `lambda expects ${fn.params.length} arguments, got ${args.length}`, pos);
    const env = new Map(fn.env);
    fn.params.forEach((p, i) => env.set(p, args[i]));
    return this.evaluate(fn.body, env, fn.path);
  }

  private fold(e: Extract<Expr, { k: 'fold' }>, env: Map<string, unknown>, path: Path): unknown {
    const source = this.evaluate(e.source, env, path);
    const fn = this.evaluate(e.lambda, env, path) as Lambda;
    const entries: [unknown, unknown][] = Array.isArray(source)
      ? source.map((v, i) => [i, v])
      : isPlainMap(source)
        ? Object.keys(source)
            .sort()
            .map((k) => [k, source[k]])
        : (() => {
            throw new SpiffFailure('spiff_eval_error', `${e.fn}[...] needs a list or a map, got ${typeName(source)}`, e.source.pos);
          })();
    // One parameter: the value; two: key/index and value (spiff's convention).
    const args = (k: unknown, v: unknown, extra: unknown[] = []) => [...extra, ...(fn.params.length - extra.length >= 2 ? [k, v] : [v])];
    if (e.fn === 'sum') {
      let acc = this.evaluate(e.init!, env, path);
      for (const [k, v] of entries) {
        this.step(e.pos);
        acc = this.applyLambda(fn, args(k, v, [acc]), e.pos);
      }
      return acc;
    }
    if (e.fn === 'map') {
      const out: unknown[] = [];
      for (const [k, v] of entries) {
        this.step(e.pos);
        const r = this.applyLambda(fn, args(k, v), e.pos);
        if (r !== DELETE) out.push(r);
      }
      return out;
    }
    const out: unknown[] | Record<string, unknown> = Array.isArray(source) ? [] : {};
    for (const [k, v] of entries) {
      this.step(e.pos);
      if (!truthy(this.applyLambda(fn, args(k, v), e.pos))) continue;
      if (Array.isArray(out)) out.push(v);
      else out[k as string] = v;
    }
    return out;
  }

  private call(e: Extract<Expr, { k: 'call' }>, env: Map<string, unknown>, path: Path): unknown {
    if (e.fn.k !== 'ref' || env.has(e.fn.name) || !(e.fn.name in FUNCTIONS || e.fn.name in SPECIAL)) {
      const fn = this.evaluate(e.fn, env, path);
      return this.applyLambda(
        fn,
        e.args.map((a) => this.evaluate(a, env, path)),
        e.pos,
      );
    }
    const name = e.fn.name;
    if (name in SPECIAL) return SPECIAL[name]!(this, e.args, env, path);
    const args = e.args.map((a) => this.evaluate(a, env, path));
    const r = FUNCTIONS[name]!(args, e.pos);
    if (typeof r === 'string') this.size(r.length, e.pos);
    return r;
  }
}

/** Functions that look at whether their argument resolves, so they get it unevaluated. */
const SPECIAL: Record<string, (ev: Evaluator, args: Expr[], env: Map<string, unknown>, path: Path) => unknown> = {
  valid: (ev, args, env, path) => args.every((a) => resolves(ev, a, env, path, (v) => v !== null && v !== undefined && v !== DELETE)),
  defined: (ev, args, env, path) => args.every((a) => resolves(ev, a, env, path, () => true)),
};

function resolves(ev: Evaluator, a: Expr, env: Map<string, unknown>, path: Path, check: (v: unknown) => boolean): boolean {
  try {
    return check(ev.evaluate(a, env, path));
  } catch (err) {
    if (err instanceof Undefined) return false;
    throw err;
  }
}

const UNSUPPORTED = ['read', 'exec', 'exec_uncached', 'write', 'tempfile', 'lookup_file', 'mkdir', 'list_files', 'archive', 'stub', 'static_ips', 'ipset', 'eval', 'sync', 'catch', 'parse', 'asjson', 'asyaml', 'rand', 'type', 'x509genkey', 'x509publickey', 'x509cert'];

const FUNCTIONS: Record<string, (args: unknown[], pos: number) => unknown> = {
  length: ([v], pos) => {
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    if (isPlainMap(v)) return Object.keys(v).length;
    throw new SpiffFailure('spiff_eval_error', `length needs a string, list or map, got ${typeName(v)}`, pos);
  },
  keys: ([v], pos) => {
    if (!isPlainMap(v)) throw new SpiffFailure('spiff_eval_error', `keys needs a map, got ${typeName(v)}`, pos);
    return Object.keys(v).sort();
  },
  values: ([v], pos) => {
    if (!isPlainMap(v)) throw new SpiffFailure('spiff_eval_error', `values needs a map, got ${typeName(v)}`, pos);
    return Object.keys(v)
      .sort()
      .map((k) => v[k]);
  },
  join: ([sep, ...rest], pos) => {
    if (typeof sep !== 'string') throw new SpiffFailure('spiff_eval_error', 'join needs a separator string', pos);
    const items = rest.flatMap((r) => (Array.isArray(r) ? r : [r]));
    if (!items.every(isScalar)) throw new SpiffFailure('spiff_eval_error', 'join can only join strings, numbers and booleans', pos);
    return items.map(scalarText).join(sep);
  },
  split: ([sep, s], pos) => {
    if (typeof sep !== 'string' || typeof s !== 'string') throw new SpiffFailure('spiff_eval_error', 'split needs a separator and a string', pos);
    return s.split(sep);
  },
  trim: ([s], pos) => {
    if (typeof s !== 'string') throw new SpiffFailure('spiff_eval_error', `trim needs a string, got ${typeName(s)}`, pos);
    return s.trim();
  },
  lower: ([s], pos) => {
    if (typeof s !== 'string') throw new SpiffFailure('spiff_eval_error', `lower needs a string, got ${typeName(s)}`, pos);
    return s.toLowerCase();
  },
  upper: ([s], pos) => {
    if (typeof s !== 'string') throw new SpiffFailure('spiff_eval_error', `upper needs a string, got ${typeName(s)}`, pos);
    return s.toUpperCase();
  },
  contains: ([list, v], pos) => {
    if (typeof list === 'string' && typeof v === 'string') return list.includes(v);
    if (!Array.isArray(list)) throw new SpiffFailure('spiff_eval_error', `contains needs a list, got ${typeName(list)}`, pos);
    return list.some((x) => deepEqual(x, v));
  },
  min: (args, pos) => numbers('min', args, pos).reduce((a, b) => Math.min(a, b)),
  max: (args, pos) => numbers('max', args, pos).reduce((a, b) => Math.max(a, b)),
  format: ([fmt, ...args], pos) => {
    if (typeof fmt !== 'string') throw new SpiffFailure('spiff_eval_error', 'format needs a format string', pos);
    let n = 0;
    return fmt.replace(/%([sdv%])/g, (_, verb: string) => (verb === '%' ? '%' : scalarOrJson(args[n++])));
  },
  ...Object.fromEntries(
    UNSUPPORTED.map((name) => [
      name,
      (_args: unknown[], pos: number) => {
        throw new SpiffFailure('spiff_unsupported', `function ${name}() is not supported in data mappings`, pos);
      },
    ]),
  ),
};

function numbers(fn: string, args: unknown[], pos: number): number[] {
  const flat = args.flatMap((a) => (Array.isArray(a) ? a : [a]));
  if (flat.length === 0 || !flat.every((x) => typeof x === 'number')) throw new SpiffFailure('spiff_eval_error', `${fn} needs numbers`, pos);
  return flat as number[];
}

function scalarOrJson(v: unknown): string {
  return isScalar(v) ? scalarText(v) : JSON.stringify(v);
}

function describeRef(e: Expr): string {
  if (e.k === 'ref') return e.name;
  if (e.k === 'field') return `${describeRef(e.obj)}.${e.name}`;
  if (e.k === 'index') return `${describeRef(e.obj)}[...]`;
  return 'value';
}

export function isPlainMap(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && !isLambda(v);
}

function isLambda(v: unknown): v is Lambda {
  return v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'lambda' && Array.isArray((v as Lambda).params) && 'body' in (v as object);
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function scalarText(v: string | number | boolean): string {
  return String(v);
}

function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '' || v === DELETE) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isPlainMap(v)) return Object.keys(v).length > 0;
  return true;
}

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (v === DELETE) return '~~';
  if (Array.isArray(v)) return 'list';
  if (isLambda(v)) return 'lambda';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainMap(a) && isPlainMap(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
