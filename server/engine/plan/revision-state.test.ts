import assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgesOf, IllegalTransition, INITIAL_STATUSES, isTerminal, mustTransition, REVISION_EVENTS, REVISION_STATUSES, transition, type RevisionEvent, type RevisionStatus } from './revision-state';

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

test('an illegal transition is an error where it cannot be refused politely', () => {
  assert.equal(mustTransition('applying', 'succeed'), 'applied');
  assert.throws(() => mustTransition('applied', 'start'), (e: unknown) => e instanceof IllegalTransition && e.from === 'applied' && e.event === 'start' && /^Cannot apply this revision: it has already been applied\.$/.test(e.message));
  assert.throws(() => mustTransition('no-op', 'accept-all'), IllegalTransition);
});

test('every event has one target, so storage can move revisions in bulk by the table', () => {
  for (const ev of REVISION_EVENTS) {
    const { from, to } = edgesOf(ev);
    assert.deepEqual(from, ALLOWED.filter(([, e]) => e === ev).map(([f]) => f), ev);
    for (const f of from) assert.deepEqual(transition(f, ev), { ok: true, to }, `${f} --${ev}`);
  }
  assert.deepEqual(edgesOf('supersede'), { from: ['pending'], to: 'superseded' });
});

test('a revision is born pending, or no-op when it changes nothing; both are statuses of the machine', () => {
  assert.deepEqual([...INITIAL_STATUSES], ['pending', 'no-op']);
  for (const s of INITIAL_STATUSES) assert.ok(REVISION_STATUSES.includes(s));
});
