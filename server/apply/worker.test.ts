/**
 * The worker on failures: a failing step is retried with backoff, then
 * marked failed; steps that wait for it are skipped and reported; the rest
 * is applied; the revision ends `failed` with the counts in its events.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openDb, type DbHandle } from '../db/client';
import { DrizzleRevisionRepository } from '../repo/revisions';
import type { Actuator, ApplyStep } from './actuator';
import { runOnce } from './worker';

const step = (index: number, key: string, waitsFor: number[] = []) => ({
  index,
  action: 'create' as const,
  key,
  namespace: 'main',
  deployName: `a-${key}`,
  instanceId: '1',
  owner: 's',
  component: key,
  target: { clusterNamespace: 'system', cluster: 'c', namespace: 'default' },
  code: null,
  claims: ['main/c'],
  waitsFor,
});

class FlakyActuator implements Actuator {
  readonly name = 'test';
  readonly applied: string[] = [];
  finished = 0;
  constructor(private readonly failing: Set<string>) {}
  async begin() {}
  async apply(s: ApplyStep) {
    if (this.failing.has(s.key)) return { status: 'failed' as const, error: `cannot create ${s.key}` };
    this.applied.push(s.key);
    return { status: 'done' as const };
  }
  async finish() {
    this.finished++;
    return { changed: true, commit: 'abc' };
  }
}

let h: DbHandle;
let revs: DrizzleRevisionRepository;
before(async () => {
  h = await openDb({ pgliteDir: 'memory://' });
  revs = new DrizzleRevisionRepository(h.db);
});
after(() => h.close());

test('a failing step is retried with backoff, then fails; its dependants are skipped; the rest applies', async () => {
  const plan = { steps: [step(0, 'db'), step(1, 'app', [0]), step(2, 'web', [1]), step(3, 'cache')], actions: [] };
  const created = await revs.insert({ generation: 1, baseRevisionId: null, status: 'pending', author: 'a', rollbackOf: null, counts: {}, cost: {}, quota: [], plan, sections: [{ namespace: 'main', overMarks: false, counts: {} }] });
  assert.equal(created.status, 'created');
  if (created.status !== 'created') return;
  const id = created.revision.id;
  const decided = await revs.decide({ revisionId: id, namespaces: ['main'], decision: 'accept', actor: 'ops' });
  assert.equal(decided.status, 'ok');

  const actuator = new FlakyActuator(new Set(['db']));
  const opts = { revisions: revs, actuator, backoffMs: 1, maxAttempts: 3, leaseMs: 60_000 };
  // Attempts 1 and 2: the step fails and the job is put back with a backoff.
  assert.equal(await runOnce(opts), true);
  let job = (await revs.jobsFor(id))[0]!;
  assert.equal(job.status, 'queued');
  assert.match(job.lastError!, /cannot create db/);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(await runOnce(opts), true);
  await new Promise((r) => setTimeout(r, 20));
  // Attempt 3: the step fails for good; app and web wait for it and are skipped; cache applies.
  assert.equal(await runOnce(opts), true);
  const steps = await revs.steps(id);
  assert.deepEqual(steps.map((s) => [s.key, s.status]), [['db', 'failed'], ['app', 'skipped'], ['web', 'skipped'], ['cache', 'done']]);
  assert.deepEqual(actuator.applied, ['cache']);
  assert.equal(actuator.finished, 1);
  assert.equal((await revs.get(id))!.status, 'failed');
  job = (await revs.jobsFor(id))[0]!;
  assert.equal(job.status, 'failed');
  const events = (await revs.events(id)).map((e) => e.kind);
  assert.deepEqual(events.filter((k) => k === 'step-retry').length, 2);
  assert.ok(events.includes('step-failed') && events.includes('step-skipped') && events.at(-1) === 'failed');
  const msg = (await revs.events(id)).find((e) => e.kind === 'step-skipped')!.message;
  assert.match(msg, /Skipped create app: it depends on step 0, which did not succeed/);
  assert.equal((await revs.instanceStates(['db']))[0]!.status, 'failed');
  assert.equal((await revs.head()).appliedRevisionId, null, 'a failed revision is not the applied state');
  assert.equal(await runOnce(opts), false, 'nothing left to do');
});
