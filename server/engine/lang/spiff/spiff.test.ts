import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { evaluateDataMappings, evaluateSpiff, evaluateSpiffExpression, parseSpiffExpression } from './index';

const bindings = {
  track1: 'A',
  n: 7,
  list: [1, 2, 3],
  m: { 'a.b': 'dotted', x: { y: 'deep' } },
  empty: null,
  imports: { mapToList: { foo: 'bar', a: 'b' } },
};

describe('spiff expressions', () => {
  const cases: [string, unknown][] = [
    ['(( track1 "B" ))', 'AB'],
    ['(( "(" track1 "|" track1 ")D" ))', '(A|A)D'],
    ['(( "n=" n ))', 'n=7'],
    ['(( n + 1 ))', 8],
    ['(( n - 2 * 3 ))', 1],
    ['(( n / 2 ))', 3],
    ['(( n % 4 ))', 3],
    ['(( -n + 10 ))', 3],
    ['(( list[1] ))', 2],
    ['(( list.[2] ))', 3],
    ['(( list [4] ))', [1, 2, 3, 4]],
    ['(( m["a.b"] ))', 'dotted'],
    ['(( m.x.y ))', 'deep'],
    ['(( missing || "default" ))', 'default'],
    ['(( empty || 5 ))', 5],
    ['(( m.nope.deeper || ~ ))', null],
    ['(( n > 5 ? "big" : "small" ))', 'big'],
    ['(( n == 7 -and !false ))', true],
    ['(( valid(missing) ))', false],
    ['(( valid(track1) ))', true],
    ['(( defined(empty) ))', true],
    ['(( [1, n] ))', [1, 7]],
    ['(( { "k" = track1, j = 2 } ))', { k: 'A', j: 2 }],
    ['(( sum[list|0|s,x|-> s + x] ))', 6],
    ['(( map[list|x|-> x * 2] ))', [2, 4, 6]],
    ['(( select[list|x|-> x > 1] ))', [2, 3]],
    ['(( sum[imports.mapToList|[]|s,k,v|-> s [{"key" = k, "value" = v}]] ))', [{ key: 'a', value: 'b' }, { key: 'foo', value: 'bar' }]],
    ['(( join(",", list) ))', '1,2,3'],
    ['(( length(m) ))', 2],
    ['(( upper(track1) lower("B") ))', 'Ab'],
    ['(( format("%s-%d", track1, n) ))', 'A-7'],
  ];
  for (const [src, want] of cases) {
    test(src, () => {
      const r = evaluateSpiffExpression(src, bindings);
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.value, want);
    });
  }

  test('a lambda bound in the document can be called', () => {
    const r = evaluateSpiff({ f: '(( |x|-> x "!" ))', out: '(( f("hi") ))' }, {});
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal((r.value as { out: string }).out, 'hi!');
  });
});

describe('spiff documents', () => {
  test('references to sibling and enclosing nodes, deletion and merges', () => {
    const doc = parse(`
base: { a: 1, b: 2 }
merged:
  <<<: (( base ))
  b: 3
list:
  - 0
  - <<<: (( [1, 2] ))
  - (( ~~ ))
nested:
  inner: (( base.a + outer ))
outer: 10
gone: (( ~~ ))
literal: "((! not an expression ))"
`);
    const r = evaluateSpiff(doc, {});
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.value, {
      base: { a: 1, b: 2 },
      merged: { a: 1, b: 3 },
      list: [0, 1, 2],
      nested: { inner: 11 },
      outer: 10,
      literal: '(( not an expression ))',
    });
  });

  test('import execution of the corpus: map to list, errors only when given', () => {
    const doc = parse(`errors:
  - <<<: (( imports.errors || ~~ ))
bindings:
  mapToList: (( valid( imports.mapToList ) ? sum[imports.mapToList|[]|s,k,v|-> s [{"key" = k, "value" = v}]] :~~ ))
`);
    assert.deepEqual(evaluateSpiff(doc, { imports: {} }), { ok: true, value: { errors: [], bindings: {} } });
    assert.deepEqual(evaluateSpiff(doc, { imports: { errors: ['boom'] } }), { ok: true, value: { errors: ['boom'], bindings: {} } });
  });

  test('data mappings are separate documents: one key cannot see another', () => {
    const r = evaluateDataMappings({ a: '(( x ))', b: '(( a ))' }, { x: 1 });
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.error.message.startsWith("b: 'a' not found"), JSON.stringify(r));
    assert.deepEqual(evaluateDataMappings({ a: '(( x ))', gone: '(( ~~ ))', lit: 'plain' }, { x: 1 }), { ok: true, value: { a: 1, lit: 'plain' } });
  });
});

describe('spiff errors are data with the expression and position', () => {
  const cases: [unknown, string, string, number | undefined][] = [
    [{ a: '(( nope ))' }, 'spiff_eval_error', "a: 'nope' not found in (( nope ))", 1],
    [{ a: '(( 1 + ))' }, 'spiff_parse_error', 'a: unexpected end of expression in (( 1 + ))', 5],
    [{ a: '(( "x ))' }, 'spiff_parse_error', 'a: unterminated string in (( "x ))', 1],
    [{ a: '(( 1 / 0 ))' }, 'spiff_eval_error', 'a: division by zero in (( 1 / 0 ))', 3],
    [{ a: '(( "s" + 1 ))' }, 'spiff_eval_error', 'a: operator + needs numbers, got string and int in (( "s" + 1 ))', 5],
    [{ a: '(( read("/etc/passwd") ))' }, 'spiff_unsupported', 'a: function read() is not supported in data mappings in (( read("/etc/passwd") ))', 5],
    [{ a: '(( b ))', b: '(( a ))' }, 'spiff_eval_error', 'b: cyclic reference to a in (( a ))', 0],
    [{ '&temporary': 1 }, 'spiff_unsupported', '&temporary: markers such as &temporary are not supported', undefined],
  ];
  for (const [doc, code, message, position] of cases) {
    test(message, () => {
      const r = evaluateSpiff(doc, {});
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.code, code);
      assert.equal(r.error.message, message);
      assert.equal(r.error.position, position);
    });
  }

  test('parseSpiffExpression reports the offset', () => {
    const r = parseSpiffExpression('a ? b');
    assert.deepEqual(r.ok ? null : [r.error.code, r.error.position], ['spiff_parse_error', 5]);
  });
});

describe('spiff budget', () => {
  test('a doubling string stops at the output limit', () => {
    const doc: Record<string, string> = { s0: 'xxxxxxxxxx' };
    for (let i = 1; i < 40; i++) doc[`s${i}`] = `(( s${i - 1} s${i - 1} ))`;
    const r = evaluateSpiff(doc, {}, { maxOutput: 10_000 });
    assert.equal(r.ok ? 'ok' : r.error.code, 'spiff_limit');
  });
  test('a large fold stops at the step limit', () => {
    const r = evaluateSpiffExpression('(( sum[big|0|s,x|-> s + x] ))', { big: Array.from({ length: 5000 }, (_, i) => i) }, { maxSteps: 1000 });
    assert.equal(r.ok ? 'ok' : r.error.code, 'spiff_limit');
    assert.ok(!r.ok && /more than 1000 steps/.test(r.error.message));
  });
});
