/**
 * Go template execution: walks the parse tree over the data with Go's
 * semantics (truth, `eq` and `lt` rules, `index`, printing through
 * ../gofmt), counting steps and output against the template's budget.
 */

import { BudgetMeter, type Budget } from '../budget';
import { compareGoStrings, utf8ByteLength } from '../gofmt';
import { formatValueV, goSprint, goSprintf, goSprintln, goTypeName, isGoMapObject, sortedEntries } from '../gosprint';
import type { LangFailure } from '../result';
import { failAt, templateOverBudget } from './errors';
import type { Cmd, ControlNode, FastPart, Operand, Pipe, TemplateFunctions, TNode } from './parse';

/** What Go prints for a missing value; Aptomi treats it in any output as an error. */
export const NO_VALUE = '<no value>';

/**
 * Renders a fast template; undefined when a field is not a plain own string
 * (missing, nil, number, map…), so that the executor decides — with Go's
 * printing and its errors — exactly as it would have.
 */
export function renderFast(parts: readonly FastPart[], data: unknown): string | undefined {
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

/** Go's invalid reflect.Value: a missing map key or an unset interface. */
const MISSING: unique symbol = Symbol('no value');
type Value = unknown;

type Flow = 'break' | 'continue' | undefined;

// ---------------------------------------------------------------------------
// Executor

/** Runs one rendering; `budget.steps` and `budget.output` bound it. */
export class Executor {
  private out = '';
  private readonly meter: BudgetMeter;
  /** Variable stack (innermost last), as in Go's push/pop with marks. */
  private vars: { name: string; value: Value }[] = [];
  firstNoValue: { pos: number; end: number } | undefined;

  constructor(
    private readonly src: string,
    budget: Budget,
    private readonly functions?: TemplateFunctions,
  ) {
    this.meter = new BudgetMeter(budget, templateOverBudget);
  }

  run(root: readonly TNode[], data: unknown): string {
    const dot = data === undefined || data === null ? MISSING : data;
    this.vars = [{ name: '$', value: dot }];
    this.walkList(dot, root);
    return this.out;
  }

  private step(pos: number): void {
    this.meter.step(pos);
  }

  private write(s: string, pos: number): void {
    this.out += s;
    this.meter.output(this.out.length, pos);
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
    } else if (val instanceof Map || isGoMapObject(val)) {
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
    if (receiver instanceof Map || isGoMapObject(receiver)) {
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
        if (isGoMapObject(x)) return Object.keys(x).length;
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
    const extra = this.functions && Object.hasOwn(this.functions, name) ? this.functions[name] : undefined;
    if (extra) {
      let v: unknown;
      try {
        v = extra(all());
      } catch (e) {
        throw callError((e as Error).message);
      }
      return typeof v === 'string' ? this.checkedString(v, fn) : (v as Value);
    }
    throw this.error(`function ${JSON.stringify(name)} not defined`, fn.pos, fn.end);
  }

  /** Strings built by print functions count against the output limit early. */
  private checkedString(s: string, at: Operand): string {
    this.meter.output(s.length, at.pos);
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
  if (isGoMapObject(v)) return Object.keys(v).length > 0;
  return true;
}

function isEmptyForDefault(x: Value): boolean {
  if (x === null || x === false) return true;
  if (typeof x === 'string' || Array.isArray(x)) return x.length === 0;
  if (x instanceof Map) return x.size === 0;
  if (isGoMapObject(x)) return Object.keys(x).length === 0;
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
    } else if (v instanceof Map || isGoMapObject(v)) {
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
