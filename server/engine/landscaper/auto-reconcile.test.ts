import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkSetting, nextCronTime, parseDuration, reconcileDecision, type ReconcileMemory } from './auto-reconcile';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

describe('automaticReconcile: durations and cron', () => {
  test('Go durations', () => {
    assert.deepEqual(['5m', '24h', '1h30m', '90s', '1.5h', '250ms'].map(parseDuration), [300_000, 86_400_000, 5_400_000, 90_000, 5_400_000, 250]);
    assert.deepEqual(['', '5', 'm5', '5 m', '1d', '-5m'].map(parseDuration), [undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  test('cron: the next named minute after a time, UTC', () => {
    const next = (spec: string, after = T0) => nextCronTime(spec, after)?.toISOString();
    assert.equal(next('*/15 * * * *'), '2026-11-25T10:15:00.000Z');
    assert.equal(next('0 3 * * *'), '2026-11-26T03:00:00.000Z');
    assert.equal(next('30 9-17 * * 1-5', new Date('2026-11-27T17:45:00Z')), '2026-11-30T09:30:00.000Z', 'Friday evening → Monday morning');
    assert.equal(next('0 0 1 1 *'), '2027-01-01T00:00:00.000Z');
    assert.equal(next('0 12 13 * 5', new Date('2026-11-25T00:00:00Z')), '2026-11-27T12:00:00.000Z', 'day of month or day of week when both are set');
    assert.equal(next('0 0 31 2 *'), undefined, 'never');
    for (const bad of ['* * * *', '60 * * * *', '* 24 * * *', 'a b c d e', '*/0 * * * *', '5-2 * * * *']) assert.equal(next(bad), undefined, bad);
  });

  test('settings are checked with the field named', () => {
    assert.deepEqual(checkSetting({ interval: 'soon', cronSpec: '* *', numberOfReconciles: -1 }, 'failedReconcile'), [
      'failedReconcile.interval "soon" is not a duration such as 5m or 24h',
      'failedReconcile.cronSpec "* *" is not a five-field cron spec',
      'failedReconcile.numberOfReconciles must be a whole number',
    ]);
    assert.deepEqual(checkSetting({ interval: '10s' }, 'succeededReconcile'), ['succeededReconcile.interval 10s is under a minute']);
    assert.deepEqual(checkSetting({ interval: '5m', cronSpec: '0 * * * *', numberOfReconciles: 3 }, 'x'), []);
  });
});

describe('automaticReconcile: when a reconcile is due (reference §10)', () => {
  const failed = { failedReconcile: { interval: '10m', numberOfReconciles: 2 } };
  test('failed: at once the first time, then every interval, up to numberOfReconciles', () => {
    const first = reconcileDecision(failed, 'Failed', 7, undefined, T0);
    assert.equal(first.due, true);
    assert.deepEqual(first.memory, { generation: 7, count: 1, lastAt: T0.toISOString(), onFailed: true });
    assert.equal(reconcileDecision(failed, 'Failed', 7, first.memory, at(9)).due, false);
    const second = reconcileDecision(failed, 'Failed', 7, first.memory, at(10));
    assert.equal(second.due, true);
    assert.equal(second.memory!.count, 2);
    const done = reconcileDecision(failed, 'Failed', 7, second.memory, at(60));
    assert.equal(done.due, false);
    assert.match(done.why, /all 2 automatic reconciles done/);
  });

  test('failed without an interval: every 5 minutes; unlimited without numberOfReconciles', () => {
    let m: ReconcileMemory | undefined;
    let count = 0;
    for (let minute = 0; minute <= 30; minute++) {
      const d = reconcileDecision({ failedReconcile: {} }, 'Failed', 1, m, at(minute));
      if (d.memory) m = d.memory;
      if (d.due) count++;
    }
    assert.equal(count, 7, 'minutes 0, 5, …, 30');
  });

  test('succeeded: the first look starts the clock; then every interval (default 24h) or per cron', () => {
    const look = reconcileDecision({ succeededReconcile: {} }, 'Succeeded', 3, undefined, T0);
    assert.equal(look.due, false);
    assert.equal(look.memory!.count, 0);
    assert.equal(reconcileDecision({ succeededReconcile: {} }, 'Succeeded', 3, look.memory, at(24 * 60 - 1)).due, false);
    assert.equal(reconcileDecision({ succeededReconcile: {} }, 'Succeeded', 3, look.memory, at(24 * 60)).due, true);
    const cron = { succeededReconcile: { cronSpec: '0 * * * *', interval: '5m' } };
    assert.equal(reconcileDecision(cron, 'Succeeded', 3, look.memory, at(59)).due, false, 'cron wins over interval');
    assert.equal(reconcileDecision(cron, 'Succeeded', 3, look.memory, at(60)).due, true);
  });

  test('a new generation or a flip between failed and succeeded starts over; no setting, no reconcile', () => {
    const m = reconcileDecision(failed, 'Failed', 7, undefined, T0).memory!;
    const later = { ...m, count: 2 };
    assert.equal(reconcileDecision(failed, 'Failed', 8, later, at(1)).due, true, 'a new generation: failed again counts from 1');
    assert.equal(reconcileDecision({ ...failed, succeededReconcile: {} }, 'Succeeded', 7, later, at(1)).memory!.count, 0, 'now succeeded: the clock starts');
    assert.equal(reconcileDecision(undefined, 'Failed', 7, undefined, T0).due, false);
    assert.equal(reconcileDecision({ failedReconcile: { numberOfReconciles: 0 } }, 'Failed', 7, undefined, T0).due, false, 'zero reconciles: none');
    assert.equal(reconcileDecision(failed, 'Succeeded', 7, undefined, T0).due, false);
  });
});
