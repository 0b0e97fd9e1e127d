/**
 * Types of the Axebow selector language (reference/axebow.md §2): a JSON
 * array run left to right on a stack, answering one boolean.
 *
 * Errors are data, not exceptions: a selector is tenant input, written once
 * and run for every candidate environment, so a broken one must become a
 * save-time message or a reported `false`, never a crashed selection. Each
 * error carries the fields a UI or test matches on plus a `message` a policy
 * author can read without knowing the codes.
 */
import { errorAt, type Diagnostic, type Site } from '../diagnostic';

/** A selector as stored: a JSON array of literals, `$.` references and `::` operators. */
export type SelectorProgram = unknown[];

/** The objects a hook may expose to its selectors. */
export type SelectorRoot = 'this' | 'user' | 'service' | 'resource' | 'environment';
export const SELECTOR_ROOTS: readonly SelectorRoot[] = ['this', 'user', 'service', 'resource', 'environment'];

/** Read-only JSON snapshots; a root left out is missing for every reference into it. */
export type SelectorContext = Partial<Record<SelectorRoot, unknown>>;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Largest program, in elements (literals, references and operators alike). */
export const MAX_PROGRAM_LENGTH = 1024;
/** Most values the stack may hold at once. */
export const MAX_STACK_DEPTH = 256;

/**
 * Every operator with its fixed arity. Fixed arities are what let the
 * save-time check simulate the stack without running anything.
 */
export const SELECTOR_OPS = {
  '::dup': { pops: 1, pushes: 2 },
  '::pop': { pops: 1, pushes: 0 },
  '::swap': { pops: 2, pushes: 2 },
  '::exists': { pops: 1, pushes: 1 },
  '::getor': { pops: 2, pushes: 1 },
  '::num': { pops: 1, pushes: 1 },
  '::bool': { pops: 1, pushes: 1 },
  '::eq': { pops: 2, pushes: 1 },
  '::neq': { pops: 2, pushes: 1 },
  '::gt': { pops: 2, pushes: 1 },
  '::gte': { pops: 2, pushes: 1 },
  '::lt': { pops: 2, pushes: 1 },
  '::lte': { pops: 2, pushes: 1 },
  '::not': { pops: 1, pushes: 1 },
  '::and': { pops: 2, pushes: 1 },
  '::nand': { pops: 2, pushes: 1 },
  '::or': { pops: 2, pushes: 1 },
  '::nor': { pops: 2, pushes: 1 },
  '::xor': { pops: 2, pushes: 1 },
} as const satisfies Record<string, { pops: number; pushes: number }>;

export type SelectorOp = keyof typeof SELECTOR_OPS;

export function isSelectorOp(s: string): s is SelectorOp {
  return Object.hasOwn(SELECTOR_OPS, s);
}

/** One step of a path: a string is an object key, a number an array index. */
export type PathSegment = string | number;

export type CompiledItem =
  | { readonly kind: 'lit'; readonly value: JsonValue }
  | { readonly kind: 'ref'; readonly path: string; readonly root: SelectorRoot; readonly segments: readonly PathSegment[] }
  | { readonly kind: 'op'; readonly op: SelectorOp };

/** A program that passed the save-time check; only `compileSelector` makes one. */
export interface CompiledSelector {
  readonly items: readonly CompiledItem[];
  /** Every reference with its position, so callers can check which roots a hook provides. */
  readonly refs: readonly { readonly pc: number; readonly path: string; readonly root: SelectorRoot }[];
}

/**
 * `pc` is always the 0-based index of the program element where the problem
 * was found (for run-time errors: the operator that was running; the
 * program's length for the final result).
 */
export type SelectorError =
  | { code: 'UnknownOp'; op: string; pc: number; message: string }
  | { code: 'BadRoot'; path: string; pc: number; message: string }
  | { code: 'BadPath'; path: string; pc: number; message: string }
  | { code: 'StackUnderflow'; op: string; needed: number; have: number; pc: number; message: string }
  | { code: 'TypeError'; op: string; expected: string; got: string; pc: number; message: string }
  | { code: 'MissingReference'; path: string; pc: number; message: string }
  | { code: 'BadResult'; depth: number; got?: string; message: string }
  | { code: 'TooLong'; length: number; limit: number; message: string }
  | { code: 'TooDeep'; depth: number; limit: number; pc: number; message: string }
  | { code: 'NotAProgram'; pc?: number; message: string }
  | { code: 'OverBudget'; budget: 'steps' | 'time'; limit: number; pc: number; message: string };

export type SelectorErrorCode = SelectorError['code'];

/** Builders: the one place each message is worded, so compile and run agree. */
export const selectorError = {
  unknownOp: (op: string, pc: number): SelectorError => ({
    code: 'UnknownOp',
    op,
    pc,
    message: `unknown operator ${quote(op)} at ${pc} (known: ${Object.keys(SELECTOR_OPS).join(' ')})`,
  }),
  badRoot: (path: string, pc: number): SelectorError => ({
    code: 'BadRoot',
    path,
    pc,
    message: `reference ${quote(path)} at ${pc} must start with $.this, $.user, $.service, $.resource or $.environment`,
  }),
  badPath: (path: string, pc: number, why: string): SelectorError => ({
    code: 'BadPath',
    path,
    pc,
    message: `reference ${quote(path)} at ${pc} is malformed: ${why}`,
  }),
  underflow: (op: string, needed: number, have: number, pc: number): SelectorError => ({
    code: 'StackUnderflow',
    op,
    needed,
    have,
    pc,
    message: `${op} at ${pc} needs ${needed} value${needed === 1 ? '' : 's'} on the stack, has ${have}`,
  }),
  type: (op: string, expected: string, got: string, pc: number): SelectorError => ({
    code: 'TypeError',
    op,
    expected,
    got,
    pc,
    message: `${op} at ${pc} needs ${expected}, got ${got}`,
  }),
  missing: (path: string, pc: number): SelectorError => ({
    code: 'MissingReference',
    path,
    pc,
    message: `${path} does not resolve (read at ${pc})`,
  }),
  badResult: (depth: number, got?: string): SelectorError =>
    got === undefined
      ? { code: 'BadResult', depth, message: `the program must leave exactly one boolean, it leaves ${depth} value${depth === 1 ? '' : 's'}` }
      : { code: 'BadResult', depth, got, message: `the program must leave exactly one boolean, it leaves ${got}` },
  tooLong: (length: number): SelectorError => ({
    code: 'TooLong',
    length,
    limit: MAX_PROGRAM_LENGTH,
    message: `the program has ${length} elements, the limit is ${MAX_PROGRAM_LENGTH}`,
  }),
  tooDeep: (depth: number, pc: number): SelectorError => ({
    code: 'TooDeep',
    depth,
    limit: MAX_STACK_DEPTH,
    pc,
    message: `the stack reaches ${depth} values at ${pc}, the limit is ${MAX_STACK_DEPTH}`,
  }),
  overBudget: (budget: 'steps' | 'time', limit: number, pc: number): SelectorError => ({
    code: 'OverBudget',
    budget,
    limit,
    pc,
    message: budget === 'time' ? `the run ran out of its time (${limit} ms) at ${pc}` : `the run took more than ${limit} steps (at ${pc})`,
  }),
  notAProgram: (why: string, pc?: number): SelectorError =>
    pc === undefined ? { code: 'NotAProgram', message: `a selector must be a JSON array: ${why}` } : { code: 'NotAProgram', pc, message: `element ${pc} is not JSON: ${why}` },
};

/** A short, safe rendering of user text inside a message. */
export function quote(s: string): string {
  return JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s);
}

/** The JSON type name of a value, as messages and `got` fields spell it. */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** A selector error where it happened: `site` names the rule that holds the program. */
export function selectorDiagnostic(e: SelectorError, site: Site = {}): Diagnostic {
  const code: Diagnostic['code'] =
    e.code === 'OverBudget' ? (e.budget === 'time' ? 'time_limit' : 'limit') : e.code === 'TypeError' || e.code === 'MissingReference' || e.code === 'BadResult' ? 'evaluation' : 'expression';
  return errorAt(code, e.message, site);
}
