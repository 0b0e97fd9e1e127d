/**
 * The save-time check of a selector. Everything that can be known without a
 * context is checked here, so a rule that could never run is refused when it
 * is written rather than silently excluding every environment later: the
 * program's shape and length, every operator name, every reference's root
 * and path syntax, and the stack depth (operators have fixed arities, so the
 * depth at every step is known). Type and reference errors depend on the
 * data and are left to `runSelector`.
 *
 * All problems are collected, not just the first, so an author fixes them in
 * one pass; the one exception is `TooLong`, reported alone so that a hostile
 * million-element array costs nothing to refuse.
 *
 * Reference syntax: `$.<root>` then any number of segments:
 *   - `.key`     a key made of any characters except `.`, `[` and `]`; on an
 *                array, a decimal key (`.0`) is an index, as the document's
 *                dot-only grammar (§5.11) writes `$.user.groups.0`;
 *   - `[3]`      an array index (decimal, no sign, no leading zeros);
 *   - `["k.y"]`  any key at all, written as a JSON string literal
 *                (so `["a\"b"]`, `["x]"]`, `[""]` and `["\u002e"]` all work).
 * A bare root (`$.user`) is the whole object.
 *
 * Escapes: a string of backslashes followed by `$.` or `::` loses its first
 * backslash and is pushed as a literal (`"\\$.x"` pushes `"$.x"`, `"\\\\::x"`
 * pushes `"\\::x"`). Any other backslash is an ordinary character.
 */

import {
  isSelectorOp,
  MAX_PROGRAM_LENGTH,
  MAX_STACK_DEPTH,
  SELECTOR_OPS,
  SELECTOR_ROOTS,
  selectorError,
  type CompiledItem,
  type CompiledSelector,
  type JsonValue,
  type PathSegment,
  type SelectorError,
  type SelectorRoot,
} from './types';

export type CompileResult = { ok: true; program: CompiledSelector } | { ok: false; errors: SelectorError[] };

const ESCAPED = /^\\+(\$\.|::)/;

export function compileSelector(program: unknown): CompileResult {
  try {
    return compile(program);
  } catch {
    // Only exotic objects (a Proxy whose traps throw) get here; plain data never does.
    return { ok: false, errors: [selectorError.notAProgram('it could not be read')] };
  }
}

function compile(program: unknown): CompileResult {
  if (!Array.isArray(program)) return { ok: false, errors: [selectorError.notAProgram(`got ${program === null ? 'null' : typeof program}`)] };
  if (program.length > MAX_PROGRAM_LENGTH) return { ok: false, errors: [selectorError.tooLong(program.length)] };

  const errors: SelectorError[] = [];
  const items: CompiledItem[] = [];
  const refs: { pc: number; path: string; root: SelectorRoot }[] = [];
  let depth = 0;
  // After an unknown operator the depths that follow mean nothing; report no guesses.
  let depthKnown = true;
  let tooDeepReported = false;

  for (let pc = 0; pc < program.length; pc++) {
    const el: unknown = Object.hasOwn(program, pc) ? program[pc] : undefined;
    let pops = 0;
    let pushes = 1;

    if (typeof el === 'string' && ESCAPED.test(el)) {
      items.push({ kind: 'lit', value: el.slice(1) });
    } else if (typeof el === 'string' && el.startsWith('::')) {
      if (isSelectorOp(el)) {
        items.push({ kind: 'op', op: el });
        ({ pops, pushes } = SELECTOR_OPS[el]);
      } else {
        errors.push(selectorError.unknownOp(el, pc));
        depthKnown = false;
      }
    } else if (typeof el === 'string' && el.startsWith('$.')) {
      const parsed = parseReference(el, pc);
      if ('code' in parsed) errors.push(parsed);
      else {
        items.push({ kind: 'ref', path: el, root: parsed.root, segments: parsed.segments });
        refs.push({ pc, path: el, root: parsed.root });
      }
    } else {
      const json = toJson(el);
      if (json.ok) items.push({ kind: 'lit', value: json.value });
      else errors.push(selectorError.notAProgram(json.why, pc));
    }

    if (!depthKnown) continue;
    if (depth < pops) {
      errors.push(selectorError.underflow(program[pc] as string, pops, depth, pc));
      // Carry on as if the missing operands had been there, so one mistake is reported once.
      depth = pushes;
    } else {
      depth += pushes - pops;
    }
    if (depth > MAX_STACK_DEPTH && !tooDeepReported) {
      errors.push(selectorError.tooDeep(depth, pc));
      tooDeepReported = true;
    }
  }
  if (depthKnown && depth !== 1) errors.push(selectorError.badResult(depth));

  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, program: Object.freeze({ items: Object.freeze(items), refs: Object.freeze(refs) }) };
}

/** Parses `$.root.seg[0]["k"]`; returns the error when the root or the syntax is wrong. */
export function parseReference(path: string, pc: number): { root: SelectorRoot; segments: PathSegment[] } | SelectorError {
  let i = 2;
  while (i < path.length && path[i] !== '.' && path[i] !== '[') i++;
  const root = path.slice(2, i);
  if (!(SELECTOR_ROOTS as readonly string[]).includes(root)) return selectorError.badRoot(path, pc);

  const segments: PathSegment[] = [];
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      const start = ++i;
      while (i < path.length && path[i] !== '.' && path[i] !== '[' && path[i] !== ']') i++;
      if (i === start) return selectorError.badPath(path, pc, `empty key at offset ${start} (write odd keys as ["key"])`);
      segments.push(path.slice(start, i));
    } else if (c === '[') {
      const start = ++i;
      if (path[i] === '"') {
        let j = i + 1;
        while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
        if (j >= path.length) return selectorError.badPath(path, pc, `unterminated quoted key at offset ${start}`);
        let key: unknown;
        try {
          key = JSON.parse(path.slice(i, j + 1));
        } catch {
          return selectorError.badPath(path, pc, `bad escape in quoted key at offset ${start}`);
        }
        segments.push(key as string);
        i = j + 1;
      } else {
        while (i < path.length && path[i]! >= '0' && path[i]! <= '9') i++;
        const digits = path.slice(start, i);
        if (digits === '') return selectorError.badPath(path, pc, `expected an index or a quoted key at offset ${start}`);
        if (digits.length > 1 && digits.startsWith('0')) return selectorError.badPath(path, pc, `index ${digits} has a leading zero`);
        const index = Number(digits);
        if (!Number.isSafeInteger(index)) return selectorError.badPath(path, pc, `index ${digits} is too large`);
        segments.push(index);
      }
      if (path[i] !== ']') return selectorError.badPath(path, pc, `expected "]" at offset ${i}`);
      i++;
    } else {
      return selectorError.badPath(path, pc, `unexpected "${c}" at offset ${i}`);
    }
  }
  return { root: root as SelectorRoot, segments };
}

/**
 * Checks that a literal is JSON and copies it, so the compiled program does
 * not change if the caller's array does. Iterative, because a literal may be
 * nested deeper than the call stack allows; cycles are refused (a shared but
 * acyclic object is fine). Keys are defined, not assigned, so a `__proto__`
 * key stays an ordinary key.
 */
function toJson(root: unknown): { ok: true; value: JsonValue } | { ok: false; why: string } {
  const scalar = (v: unknown): { ok: true; value: JsonValue } | { ok: false; why: string } | null => {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return { ok: true, value: v };
    if (typeof v === 'number') return Number.isFinite(v) ? { ok: true, value: v } : { ok: false, why: `the number ${v}` };
    if (typeof v !== 'object') return { ok: false, why: typeof v };
    if (!Array.isArray(v)) {
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return { ok: false, why: 'an object that is not plain data' };
    }
    return null;
  };

  const top = scalar(root);
  if (top) return top;

  interface Frame {
    src: object;
    dst: JsonValue[] | { [key: string]: JsonValue };
    keys: string[];
    next: number;
  }
  const ancestors = new Set<object>();
  const open = (src: object): Frame | string => {
    if (ancestors.has(src)) return 'a cycle';
    ancestors.add(src);
    if (Array.isArray(src)) return { src, dst: [], keys: Array.from({ length: src.length }, (_, i) => String(i)), next: 0 };
    return { src, dst: {}, keys: Object.keys(src), next: 0 };
  };
  const first = open(root as object);
  if (typeof first === 'string') return { ok: false, why: first };
  const stack: Frame[] = [first];
  const rootDst = first.dst;

  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.next >= f.keys.length) {
      ancestors.delete(f.src);
      stack.pop();
      continue;
    }
    const key = f.keys[f.next++]!;
    const d = Object.getOwnPropertyDescriptor(f.src, key);
    if (!d) return { ok: false, why: 'an array with holes' };
    if (!('value' in d)) return { ok: false, why: `the accessor property ${JSON.stringify(key)}` };
    const v: unknown = d.value;
    const s = scalar(v);
    let child: JsonValue;
    if (s) {
      if (!s.ok) return s;
      child = s.value;
    } else {
      const frame = open(v as object);
      if (typeof frame === 'string') return { ok: false, why: frame };
      stack.push(frame);
      child = frame.dst;
    }
    if (Array.isArray(f.dst)) f.dst.push(child);
    else Object.defineProperty(f.dst, key, { value: child, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, value: rootDst };
}
