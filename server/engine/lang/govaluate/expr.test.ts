import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  coerceLabel,
  coerceLabelSet,
  compileExpr,
  compileExprCached,
  evalExpr,
  evalExprDetailed,
  type CompiledExpr,
  type ExprParams,
} from './index';
import type { Result } from '../result';
import { HOSTILE_EXPRESSIONS } from '../../../testing/hostile-engine';

type Expect = true | false | 'parse' | 'type' | 'limit';

/** Compiles and evaluates, reducing the outcome to one comparable value. */
function run(src: string, params: ExprParams, coerceLabels = true): Expect {
  const c = compileExpr(src);
  if (!c.ok) return c.error.code === 'expr_limit' ? 'limit' : 'parse';
  const r = evalExpr(c.value, params, { coerceLabels });
  if (!r.ok) return r.error.code === 'expr_limit' ? 'limit' : 'type';
  return r.value;
}

function check(table: [string, Expect][], params: ExprParams, coerceLabels = true): void {
  for (const [src, want] of table) assert.equal(run(src, params, coerceLabels), want, src);
}

// The parameters of Aptomi's own expression_test.go, as labels plus a Bundle.
const APTOMI_PARAMS = {
  foo: '10',
  unusedLabel: '3',
  a: 'valueOfA',
  bar: 'true',
  anotherbar: 't',
  Bundle: { Name: 'mybundlename', Labels: { Name: 'Value' } },
};

test("Aptomi's expression table behaves the same", () => {
  check(
    [
      ['anotherbar == true', true],
      ['anotherbar', true],
      ['bar == true', true],
      ['bar', true],
      ['foo > 5', true],
      ["a == 'valueOfA'", true],
      ["foo > 5 && a == 'valueOfA'", true],
      ["anotherbar == 'p'", false],
      ["'A' + 'B' == 5", false],
      ["in(a, 'valueOfC', 'valueOfB', 'valueOfA')", true],
      ['in(foo, 10, 20, 30)', true],
      ["in(a, 'valueOfX', 'valueOfY', 'valueOfZ')", false],
      ['in(a, )', 'parse'],
      ['in(5)', false],
      ["foo > 5 && missingLabel == 'requiredValue'", false],
      ['foo > 5 && missingLabel == 239', false],
      ["foo == '10'", false], // "10" became the number 10
      ["anotherbar == 't'", false], // "t" became the boolean true
      ["Bundle.Name == 'mybundlename'", true],
      ["Bundle.Name == 'incorrectbundlename'", false],
      ["Bundle.Labels.Name + 'B' == 'ValueB'", true],
      ["BundleMissing.LabelsMissing.Name + 'B' == 'ValueB'", false],
      ["foo + 10 + 'test' > 0", 'type'],
      ["'a' + 'b' + bar", 'type'], // "abtrue" is not a boolean
      ['(5 + 10 > 9', 'parse'],
      // Keelson rejects in() when compiling; Aptomi failed only when evaluating it.
      ['in()', 'parse'],
    ],
    APTOMI_PARAMS,
  );
});

test('label coercion: Atoi first, then ParseBool, else the raw string', () => {
  const table: [string, number | boolean | string][] = [
    ['10', 10], ['-3', -3], ['+4', 4], ['0', 0], ['1', 1],
    ['t', true], ['TRUE', true], ['False', false], ['f', false],
    ['1.5', '1.5'], ['yes', 'yes'], ['', ''], ['0x10', '0x10'],
  ];
  for (const [input, want] of table) assert.equal(coerceLabel(input), want, input);
  assert.deepEqual(coerceLabelSet({ a: '10', b: 't', c: 'x' }), { a: 10, b: true, c: 'x' });
});

test('reference quirks: coerced labels, raw bundle labels, hyphens', () => {
  const params = {
    a: '10',
    z: '0',
    b: 't',
    f: '1.5',
    'short-description': 'Dev',
    Bundle: { Labels: { blog: 'true', other: 'yes' }, Generation: 3 },
  };
  check(
    [
      ["a == '10'", false],
      ['a == 10', true],
      ['z == false', false],
      ['z == 0', true],
      ["b == 't'", false],
      ['b == true', true],
      ['f > 1', 'type'], // "1.5" stays a string
      ["f == '1.5'", true],
      ["Bundle.Labels.blog == 'true'", true], // nested labels are raw strings
      // Keelson: the documented `bundle.Labels.blog == true` works.
      ['bundle.Labels.blog == true', true],
      ['Bundle.Labels.blog == true', true],
      ['true == bundle.Labels.blog', true],
      ['bundle.Labels.blog != true', false],
      ['bundle.Labels.blog == false', false],
      ['bundle.Labels.other == true', false],
      ['bundle.Labels.other != false', true],
      ['Bundle.Generation == 3', true],
      ["short-description == 'Dev'", false], // parses as short - description
      ["[short-description] == 'Dev'", true],
    ],
    params,
  );
});

test('a missing parameter anywhere makes the whole expression false', () => {
  const params = { team: 'dev', Bundle: { Labels: { x: '1' } }, str: 'abc' };
  check(
    [
      ['!missing', false],
      ["missing != 'x'", false],
      ["missing == 'x' || true", false],
      ["true || missing == 'x'", true], // short-circuit never reads it
      ['false && missing', false],
      ["team == 'dev' && missing", false],
      ['in(missing, 1, 2)', false],
      ["Bundle.Labels.absent == 'x'", false],
      ['Bundle.NoField == 1', false],
      ['str.field == 1', false], // a string has no fields
      ['missing ?? true', false],
      // Prototype members are not parameters.
      ["constructor == 'x'", false],
      ['toString != 1', false],
      ['Bundle.Labels.hasOwnProperty == 1', false],
    ],
    params,
  );
  const compiled = compileExpr("team == 'dev' && Bundle.Labels.absent == 'x'");
  assert.ok(compiled.ok);
  assert.deepEqual(evalExprDetailed(compiled.value, params), {
    ok: true,
    value: { value: false, missing: 'Bundle.Labels.absent' },
  });
});

test('every operator', () => {
  const params = { n: 10, s: 'hello', t: true, nothing: null, list: [1, 2] };
  check(
    [
      ['1 + 2 == 3', true],
      ["'ab' + 'cd' == 'abcd'", true],
      ["'n' + 1 == 'n1'", true],
      ["'n' + 1000000 == 'n1e+06'", true], // %v of a float64
      ["'x' + true == 'xtrue'", true],
      ['5 - 7 == -2', true],
      ['6 * 7 == 42', true],
      ['7 / 2 == 3.5', true],
      ['-7 % 3 == -1', true], // math.Mod keeps the dividend's sign
      ['2 ** 10 == 1024', true],
      ['6 & 3 == 2', true],
      ['6 | 3 == 7', true],
      ['6 ^ 3 == 5', true],
      ['1 << 4 == 16', true],
      ['256 >> 4 == 16', true],
      ['1 << 64 == 0', true],
      ['~5 == -6', true],
      ['7.9 & 3 == 3', true], // floats truncate to int64
      ['-(3) == -3', true],
      ['!false', true],
      ['n > 9', true],
      ['n >= 10', true],
      ['n < 10', false],
      ['n <= 10', true],
      ["s > 'hell'", true],
      ["'a' < 'b'", true],
      ["s == 'hello'", true],
      ["s != 'hello'", false],
      ["s =~ '^h.l+o$'", true],
      ["s !~ 'z'", true],
      ["s =~ '(?i)HELLO'", true],
      ['true && t', true],
      ['false || t', true],
      ["t ? s == 'hello' : false", true],
      ['(false ? 1 : 2) == 2', true],
      ['(true ? 1 : 2) == 1', true],
      ["(nothing ?? 'dflt') == 'dflt'", true],
      ["(s ?? 'dflt') == 'hello'", true],
      ['n IN (1, 10)', true],
      ["s IN ('a', 'b')", false],
      ['in(n, 1, 10)', true],
      ['in(n, 1, 2)', false],
      ["in(s, 'hello')", true],
      ['0x1F == 31', true],
      ['.5 == 0.5', true],
      ['(1, 2) == (1, 2)', true],
      ['nothing == nothing', true],
    ],
    params,
  );
});

test('govaluate precedence and left associativity', () => {
  check(
    [
      ['1 + 2 * 3 == 7', true],
      ['(1 + 2) * 3 == 9', true],
      ['2 ** 3 ** 2 == 64', true], // left-associative, unlike maths
      ['-2 ** 2 == 4', true], // prefix binds tighter than **
      ['10 - 4 - 3 == 3', true],
      ['64 / 4 / 2 == 8', true],
      ['1 + 6 & 3 == 3', true], // & binds looser than +: (1 + 6) & 3
      ['7 & 3 == 3', true], // comparators bind looser than bitwise ops
      ['1 << 2 + 1 == 8', true], // shift looser than +
      ['true || false && false', true], // && before ||
      ['false && true || true', true],
      ['!true == false', true],
      ['true ? false : true || true', false], // ternary is the loosest level
      ["2 > 1 == true", true],
    ],
    {},
  );
});

test('type errors are errors, not false', () => {
  const params = { s: 'x', n: 1, b: true, list: [1] };
  check(
    [
      ["'1.5' > 1", 'type'],
      ['s > 1', 'type'],
      ['b + 1', 'type'],
      ['s - 1', 'type'],
      ['-s', 'type'],
      ['!n', 'type'],
      ['~b', 'type'],
      ['n && true', 'type'],
      ['true || 1', true], // decided before the right side is checked
      ['false || 1', 'type'],
      ["1 ? 'a' : 'b'", 'type'],
      ['n =~ 1', 'type'],
      ["n IN 1", 'type'],
      ["s =~ list", 'type'],
    ],
    params,
  );
});

test('the result must be a boolean', () => {
  for (const src of ['1 + 2', "'x'", 'true ? 1 : 2', 'n', '(1, 2)']) {
    const c = compileExpr(src);
    assert.ok(c.ok, src);
    const r = evalExpr(c.value, { n: 5 });
    assert.ok(!r.ok, src);
    assert.equal(r.error.code, 'expr_type_error');
    assert.match(r.error.message, /must evaluate to a boolean/);
  }
});

test('parse errors report the 1-based column', () => {
  const table: [string, number, RegExp][] = [
    ['(5 + 10 > 9', 1, /unbalanced parenthesis/],
    ['a ==', 5, /unexpected end/],
    ['a == == b', 6, /unexpected operator '=='/],
    ['1 +* 2', 3, /invalid token: '\+\*'/],
    ['a==-1', 2, /invalid token: '==-'/], // govaluate reads symbol runs whole
    ['upper(a)', 1, /undefined function 'upper'/],
    ['Bundle.Name()', 1, /method calls are not supported/],
    ['in(a, )', 7, /unexpected '\)'/],
    ['x in (1, 2)', 3, /unexpected 'in'/], // `in` is a function, not an operator
    ["'unclosed", 1, /unclosed string literal/],
    ['[abc', 1, /unclosed parameter bracket/],
    ['x.', 1, /hanging accessor/],
    ['1.2.3 == 1', 1, /numeric value/],
    ["a =~ '(a'", 6, /missing closing \)/], // literal patterns compile up front
    ['a b', 3, /unexpected 'b'/],
    ['- -1 == 1', 3, /after prefix/],
    ['', 1, /empty expression/],
  ];
  for (const [src, column, message] of table) {
    const r = compileExpr(src);
    assert.ok(!r.ok, src);
    assert.equal(r.error.code, 'expr_parse_error', src);
    assert.equal(r.error.column, column, src);
    assert.match(r.error.message, message, src);
  }
});

test('values passed already coerced are used as they are', () => {
  // Without coerceLabels, raw strings stay strings...
  assert.equal(run("a == '10'", { a: '10' }, false), true);
  // ...and the caller can pass typed values directly.
  assert.equal(run('a == 10 && b', { a: 10, b: true }, false), true);
  // Nested values are never coerced, even with coerceLabels.
  assert.equal(run("Claim.Labels.n == '5'", { Claim: { Labels: { n: '5' } } }, true), true);
});

test('a dynamic regex that does not compile is an evaluation error', () => {
  assert.equal(run('s =~ p', { s: 'abc', p: '(' }), 'type');
  assert.equal(run('s =~ p', { s: 'abc', p: '^a' }), true);
});

test('compiled expressions list what they read and are cacheable', () => {
  const c = compileExpr("team == 'dev' && bundle.Labels.blog && [short-description] != ''");
  assert.ok(c.ok);
  assert.deepEqual(c.value.references, ['team', 'bundle.Labels.blog', 'short-description']);

  const cache = new Map<string, Result<CompiledExpr>>();
  const first = compileExprCached('a == 1', cache);
  assert.equal(compileExprCached('a == 1', cache), first);
  const broken = compileExprCached('a ==', cache);
  assert.equal(compileExprCached('a ==', cache), broken);
  assert.equal(cache.size, 2);
});

test('hostile expressions are stopped with expr_limit, and long legitimate ones still run', () => {
  // How fast is the `limits` benchmark's figure (limits.hostile_expr.ms), not an assertion here.
  for (const e of HOSTILE_EXPRESSIONS) assert.equal(run(e.source, e.params() as ExprParams), e.expect, e.what);
});

test('cyclic parameter values fail with expr_limit instead of hanging', () => {
  const cyclic: Record<string, unknown> = { name: 'x' };
  cyclic.self = cyclic;
  const other: Record<string, unknown> = { name: 'x' };
  other.self = other;
  assert.equal(run("Bundle.self.self.name == 'x'", { Bundle: cyclic }), true);
  assert.equal(run('Bundle == Other', { Bundle: cyclic, Other: other }), 'limit');
  assert.equal(run("'x' + Bundle == ''", { Bundle: cyclic }), 'limit');
});
