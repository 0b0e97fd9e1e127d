import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  compileSelector,
  evaluateSelector,
  MAX_PROGRAM_LENGTH,
  MAX_STACK_DEPTH,
  parseQuantity,
  runSelector,
  SELECTOR_OPS,
  type SelectorContext,
  type SelectorError,
} from '.';

// ---------------------------------------------------------------- helpers

const CTX: SelectorContext = {
  this: { name: 'acme', label: '$.user.role', opname: '::and', backslashed: '\\$.x' },
  user: { id: 7, role: 'owner', admin: true, tags: ['a', 'b'], nothing: null, quota: '4Gi', zero: 0, empty: '' },
  service: {
    name: 'web',
    cost: { vcpu: 1.5, memory: 2147483648 },
    resources: [{ kind: 'port', name: 'p' }],
    meta: { 'a.b': 1, 'x]y': 2, '': 3, 'q"r': 4, '[0]': 5 },
  },
  environment: { id: 1, name: 'dev', marks: { vcpu: 4 }, meta: { tier: 'dev' } },
};

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
deepFreeze(CTX);

/** A short label for assertion messages (never throws: programs here may hold BigInts or very deep data). */
function show(v: unknown): string {
  try {
    return String(JSON.stringify(v)).slice(0, 120);
  } catch {
    return String(typeof v);
  }
}

function compiled(program: unknown[]) {
  const c = compileSelector(program);
  assert.ok(c.ok, `expected ${show(program)} to compile, got ${c.ok ? '' : show(c.errors)}`);
  return c.program;
}

/** Runs a program that must compile and run; returns its value. */
function value(program: unknown[], ctx: SelectorContext = CTX): boolean {
  const r = runSelector(compiled(program), ctx);
  assert.ok(r.ok, `expected ${show(program)} to run, got ${r.ok ? '' : r.error.message}`);
  return r.value;
}

/** Runs a program that must compile and fail at run time; returns the error. */
function runError(program: unknown[], ctx: SelectorContext = CTX): SelectorError {
  const r = runSelector(compiled(program), ctx);
  assert.ok(!r.ok, `expected ${show(program)} to fail, got ${r.ok ? r.value : ''}`);
  return r.error;
}

/** Compile errors without their messages (fields only). */
function compileErrors(program: unknown): Omit<SelectorError, 'message'>[] {
  const c = compileSelector(program);
  assert.ok(!c.ok, `expected ${show(program)} not to compile`);
  return c.errors.map(({ message, ...rest }) => {
    assert.equal(typeof message, 'string');
    assert.ok(message.length > 0);
    return rest;
  });
}

const fields = ({ message: _, ...rest }: SelectorError) => rest;

// ---------------------------------------------------------------- operators

describe('operators: happy cases', () => {
  const cases: [string, unknown[], boolean][] = [
    // ::dup
    ['dup a boolean', [true, '::dup', '::and'], true],
    ['dup a reference, both resolve', ['$.user.admin', '::dup', '::and'], true],
    ['dup a container and compare with itself', ['$.user.tags', '::dup', '::eq'], true],
    ['dup copies a Ref as a Ref (a missing one is not resolved)', ['$.user.missing', '::dup', '::exists', '::swap', '::exists', '::or'], false],
    // ::pop
    ['pop the top', [false, true, '::pop'], false],
    ['pop does not resolve a missing Ref', [true, '$.user.missing', '::pop'], true],
    // ::swap
    ['swap then gt', [1, 2, '::swap', '::gt'], true],
    ['swap does not resolve', ['$.user.missing', true, '::swap', '::exists', '::swap', '::pop'], false],
    // ::exists
    ['exists: a present key', ['$.user.role', '::exists'], true],
    ['exists: a missing key', ['$.user.missing', '::exists'], false],
    ['exists: a present null is a value', ['$.user.nothing', '::exists'], true],
    ['exists: a literal null', [null, '::exists'], false],
    ['exists: a literal 0', [0, '::exists'], true],
    ['exists: a literal false', [false, '::exists'], true],
    ['exists: an absent root', ['$.resource', '::exists'], false],
    ['exists: under an absent root', ['$.resource.kind', '::exists'], false],
    ['exists: a bare root', ['$.user', '::exists'], true],
    ['exists: an index in range', ['$.user.tags[1]', '::exists'], true],
    ['exists: an index out of range', ['$.user.tags[2]', '::exists'], false],
    ['exists: a key under a string', ['$.user.role.x', '::exists'], false],
    ['exists: a key under null', ['$.user.nothing.x', '::exists'], false],
    ['exists: an index on an object', ['$.user[0]', '::exists'], false],
    ['exists: a non-index key on an array', ['$.user.tags.x', '::exists'], false],
    ['exists: a dot index past the end', ['$.user.tags.2', '::exists'], false],
    ['exists: a dot index with a leading zero is a key, not an index', ['$.user.tags.01', '::exists'], false],
    ['exists: an index on a string', ['$.user.role[0]', '::exists'], false],
    // ::getor
    ['getor: a missing Ref gives the default', ['$.user.missing', 'dflt', '::getor', 'dflt', '::eq'], true],
    ['getor: a present Ref gives its value', ['$.user.role', 'x', '::getor', 'owner', '::eq'], true],
    ['getor: a present null Ref is kept', ['$.user.nothing', 5, '::getor', null, '::eq'], true],
    ['getor: a null literal gives the default', [null, 5, '::getor', 5, '::eq'], true],
    ['getor: a false literal is kept', [false, true, '::getor'], false],
    ['getor: an absent root gives the default', ['$.resource.kind', 'none', '::getor', 'none', '::eq'], true],
    ['getor: fallbacks chain (second present)', ['$.user.a', '$.user.role', '::getor', 'none', '::getor', 'owner', '::eq'], true],
    ['getor: fallbacks chain (none present)', ['$.user.a', '$.user.b', '::getor', 'none', '::getor', 'none', '::eq'], true],
    ['getor: a Ref default stays a Ref', ['$.user.a', '$.user.b', '::getor', '::exists'], false],
    // ::num
    ['num: true is 1', [true, '::num', 1, '::eq'], true],
    ['num: false is 0', [false, '::num', 0, '::eq'], true],
    ['num: a number stays', [2.5, '::num', 2.5, '::eq'], true],
    ['num: a trimmed decimal string', [' 42 ', '::num', 42, '::eq'], true],
    ['num: a quantity from the context', ['$.user.quota', '::num', 4 * 2 ** 30, '::eq'], true],
    ['num: compares with gt', ['500m', '::num', 1, '::lt'], true],
    // ::eq / ::neq
    ['eq: numbers by value', [1, 1.0, '::eq'], true],
    ['eq: 0 and -0', [0, -0, '::eq'], true],
    ['eq: no coercion "1" vs 1', ['1', 1, '::eq'], false],
    ['eq: no coercion 1 vs true', [1, true, '::eq'], false],
    ['eq: no coercion 0 vs null', [0, null, '::eq'], false],
    ['eq: null and null', [null, null, '::eq'], true],
    ['eq: deep arrays', [[1, { a: 2 }], [1, { a: 2 }], '::eq'], true],
    ['eq: object key order does not matter', [{ a: 1, b: 2 }, { b: 2, a: 1 }, '::eq'], true],
    ['eq: [] is not {}', [[], {}, '::eq'], false],
    ['eq: extra key', [{ a: 1 }, { a: 1, b: 2 }, '::eq'], false],
    ['eq: array order matters', [[1, 2], [2, 1], '::eq'], false],
    ['eq: nested difference', [{ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] }, '::eq'], false],
    ['eq: a Ref to an object', ['$.service.cost', { vcpu: 1.5, memory: 2147483648 }, '::eq'], true],
    ['eq: two Refs', ['$.environment.meta.tier', '$.environment.name', '::eq'], true],
    ['neq: different', [1, 2, '::neq'], true],
    ['neq: same', ['a', 'a', '::neq'], false],
    ['neq: no coercion', ['1', 1, '::neq'], true],
    // ::gt ::gte ::lt ::lte
    ['gt numbers', [3, 2, '::gt'], true],
    ['gt equal', [2, 2, '::gt'], false],
    ['gte equal', [2, 2, '::gte'], true],
    ['gte less', [1, 2, '::gte'], false],
    ['lt numbers', [-1, 0, '::lt'], true],
    ['lt equal', [0, 0, '::lt'], false],
    ['lte equal', [1.5, 1.5, '::lte'], true],
    ['lte greater', [2, 1.5, '::lte'], false],
    ['gt strings', ['b', 'a', '::gt'], true],
    ['lt strings (prefix)', ['ab', 'abc', '::lt'], true],
    ['lt strings (case: "Z" < "a")', ['Z', 'a', '::lt'], true],
    ['gte strings equal', ['x', 'x', '::gte'], true],
    ['strings by code point, not UTF-16 unit', ['\uFFFF', '\u{1F600}', '::lt'], true],
    ['strings by code point (reverse)', ['\u{1F600}', '\uFFFF', '::gt'], true],
    ['a Ref number', ['$.service.cost.vcpu', 2, '::lte'], true],
    // ::not and the binary logic operators (truth tables below)
    ['not false', [false, '::not'], true],
    ['not true', [true, '::not'], false],
    ['not of a Ref', ['$.user.admin', '::not'], false],
  ];
  for (const [what, program, expected] of cases) test(what, () => assert.equal(value(program), expected));

  const truth: Record<string, (a: boolean, b: boolean) => boolean> = {
    '::and': (a, b) => a && b,
    '::nand': (a, b) => !(a && b),
    '::or': (a, b) => a || b,
    '::nor': (a, b) => !(a || b),
    '::xor': (a, b) => a !== b,
  };
  for (const [op, f] of Object.entries(truth)) {
    test(`${op} truth table`, () => {
      for (const a of [false, true]) for (const b of [false, true]) assert.equal(value([a, b, op]), f(a, b), `${a} ${b} ${op}`);
    });
  }

  test('::bool table', () => {
    const falsy: unknown[] = [false, null, 0, -0, '', [], {}];
    const truthy: unknown[] = [true, 1, -1, 0.5, '0', 'false', ' ', [0], [null], { a: null }];
    for (const v of falsy) assert.equal(value([v, '::bool']), false, JSON.stringify(v));
    for (const v of truthy) assert.equal(value([v, '::bool']), true, JSON.stringify(v));
    assert.equal(value(['$.user.nan', '::bool'], { user: { nan: NaN } }), false, 'NaN');
    assert.equal(value(['$.user.nothing', '::bool']), false);
    assert.equal(value(['$.user.tags', '::bool']), true);
  });

  test('every operator in the table has a case here', () => {
    assert.deepEqual(Object.keys(SELECTOR_OPS).sort(), ['::and', '::bool', '::dup', '::eq', '::exists', '::getor', '::gt', '::gte', '::lt', '::lte', '::nand', '::neq', '::nor', '::not', '::num', '::or', '::pop', '::swap', '::xor'].sort());
  });
});

describe('operators: TypeError', () => {
  const cases: { program: unknown[]; op: string; expected: string; got: string; pc: number }[] = [
    { program: [1, 'a', '::gt'], op: '::gt', expected: '2 numbers or 2 strings', got: 'number and string', pc: 2 },
    { program: ['a', 1, '::gte'], op: '::gte', expected: '2 numbers or 2 strings', got: 'string and number', pc: 2 },
    { program: [null, 1, '::lt'], op: '::lt', expected: '2 numbers or 2 strings', got: 'null and number', pc: 2 },
    { program: [true, false, '::lte'], op: '::lte', expected: '2 numbers or 2 strings', got: 'boolean and boolean', pc: 2 },
    { program: [[1], [2], '::gt'], op: '::gt', expected: '2 numbers or 2 strings', got: 'array and array', pc: 2 },
    { program: ['$.service.cost', 1, '::lt'], op: '::lt', expected: '2 numbers or 2 strings', got: 'object and number', pc: 2 },
    { program: ['1', '::not'], op: '::not', expected: 'a boolean', got: 'string', pc: 1 },
    { program: [0, '::not'], op: '::not', expected: 'a boolean', got: 'number', pc: 1 },
    { program: [null, '::not'], op: '::not', expected: 'a boolean', got: 'null', pc: 1 },
    { program: [1, true, '::and'], op: '::and', expected: '2 booleans', got: 'number and boolean', pc: 2 },
    { program: [true, 'true', '::nand'], op: '::nand', expected: '2 booleans', got: 'boolean and string', pc: 2 },
    { program: ['$.user.zero', true, '::or'], op: '::or', expected: '2 booleans', got: 'number and boolean', pc: 2 },
    { program: [false, null, '::nor'], op: '::nor', expected: '2 booleans', got: 'boolean and null', pc: 2 },
    { program: [{}, [], '::xor'], op: '::xor', expected: '2 booleans', got: 'object and array', pc: 2 },
    { program: ['abc', '::num'], op: '::num', expected: 'a number, a boolean or a numeric string', got: 'string "abc"', pc: 1 },
    { program: ['', '::num'], op: '::num', expected: 'a number, a boolean or a numeric string', got: 'string ""', pc: 1 },
    { program: ['4 Gi', '::num'], op: '::num', expected: 'a number, a boolean or a numeric string', got: 'string "4 Gi"', pc: 1 },
    { program: [null, '::num'], op: '::num', expected: 'a number, a boolean or a numeric string', got: 'null', pc: 1 },
    { program: [[1], '::num'], op: '::num', expected: 'a number, a boolean or a numeric string', got: 'array', pc: 1 },
    { program: [{}, '::num'], op: '::num', expected: 'a number, a boolean or a numeric string', got: 'object', pc: 1 },
  ];
  for (const c of cases) {
    test(`${JSON.stringify(c.program)}`, () => {
      const e = runError([...c.program, ...(c.op === '::num' ? ['::pop', true] : [])]);
      assert.deepEqual(fields(e), { code: 'TypeError', op: c.op, expected: c.expected, got: c.got, pc: c.pc });
      assert.equal(e.message, `${c.op} at ${c.pc} needs ${c.expected}, got ${c.got}`);
    });
  }

  test('the message of the brief', () => {
    assert.equal(runError([0, 1, 2, 'a', '::gt', '::pop', '::pop', '::pop', true]).message, '::gt at 4 needs 2 numbers or 2 strings, got number and string');
    assert.equal(runError([true, 3, 'x', '::gt', '::or']).message, '::gt at 3 needs 2 numbers or 2 strings, got number and string');
  });

  test('a long unparsable string is cut in the message', () => {
    const e = runError(['x'.repeat(500), '::num', '::pop', true]);
    assert.equal(e.code, 'TypeError');
    assert.ok(e.message.length < 200, e.message);
  });
});

// ---------------------------------------------------------------- error codes

describe('error codes and their fields', () => {
  test('UnknownOp', () => {
    assert.deepEqual(compileErrors([1, 2, '::plus']), [{ code: 'UnknownOp', op: '::plus', pc: 2 }]);
    assert.deepEqual(compileErrors(['::']), [{ code: 'UnknownOp', op: '::', pc: 0 }]);
    assert.deepEqual(compileErrors([true, '::AND']), [{ code: 'UnknownOp', op: '::AND', pc: 1 }]);
    assert.match(compileSelector([1, 2, '::plus']).ok ? '' : (compileSelector([1, 2, '::plus']) as { errors: SelectorError[] }).errors[0]!.message, /unknown operator "::plus" at 2/);
  });

  test('BadRoot', () => {
    for (const path of ['$.users.x', '$.', '$.[0]', '$.This', '$.user]', '$.deployment.x', '$.__proto__']) {
      assert.deepEqual(compileErrors([path, '::exists']), [{ code: 'BadRoot', path, pc: 0 }], path);
    }
  });

  test('BadPath (malformed syntax)', () => {
    const bad = ['$.user..x', '$.user.', '$.user[01]', '$.user[-1]', '$.user[x]', '$.user[]', '$.user[0', '$.user["a]', '$.user["a"', '$.user["\\q"]', '$.user.a]b', '$.user[99999999999999999999]', '$.user["a"]x'];
    for (const path of bad) assert.deepEqual(compileErrors([true, path, '::pop']), [{ code: 'BadPath', path, pc: 1 }], path);
  });

  test('valid paths, including quoted keys for odd characters', () => {
    const cases: [string, unknown][] = [
      ['$.service.meta["a.b"]', 1],
      ['$.service.meta["x]y"]', 2],
      ['$.service.meta[""]', 3],
      ['$.service.meta["q\\"r"]', 4],
      ['$.service.meta["[0]"]', 5],
      ['$.service.meta["\\u0061.b"]', 1],
      ['$.service.resources[0].kind', 'port'],
      ['$.service.resources[0]["name"]', 'p'],
      ['$.user.tags[0]', 'a'],
      // The document's own grammar (§5.11) indexes arrays with dot segments.
      ['$.user.tags.0', 'a'],
      ['$.user.tags.1', 'b'],
      ['$.service.resources.0.kind', 'port'],
      ['$.user', { id: 7, role: 'owner', admin: true, tags: ['a', 'b'], nothing: null, quota: '4Gi', zero: 0, empty: '' }],
    ];
    for (const [path, expected] of cases) assert.equal(value([path, expected, '::eq']), true, path);
    // A reference starts with `$.`; `$["user"]` is an ordinary string.
    assert.equal(value(['$["user"]', '$["user"]', '::eq']), true);
  });

  test('StackUnderflow at save time', () => {
    assert.deepEqual(compileErrors(['::and']), [{ code: 'StackUnderflow', op: '::and', needed: 2, have: 0, pc: 0 }]);
    assert.deepEqual(compileErrors([true, '::and']), [{ code: 'StackUnderflow', op: '::and', needed: 2, have: 1, pc: 1 }]);
    assert.deepEqual(compileErrors(['::dup', '::and']), [{ code: 'StackUnderflow', op: '::dup', needed: 1, have: 0, pc: 0 }]);
    assert.deepEqual(compileErrors([true, '::pop', '::not']), [{ code: 'StackUnderflow', op: '::not', needed: 1, have: 0, pc: 2 }]);
    assert.deepEqual(compileErrors([1, '::swap', '::pop']), [{ code: 'StackUnderflow', op: '::swap', needed: 2, have: 1, pc: 1 }]);
    assert.deepEqual(compileErrors(['x', '::getor']), [{ code: 'StackUnderflow', op: '::getor', needed: 2, have: 1, pc: 1 }]);
    // One mistake is reported once: the check carries on as if the operands had been there.
    assert.deepEqual(compileErrors(['::not', '::not']), [{ code: 'StackUnderflow', op: '::not', needed: 1, have: 0, pc: 0 }]);
  });

  test('StackUnderflow at run time (a hand-made compiled program)', () => {
    const r = runSelector({ items: [{ kind: 'op', op: '::eq' }], refs: [] }, CTX);
    assert.ok(!r.ok);
    assert.deepEqual(fields(r.error), { code: 'StackUnderflow', op: '::eq', needed: 2, have: 0, pc: 0 });
  });

  test('all errors are collected, not just the first', () => {
    assert.deepEqual(compileErrors(['::pop', '$.users', '$.user..a', 'x', '::plus', '::alsobad']), [
      { code: 'StackUnderflow', op: '::pop', needed: 1, have: 0, pc: 0 },
      { code: 'BadRoot', path: '$.users', pc: 1 },
      { code: 'BadPath', path: '$.user..a', pc: 2 },
      { code: 'UnknownOp', op: '::plus', pc: 4 },
      { code: 'UnknownOp', op: '::alsobad', pc: 5 },
    ]);
    assert.deepEqual(compileErrors(['$.nope', 1, 2]), [
      { code: 'BadRoot', path: '$.nope', pc: 0 },
      { code: 'BadResult', depth: 3 },
    ]);
  });

  test('MissingReference', () => {
    assert.deepEqual(fields(runError(['$.user.missing', true, '::eq'])), { code: 'MissingReference', path: '$.user.missing', pc: 2 });
    assert.deepEqual(fields(runError(['$.resource.kind', 'port', '::eq'])), { code: 'MissingReference', path: '$.resource.kind', pc: 2 });
    assert.deepEqual(fields(runError(['$.user.tags[5]', '::bool'])), { code: 'MissingReference', path: '$.user.tags[5]', pc: 1 });
    // The left operand is resolved first.
    assert.deepEqual(fields(runError(['$.user.a', '$.user.b', '::eq'])), { code: 'MissingReference', path: '$.user.a', pc: 2 });
    assert.deepEqual(fields(runError([1, '$.user.b', '::eq'])), { code: 'MissingReference', path: '$.user.b', pc: 2 });
    // The final value is resolved too; its pc is the program's length.
    assert.deepEqual(fields(runError(['$.user.missing'])), { code: 'MissingReference', path: '$.user.missing', pc: 1 });
    assert.match(runError(['$.environment.meta.tier'], { environment: {} }).message, /\$\.environment\.meta\.tier does not resolve/);
  });

  test('a final Ref that resolves to a boolean is the result', () => {
    assert.equal(value(['$.user.admin']), true);
    assert.equal(value(['$.user.admin', '::dup', '::pop']), true);
  });

  test('BadResult at save time: 0 or 2 values', () => {
    assert.deepEqual(compileErrors([]), [{ code: 'BadResult', depth: 0 }]);
    assert.deepEqual(compileErrors([true, true]), [{ code: 'BadResult', depth: 2 }]);
    assert.deepEqual(compileErrors([true, '::pop']), [{ code: 'BadResult', depth: 0 }]);
    assert.deepEqual(compileErrors([true, '::dup']), [{ code: 'BadResult', depth: 2 }]);
  });

  test('BadResult at run time: not a boolean', () => {
    const cases: [unknown[], string][] = [
      [[1], 'number'],
      [[null], 'null'],
      [['yes'], 'string'],
      [[[true]], 'array'],
      [[{}], 'object'],
      [['$.user.role'], 'string'],
      [['$.user.tags'], 'array'],
      [['1', '::num'], 'number'],
      [[null, 1, '::getor'], 'number'],
    ];
    for (const [program, got] of cases) {
      const e = runError(program);
      assert.deepEqual(fields(e), { code: 'BadResult', depth: 1, got }, JSON.stringify(program));
      assert.match(e.message, /exactly one boolean/);
    }
  });

  test('TooLong: 1,025 elements (reported alone)', () => {
    assert.deepEqual(compileErrors(new Array(MAX_PROGRAM_LENGTH + 1).fill(true)), [{ code: 'TooLong', length: 1025, limit: 1024 }]);
    assert.deepEqual(compileErrors(new Array(100_000).fill('::plus')), [{ code: 'TooLong', length: 100_000, limit: 1024 }]);
  });

  test('1,024 elements is allowed', () => {
    const program: unknown[] = [true];
    while (program.length < MAX_PROGRAM_LENGTH - 1) program.push(true, '::and');
    program.push('::not');
    assert.equal(program.length, 1024);
    assert.equal(value(program), false);
  });

  test('TooDeep: depth 257', () => {
    assert.deepEqual(compileErrors(new Array(MAX_STACK_DEPTH + 1).fill(true)), [
      { code: 'TooDeep', depth: 257, limit: 256, pc: 256 },
      { code: 'BadResult', depth: 257 },
    ]);
    const deep: unknown[] = [...new Array(257).fill(true), ...new Array(256).fill('::and')];
    assert.deepEqual(compileErrors(deep), [{ code: 'TooDeep', depth: 257, limit: 256, pc: 256 }]);
    // Dup past the limit counts too.
    const dup: unknown[] = [...new Array(256).fill(true), '::dup', ...new Array(256).fill('::and')];
    assert.deepEqual(compileErrors(dup), [{ code: 'TooDeep', depth: 257, limit: 256, pc: 256 }]);
  });

  test('depth 256 is allowed', () => {
    assert.equal(value([...new Array(256).fill(true), ...new Array(255).fill('::and')]), true);
  });

  test('NotAProgram: not an array', () => {
    for (const p of ['["a"]', {}, 42, true, undefined, null, { length: 1, 0: true }]) {
      assert.deepEqual(compileErrors(p), [{ code: 'NotAProgram' }], String(p));
    }
  });

  test('NotAProgram: an element that is not JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const getter = Object.defineProperty({}, 'x', { get: () => 1, enumerable: true });
    const bad: unknown[] = [undefined, NaN, Infinity, -Infinity, () => 1, new Date(0), 10n, Symbol('s'), new Map(), cyclic, [cyclic], getter, { a: [1, { b: undefined }] }];
    for (const el of bad) {
      assert.deepEqual(compileErrors([true, el, '::pop']), [{ code: 'NotAProgram', pc: 1 }], String(el));
    }
    // A hole in the program is an element that is not JSON.
    assert.deepEqual(compileErrors([true, , '::pop']), [{ code: 'NotAProgram', pc: 1 }]);
  });

  test('shared (acyclic) objects are JSON; a prototype-free object too', () => {
    const shared = { a: 1 };
    assert.equal(value([[shared, shared], [{ a: 1 }, { a: 1 }], '::eq']), true);
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    assert.equal(value([bare, { a: 1 }, '::eq']), true);
  });
});

// ---------------------------------------------------------------- escapes

describe('escapes', () => {
  test('"\\\\$.x" pushes the literal "$.x"', () => {
    assert.equal(value(['\\$.user.role', '$.this.label', '::eq']), true);
    assert.equal(value(['\\$.user.role', 'owner', '::eq']), false, 'the escaped text is not resolved');
    assert.equal(value(['\\$.nope.at.all', '::exists']), true, 'an escaped unknown root is no error');
  });

  test('"\\\\::x" pushes the literal "::x"', () => {
    assert.equal(value(['\\::and', '$.this.opname', '::eq']), true);
    assert.equal(value(['\\::plus', '::pop', true]), true, 'an escaped unknown operator is no error');
  });

  test('only the first backslash goes', () => {
    assert.equal(value(['\\\\$.x', '$.this.backslashed', '::eq']), true);
    assert.equal(value(['\\\\::x', '\\::x', '::neq']), true);
  });

  test('other strings are literal, backslashes included', () => {
    assert.equal(value(['\\d+', '::pop', true]), true);
    assert.equal(value(['\\d', '\\d', '::eq']), true);
    assert.equal(value(['$x', ':x', '::neq']), true);
    assert.equal(value(['$', '$', '::eq']), true);
    assert.equal(value([' $.user', '::exists']), true, 'a leading space makes it a literal');
  });
});

// ---------------------------------------------------------------- ::num quantities

describe('::num quantities', () => {
  const good: [string, number][] = [
    ['0', 0],
    ['42', 42],
    ['  7\n', 7],
    ['-1.5', -1.5],
    ['+3', 3],
    ['.5', 0.5],
    ['5.', 5],
    ['500m', 0.5],
    ['1500m', 1.5],
    ['100n', 1e-7],
    ['5u', 5e-6],
    ['1k', 1e3],
    ['0.1k', 100],
    ['1M', 1e6],
    ['1G', 1e9],
    ['1T', 1e12],
    ['1P', 1e15],
    ['1E', 1e18],
    ['1Ki', 1024],
    ['1Mi', 2 ** 20],
    ['4Gi', 4 * 2 ** 30],
    ['2.5Gi', 2.5 * 2 ** 30],
    ['1Ti', 2 ** 40],
    ['1Pi', 2 ** 50],
    ['1Ei', 2 ** 60],
    ['1e3', 1000],
    ['1E3', 1000],
    ['1.5e-3', 0.0015],
    ['2e+2', 200],
    ['-500m', -0.5],
  ];
  const bad = ['', '   ', 'abc', '1K', '1 Gi', '1GiB', '1gi', '1e', 'Gi', '1.2.3', '0x10', 'Infinity', 'NaN', '1e400', '--1', '1mi', '1,5', '1_000', 'm', '.', '1e3k'];

  for (const [text, n] of good) {
    test(`${JSON.stringify(text)} = ${n}`, () => {
      assert.equal(parseQuantity(text), n);
      assert.equal(value([text, '::num', n, '::eq']), true);
    });
  }
  test('refused forms are TypeError in ::num', () => {
    for (const text of bad) {
      assert.equal(parseQuantity(text), null, text);
      assert.equal(runError([text, '::num', '::pop', true]).code, 'TypeError', text);
    }
  });
  test('quantities compare by value', () => {
    assert.equal(value(['1Gi', '::num', '1G', '::num', '::gt']), true);
    assert.equal(value(['1000m', '::num', '1', '::num', '::eq']), true);
    assert.equal(value(['$.user.quota', '::num', '4096Mi', '::num', '::eq']), true);
  });
});

// ---------------------------------------------------------------- the spec's example

describe("the spec's example: at most 2 vCPU per service unless the user is an owner", () => {
  const program = ['$.service.cost.vcpu', 2, '::lte', '$.user.role', 'owner', '::eq', '::or'];
  const cases: { what: string; ctx: SelectorContext; value: boolean; error?: Partial<SelectorError> }[] = [
    { what: 'small service, plain user', ctx: { service: { cost: { vcpu: 1 } }, user: { role: 'plain' } }, value: true },
    { what: 'exactly 2 vCPU', ctx: { service: { cost: { vcpu: 2 } }, user: { role: 'plain' } }, value: true },
    { what: 'large service, owner', ctx: { service: { cost: { vcpu: 3 } }, user: { role: 'owner' } }, value: true },
    { what: 'large service, admin', ctx: { service: { cost: { vcpu: 3 } }, user: { role: 'admin' } }, value: false },
    { what: 'fractional vCPU', ctx: { service: { cost: { vcpu: 2.001 } }, user: { role: 'plain' } }, value: false },
    {
      what: 'vCPU as a string is a TypeError (no coercion)',
      ctx: { service: { cost: { vcpu: '3' } }, user: { role: 'owner' } },
      value: false,
      error: { code: 'TypeError', op: '::lte', got: 'string and number', pc: 2 },
    },
    {
      what: 'no $.service in this hook',
      ctx: { user: { role: 'owner' } },
      value: false,
      error: { code: 'MissingReference', path: '$.service.cost.vcpu', pc: 2 },
    },
    {
      what: 'a user without a role',
      ctx: { service: { cost: { vcpu: 1 } }, user: {} },
      value: false,
      error: { code: 'MissingReference', path: '$.user.role', pc: 5 },
    },
    {
      what: 'a null cost is a value, and not a number',
      ctx: { service: { cost: { vcpu: null } }, user: { role: 'owner' } },
      value: false,
      error: { code: 'TypeError', op: '::lte', got: 'null and number', pc: 2 },
    },
  ];
  for (const c of cases) {
    test(c.what, () => {
      const r = evaluateSelector(program, c.ctx, true);
      assert.equal(r.value, c.value);
      if (c.error) {
        assert.ok(r.error);
        for (const [k, v] of Object.entries(c.error)) assert.deepEqual((r.error as Record<string, unknown>)[k], v, k);
        assert.equal(r.reason, r.error.message);
      } else {
        assert.equal(r.error, undefined);
        assert.equal(r.reason, undefined);
      }
    });
  }

  test('compiles with its references listed', () => {
    const c = compiled(program);
    assert.deepEqual(c.refs, [
      { pc: 0, path: '$.service.cost.vcpu', root: 'service' },
      { pc: 3, path: '$.user.role', root: 'user' },
    ]);
  });
});

// ---------------------------------------------------------------- evaluateSelector

describe('evaluateSelector', () => {
  test('an absent program gives the hook default', () => {
    assert.deepEqual(evaluateSelector(undefined, CTX, true), { value: true });
    assert.deepEqual(evaluateSelector(null, CTX, false), { value: false });
  });

  test('a compile error gives false and every reason', () => {
    const r = evaluateSelector([1, '::plus', '$.users'], CTX, true);
    assert.equal(r.value, false);
    assert.equal(r.error?.code, 'UnknownOp');
    assert.match(r.reason!, /::plus.*; .*\$\.users/);
  });

  test('a run error gives false and its reason, whatever the default', () => {
    const r = evaluateSelector(['$.user.missing', '::not'], CTX, true);
    assert.deepEqual({ value: r.value, code: r.error?.code, reason: r.reason }, { value: false, code: 'MissingReference', reason: '$.user.missing does not resolve (read at 1)' });
  });

  test('a false selector is false without a reason', () => {
    assert.deepEqual(evaluateSelector([false], CTX, true), { value: false });
  });

  test('a program that is not an array is refused, not treated as absent', () => {
    assert.equal(evaluateSelector('::true', CTX, true).error?.code, 'NotAProgram');
    assert.equal(evaluateSelector({}, CTX, true).value, false);
  });
});

// ---------------------------------------------------------------- hostile contexts

describe('prototype safety and hostile contexts', () => {
  test('inherited properties never resolve', () => {
    for (const path of ['$.user.constructor', '$.user.__proto__', '$.user.toString', '$.user.hasOwnProperty', '$.user.tags.length', '$.user.tags.constructor', '$.user.role.length', '$.user["__proto__"]', '$.user.constructor.prototype', '$.this.__proto__.polluted']) {
      assert.equal(value([path, '::exists']), false, path);
      assert.equal(runError([path, '::bool']).code, 'MissingReference', path);
    }
  });

  test('an own "__proto__" key (as JSON.parse makes it) is ordinary data', () => {
    const user: unknown = JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c"}');
    assert.equal(value(['$.user.__proto__.polluted'], { user }), true);
    assert.equal(value(['$.user.constructor', 'c', '::eq'], { user }), true);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('a literal with a "__proto__" key stays data and pollutes nothing', () => {
    const lit: unknown = JSON.parse('{"__proto__": {"polluted": 1}}');
    const user: unknown = JSON.parse('{"__proto__": {"polluted": 1}}');
    assert.equal(value([lit, '$.user', '::eq'], { user }), true);
    assert.equal(value([lit, {}, '::eq']), false);
    assert.equal(value([lit, '::bool']), true);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  test('getters are never called', () => {
    let called = 0;
    const user = Object.defineProperty({ role: 'plain' }, 'secret', { get: () => (called++, true), enumerable: true });
    assert.equal(value(['$.user.secret', '::exists'], { user }), false);
    assert.equal(value(['$.user', { role: 'plain' }, '::eq'], { user }), true, 'an accessor is not a JSON key');
    assert.equal(called, 0);
  });

  test('prototype-free objects, an odd ctx', () => {
    const user = Object.assign(Object.create(null) as object, { role: 'owner' });
    assert.equal(value(['$.user.role', 'owner', '::eq'], { user }), true);
    assert.equal(runError(['$.user.role', '::bool'], null as unknown as SelectorContext).code, 'MissingReference');
    assert.equal(runError(['$.user.role', '::bool'], 'x' as unknown as SelectorContext).code, 'MissingReference');
  });

  test('undefined in a context counts as missing', () => {
    assert.equal(value(['$.user.u', '::exists'], { user: { u: undefined } }), false);
    assert.equal(value(['$.user', {}, '::eq'], { user: { u: undefined } }), true);
  });

  test('cyclic contexts compare without looping', () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    const b: Record<string, unknown> = { n: 1 };
    b.self = b;
    const c: Record<string, unknown> = { n: 2 };
    c.self = c;
    assert.equal(value(['$.user.a', '$.user.b', '::eq'], { user: { a, b, c } }), true);
    assert.equal(value(['$.user.a', '$.user.c', '::eq'], { user: { a, b, c } }), false);
    assert.equal(value(['$.user.a', '::bool'], { user: { a } }), true);
  });

  test('very deep data compares without overflowing the call stack', () => {
    const deep = (n: number) => {
      let v: unknown = 0;
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    assert.equal(value(['$.user.x', '$.user.y', '::eq'], { user: { x: deep(200_000), y: deep(200_000) } }), true);
    assert.equal(value(['$.user.x', '$.user.y', '::neq'], { user: { x: deep(200_000), y: deep(199_999) } }), true);
    assert.equal(value([deep(100_000), '$.user.x', '::eq'], { user: { x: deep(100_000) } }), true, 'a deep literal compiles');
  });

  test('a Proxy whose traps throw is an error, not a throw', () => {
    const hostile = new Proxy({}, { getOwnPropertyDescriptor: () => { throw new Error('boom'); }, ownKeys: () => { throw new Error('boom'); } });
    const r = runSelector(compiled(['$.user.x', '::exists']), { user: hostile });
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'TypeError');
    const c = compileSelector([hostile]);
    assert.ok(!c.ok);
    assert.equal(c.errors[0]!.code, 'NotAProgram');
  });

  test('the compiled program does not change when the caller mutates its array', () => {
    const lit = { a: 1 };
    const program: unknown[] = [lit, { a: 1 }, '::eq'];
    const c = compiled(program);
    lit.a = 2;
    program[2] = '::neq';
    assert.deepEqual(runSelector(c, CTX), { ok: true, value: true });
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.items));
  });
});

// ---------------------------------------------------------------- fuzz

/** mulberry32: a small seeded PRNG, so a failure reproduces. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fuzz: random programs never throw and keep the invariants', () => {
  const TOKENS: unknown[] = [
    ...Object.keys(SELECTOR_OPS),
    ...Object.keys(SELECTOR_OPS),
    '::plus', '::', '\\::and', '\\$.user.role',
    '$.user.role', '$.user.admin', '$.user.tags', '$.user.tags[0]', '$.user.tags[9]', '$.user.nothing', '$.user.quota', '$.user.missing',
    '$.service.cost.vcpu', '$.service.meta["a.b"]', '$.resource.kind', '$.environment', '$.this.__proto__', '$.user.constructor',
    '$.users', '$.user..x', '$.user[01]', '$.', '$.user["x',
    true, false, true, false, null, 0, 1, 2, -1, 0.5, '', 'owner', '500m', '4Gi', '1e3', 'abc', [], [1, 'a'], {}, { a: [null] },
  ];
  const NON_PROGRAMS: unknown[] = [undefined, null, 0, 'x', {}, { length: 2 }, () => 1, NaN];
  const RUNTIME_CODES = new Set(['TypeError', 'MissingReference', 'BadResult']);

  test('3,000 seeded programs', () => {
    const rnd = prng(0x5e1ec7);
    const snapshot = JSON.stringify(CTX);
    let compiledOk = 0;
    let ranTrue = 0;
    let ranFalse = 0;
    let runErrors = 0;
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const OPERANDS = TOKENS.filter((t) => typeof t !== 'string' || !t.startsWith('::'));
    const OPS = Object.entries(SELECTOR_OPS);
    // Half the programs are token soup (mostly compile errors); half are
    // stack-balanced, so they compile and exercise the run-time paths.
    const soup = () => Array.from({ length: Math.floor(rnd() * 10) }, () => pick(TOKENS));
    const balanced = () => {
      const out: unknown[] = [];
      let depth = 0;
      const steps = 1 + Math.floor(rnd() * 10);
      for (let k = 0; k < steps; k++) {
        const fits = OPS.filter(([, a]) => a.pops <= depth);
        if (depth === 0 || rnd() < 0.45 || fits.length === 0) {
          out.push(pick(OPERANDS));
          depth++;
        } else {
          const [op, a] = pick(fits);
          out.push(op);
          depth += a.pushes - a.pops;
        }
      }
      while (depth > 1) {
        out.push(pick(['::and', '::or', '::eq', '::neq', '::getor', '::pop', '::lt']));
        depth--;
      }
      if (depth === 0) out.push(pick([true, false, '$.user.admin']));
      return out;
    };
    for (let i = 0; i < 3000; i++) {
      const program = i % 2 === 0 ? soup() : balanced();
      const label = JSON.stringify(program);
      const c = compileSelector(program);
      const e = evaluateSelector(program, CTX, true);
      assert.equal(typeof e.value, 'boolean', label);
      if (e.error) {
        assert.equal(e.value, false, label);
        assert.equal(typeof e.reason, 'string', label);
      }
      if (!c.ok) {
        assert.ok(c.errors.length > 0, label);
        for (const err of c.errors) assert.ok(!RUNTIME_CODES.has(err.code) || (err.code === 'BadResult' && !('got' in err)), label);
        assert.deepEqual(e, { value: false, reason: c.errors.map((x) => x.message).join('; '), error: c.errors[0] }, label);
        continue;
      }
      compiledOk++;
      const r = runSelector(c.program, CTX);
      assert.deepEqual(runSelector(c.program, CTX), r, 'deterministic');
      if (r.ok) {
        r.value ? ranTrue++ : ranFalse++;
        assert.deepEqual(e, { value: r.value }, label);
      } else {
        runErrors++;
        assert.ok(RUNTIME_CODES.has(r.error.code), `${label}: ${r.error.code}`);
        assert.deepEqual(e, { value: false, reason: r.error.message, error: r.error }, label);
      }
    }
    assert.equal(JSON.stringify(CTX), snapshot, 'the context is never changed');
    // The generator reaches every outcome, so the loop above tested something.
    assert.ok(compiledOk > 1000 && ranTrue > 50 && ranFalse > 50 && runErrors > 100, JSON.stringify({ compiledOk, ranTrue, ranFalse, runErrors }));
    for (const p of NON_PROGRAMS) assert.doesNotThrow(() => compileSelector(p));
  });

  test('algebraic laws on random operand pairs', () => {
    const rnd = prng(42);
    const VALUES: unknown[] = [0, 1, -1, 2.5, '', 'a', 'b', 'ab', true, false, null, [], [1], {}, { a: 1 }, '$.user.tags', '$.service.cost', '$.user.zero', '$.user.role'];
    for (let i = 0; i < 500; i++) {
      const a = VALUES[Math.floor(rnd() * VALUES.length)];
      const b = VALUES[Math.floor(rnd() * VALUES.length)];
      const ev = (p: unknown[]) => evaluateSelector(p, CTX, true);
      // neq is not eq; eq is symmetric.
      assert.equal(ev([a, b, '::neq']).value, !ev([a, b, '::eq']).value);
      assert.equal(ev([a, b, '::eq']).value, ev([b, a, '::eq']).value);
      // gt is lt swapped, gte is not lt (when defined).
      const gt = ev([a, b, '::gt']);
      assert.deepEqual(gt.value, ev([b, a, '::lt']).value);
      if (!gt.error) assert.equal(ev([a, b, '::gte']).value, !ev([a, b, '::lt']).value);
      // ::bool then ::not ::not is ::bool.
      assert.equal(ev([a, '::bool', '::not', '::not']).value, ev([a, '::bool']).value);
    }
  });
});
