import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REVISION_EVENTS, REVISION_STATUSES, isTerminal, transition, type RevisionEvent, type RevisionStatus } from './revision-state';

// Every (status, event) pair: the allowed ones and where they lead; everything else is refused.
const ALLOWED: [RevisionStatus, RevisionEvent, RevisionStatus][] = [
  ['pending', 'accept-some', 'pending'],
  ['pending', 'accept-all', 'accepted'],
  ['pending', 'reject', 'rejected'],
  ['pending', 'supersede', 'superseded'],
  ['accepted', 'start', 'applying'],
  ['applying', 'start', 'applying'],
  ['applying', 'succeed', 'applied'],
  ['applying', 'fail', 'failed'],
  ['failed', 'retry', 'applying'],
];

test('every allowed transition, and every other pair refused with a reason', () => {
  let refused = 0;
  for (const from of REVISION_STATUSES) {
    for (const ev of REVISION_EVENTS) {
      const want = ALLOWED.find(([f, e]) => f === from && e === ev);
      const got = transition(from, ev);
      if (want) assert.deepEqual(got, { ok: true, to: want[2] }, `${from} --${ev}`);
      else {
        refused++;
        assert.equal(got.ok, false, `${from} --${ev} must be refused`);
        if (!got.ok) assert.match(got.reason, /^Cannot \w+( applying)? this revision: .+\.$/);
      }
    }
  }
  assert.equal(refused, REVISION_STATUSES.length * REVISION_EVENTS.length - ALLOWED.length);
});

test('the reasons say what happened', () => {
  const r = transition('superseded', 'accept-all');
  assert.ok(!r.ok && r.reason === 'Cannot accept this revision: a newer policy change superseded it; look at the newest revision.');
  const a = transition('accepted', 'accept-all');
  assert.ok(!a.ok && a.reason.includes('already been accepted'));
});

test('terminal statuses', () => {
  assert.deepEqual(
    REVISION_STATUSES.filter(isTerminal),
    ['applied', 'rejected', 'superseded', 'no-op'],
  );
});
