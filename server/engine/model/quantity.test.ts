import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatGiB, formatVcpu, isQuantity, parseBytes, parseCpuMillis } from './quantity';

const ok = (r: { ok: boolean; value?: number; error?: string }) => {
  assert.ok(r.ok, r.error);
  return r.value;
};

describe('Kubernetes quantities', () => {
  test('CPU in integer millicores', () => {
    const cases: [unknown, number][] = [
      ['100m', 100],
      ['1', 1000],
      ['0.1', 100],
      [0.1, 100],
      ['1.5', 1500],
      [2, 2000],
      ['8000m', 8000],
      ['.5', 500],
      ['2.', 2000],
      ['+3', 3000],
      ['1e3', 1_000_000],
      ['1E-3', 1],
      ['0.5m', 1], // rounded up, as Kubernetes does
      ['250000u', 250],
      ['1k', 1_000_000],
      ['0', 0],
    ];
    for (const [q, want] of cases) assert.equal(ok(parseCpuMillis(q)), want, String(q));
  });

  test('bytes in integers, binary and decimal suffixes', () => {
    const cases: [unknown, number][] = [
      ['100Mi', 100 * 1024 ** 2],
      ['32Gi', 32 * 1024 ** 3],
      ['1.5Gi', 1.5 * 1024 ** 3],
      ['1.1Gi', Math.ceil(1.1 * 1024 ** 3)],
      ['1G', 1e9],
      ['128974848', 128974848],
      [1024, 1024],
      ['129e6', 129e6],
      ['123Mi', 128974848],
      ['2Ti', 2 * 1024 ** 4],
      ['1Pi', 1024 ** 5],
    ];
    for (const [q, want] of cases) assert.equal(ok(parseBytes(q)), want, String(q));
    // Decimal text is scaled exactly (BigInt), not through a binary fraction: 0.3 × 10 is 3.
    assert.equal(ok(parseCpuMillis('0.3'))! * 10, ok(parseCpuMillis('3')));
  });

  test('errors are data with a clear message', () => {
    for (const bad of ['', 'abc', '1 Gi', '1GB', '1gi', '-1', '1e', 'Gi', '1.2.3', -5, Number.NaN, Infinity, true, null, {}, ['1']]) {
      const r = parseBytes(bad);
      assert.equal(r.ok, false, `${JSON.stringify(bad)} should fail`);
      if (!r.ok) assert.match(r.error, /Kubernetes quantity|too large/);
      assert.equal(isQuantity(bad), false, JSON.stringify(bad));
    }
    const huge = parseBytes('1E');
    assert.deepEqual(huge, { ok: false, error: '"1E" is too large' });
    assert.equal(parseBytes('9Pi').ok, false);
    assert.equal(parseBytes('7Pi').ok, true);
    assert.equal(isQuantity('1E'), true, 'syntax is fine; range is checked separately');
  });

  test('report formats: vCPU up to 3 decimals, GiB with 2', () => {
    assert.equal(formatVcpu(1250), '1.25');
    assert.equal(formatVcpu(2000), '2');
    assert.equal(formatVcpu(1), '0.001');
    assert.equal(formatVcpu(-500), '-0.5');
    assert.equal(formatGiB(1.5 * 1024 ** 3), '1.50');
    assert.equal(formatGiB(100 * 1024 ** 2), '0.10');
  });
});
