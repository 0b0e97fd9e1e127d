import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evalCriteria, validateCriteria, type Criteria } from './criteria';
import type { CompiledExpr } from './govaluate';
import type { Result } from './result';

const LABELS = { org: 'dev', team: 'mobile-dev', is_operator: 'true', replicas: '3' };

function outcome(criteria: Criteria | undefined) {
  const r = evalCriteria(criteria, LABELS, new Map(), { coerceLabels: true });
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value;
}

test('criteria decide in require-all, require-none, require-any order with a reason', () => {
  const table: [Criteria | undefined, boolean, string][] = [
    [undefined, true, 'no criteria (always matches)'],
    [{}, true, 'no criteria (always matches)'],
    [{ 'require-all': [], 'require-any': null }, true, 'no criteria (always matches)'],
    [{ 'require-all': ["org == 'dev'"] }, true, "require-all `org == 'dev'` was true"],
    [{ 'require-all': ["org == 'dev'", 'replicas > 2'] }, true, 'all 2 require-all expressions were true'],
    [{ 'require-all': ["org == 'dev'", "org == 'it'"] }, false, "require-all `org == 'it'` was false"],
    [{ 'require-all': ["missing == 'x'"] }, false, "require-all `missing == 'x'` was false (`missing` is not set)"],
    [{ 'require-none': ["team == 'mobile-dev'"] }, false, "require-none `team == 'mobile-dev'` was true"],
    [{ 'require-none': ["team == 'web'"] }, true, "require-none `team == 'web'` was false"],
    [{ 'require-none': ["team == 'web'", 'replicas > 5'] }, true, 'no require-none expression was true'],
    [{ 'require-any': ["org == 'it'", 'is_operator'] }, true, 'require-any `is_operator` was true'],
    [{ 'require-any': ["org == 'it'"] }, false, "require-any `org == 'it'` was false"],
    [{ 'require-any': ["org == 'it'", 'replicas > 5'] }, false, 'none of the 2 require-any expressions was true'],
    [
      { 'require-all': ['is_operator'], 'require-none': ["org == 'it'"] },
      true,
      "require-all `is_operator` was true and require-none `org == 'it'` was false",
    ],
    // require-none is checked before require-any.
    [{ 'require-none': ['is_operator'], 'require-any': ['is_operator'] }, false, 'require-none `is_operator` was true'],
  ];
  for (const [criteria, matched, reason] of table) {
    assert.deepEqual(outcome(criteria), { matched, reason }, JSON.stringify(criteria));
  }
});

test('evaluation stops at the first decisive expression', () => {
  // The broken expressions after the decisive one are never compiled or run.
  assert.equal(outcome({ 'require-all': ["org == 'it'", 'broken ((('] }).matched, false);
  assert.equal(outcome({ 'require-none': ['is_operator', "'a' > 1"] }).matched, false);
  assert.equal(outcome({ 'require-any': ['is_operator', "'a' > 1"] }).matched, true);
});

test('expression errors propagate with the section, index and expression text', () => {
  const r = evalCriteria({ 'require-all': ['is_operator'], 'require-any': ["org == 'x'", "org > 1"] }, LABELS, undefined, {
    coerceLabels: true,
  });
  assert.ok(!r.ok);
  assert.equal(r.error.code, 'expr_type_error');
  assert.equal(r.error.path, 'require-any[1]');
  assert.match(r.error.message, /^require-any `org > 1`: /);

  const parse = evalCriteria({ 'require-none': ['a =='] }, LABELS);
  assert.ok(!parse.ok);
  assert.equal(parse.error.code, 'expr_parse_error');
  assert.equal(parse.error.column, 5);
  assert.equal(parse.error.path, 'require-none[0]');
});

test('the expression cache is filled and reused', () => {
  const cache = new Map<string, Result<CompiledExpr>>();
  const criteria = { 'require-all': ["org == 'dev'"], 'require-none': ["team == 'x'"] };
  evalCriteria(criteria, LABELS, cache, { coerceLabels: true });
  evalCriteria(criteria, { org: 'dev', team: 'x' }, cache);
  assert.deepEqual([...cache.keys()], ["org == 'dev'", "team == 'x'"]);
});

test('validateCriteria reports every broken expression', () => {
  const errors = validateCriteria({
    'require-all': ['ok == 1', 'bad =='],
    'require-none': ['upper(x)'],
    'require-any': ['fine'],
  });
  assert.deepEqual(
    errors.map((e) => [e.path, e.code]),
    [
      ['require-all[1]', 'expr_parse_error'],
      ['require-none[0]', 'expr_parse_error'],
    ],
  );
  assert.deepEqual(validateCriteria(undefined), []);
});
