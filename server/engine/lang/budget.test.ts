/**
 * One budget interface for every language the server evaluates: each one
 * takes the host's deadline (the engine reads no clock: the host hands it
 * one) and stops with its own error when it passes, as it runs; and the
 * regular expressions Capact's rules and schemas match are held to a work
 * budget like govaluate's. DM's Jinja and Python have their own tests
 * (dm/dm.test.ts, server/dm-python).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkConstraints } from '../capact/evaluate';
import { validateJsonSchema } from '../capact/schema';
import type { Deadline } from './budget';
import { compileExpr, compileTemplate, evalExpr, renderTemplate } from './index';
import { evaluateSelector } from './selector';
import { evaluateSpiffExpression } from './spiff';

/** A deadline already past on a clock that never moves: whatever runs long enough to look at the clock stops. */
const passed: Deadline = { now: () => 1, at: 0, ms: 250 };
/** One far away: the same work finishes. */
const later: Deadline = { now: () => 0, at: 1, ms: 250 };

describe('every language stops at the host’s deadline, with its own error', () => {
  test('Aptomi expressions (govaluate)', () => {
    // Enough nodes to be evaluated that the clock is looked at (every 256 steps).
    const compiled = compileExpr(Array.from({ length: 150 }, (_, i) => `a == ${i}`).join(' || '), { maxDepth: 1000 });
    assert.ok(compiled.ok, JSON.stringify(compiled));
    const r = evalExpr(compiled.value, { a: -1 }, { deadline: passed });
    assert.deepEqual(r.ok ? null : { code: r.error.code, message: r.error.message }, { code: 'expr_limit', message: 'expression evaluation ran out of its time (250 ms)' });
    assert.deepEqual(evalExpr(compiled.value, { a: -1 }, { deadline: later }), { ok: true, value: false });
  });

  test('Go templates', () => {
    const compiled = compileTemplate('{{ range .L }}x{{ end }}', { name: 'loop' });
    assert.ok(compiled.ok);
    const data = { L: Array.from({ length: 1000 }, (_, i) => i) };
    const r = renderTemplate(compiled.value, data, { deadline: passed });
    assert.equal(r.ok ? null : r.error.code, 'template_limit');
    assert.match(r.ok ? '' : r.error.message, /^template "loop": template ran out of its time \(250 ms\)$/);
    assert.equal(renderTemplate(compiled.value, data, { deadline: later }).ok, true);
  });

  test("Landscaper's spiff", () => {
    const bindings = { imports: { list: Array.from({ length: 1000 }, (_, i) => i) } };
    const r = evaluateSpiffExpression('sum[imports.list|0|s,x|-> s + x]', bindings, { deadline: passed });
    assert.equal(r.ok ? null : r.error.code, 'spiff_limit');
    assert.match(r.ok ? '' : r.error.message, /evaluation ran out of its time \(250 ms\)/);
    assert.deepEqual(evaluateSpiffExpression('sum[imports.list|0|s,x|-> s + x]', bindings, { deadline: later }), { ok: true, value: 499500 });
  });

  test('Axebow selectors', () => {
    const r = evaluateSelector(['$.user.role', 'owner', '::eq'], { user: { role: 'owner' } }, false, { deadline: passed });
    assert.equal(r.value, false);
    assert.equal(r.error?.code, 'OverBudget');
    assert.match(r.reason ?? '', /the run ran out of its time \(250 ms\)/);
    assert.equal(evaluateSelector(['$.user.role', 'owner', '::eq'], { user: { role: 'owner' } }, false, { deadline: later }).value, true);
  });
});

describe("Capact's regular expressions have a work budget", () => {
  // RE2 is linear, but input length × program size is still seconds for a megabyte against a large pattern.
  const pattern = `^(${Array.from({ length: 60 }, (_, i) => `w${i}`).join('|')}|a)+$`;

  test('a schema pattern too costly to match against a value refuses the value, saying why', () => {
    const errors = validateJsonSchema({ type: 'string', pattern }, 'a'.repeat(1 << 20));
    assert.deepEqual(errors, [`(root): Is too long to check against pattern '${pattern}'`]);
    assert.deepEqual(validateJsonSchema({ type: 'string', pattern }, 'aaaa'), []);
  });

  test("a policy's path constraint too costly to match excludes the Implementation, saying why", () => {
    const impl = { path: `cap.implementation.${'a'.repeat(1 << 20)}` } as never;
    const verdict = checkConstraints(impl, { path: `^cap\\.implementation\\.(${Array.from({ length: 60 }, (_, i) => `w${i}`).join('|')}|a)+$` }, { existing: new Set(), injected: new Set() });
    assert.equal(verdict.pass, false);
    assert.match(verdict.pass ? '' : verdict.reason, /^path is too long to match against pattern/);
  });
});
