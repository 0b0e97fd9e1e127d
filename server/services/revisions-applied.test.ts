/**
 * The next revision diffs against what was really applied: an instance
 * whose step failed (or was skipped behind a failure) is not taken for
 * deployed, so the next revision creates it again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Actuator, ApplyStep } from '../apply/actuator';
import { runOnce } from '../apply/worker';
import { openDb, type DbHandle } from '../db/client';
import type { RevisionPlan } from '../engine/plan';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos, RevisionRepository } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { createServices, type Services } from './index';

const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: { global_ops: 'true', is_operator: 'true', org: 'it' }, provider: 'test' };

let h: DbHandle;
let repos: Repos;
let revs: RevisionRepository;
let services: Services;
before(async () => {
  h = await openDb({ pgliteDir: 'memory://' });
  repos = drizzleRepos(h.db);
  revs = repos.revisions;
  await seedDemo(repos);
  services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
});
after(() => h.close());

test('a create that failed is created again by the next revision', async () => {
  const first = await services.revisions!.ensureForGeneration(await repos.policy.head());
  const steps = (first.plan as RevisionPlan).steps;
  const doomed = steps.find((s) => s.action === 'create' && s.code)!;
  assert.ok(doomed, 'the demo creates instances with code');
  await services.revisions!.decide(sam, { revisionId: first.id, decision: 'accept' });
  const failing: Actuator = {
    name: 'failing',
    async begin() {},
    async apply(s: ApplyStep) {
      return s.key === doomed.key ? { status: 'failed' as const, error: 'cluster unreachable' } : { status: 'done' as const };
    },
    async finish() {
      return { changed: true, commit: 'c' };
    },
  };
  while (await runOnce({ revisions: revs, actuator: failing, maxAttempts: 1 })) {
    /* apply */
  }
  assert.equal((await revs.get(first.id))!.status, 'failed');
  const failedKeys = (await revs.steps(first.id)).filter((s) => s.status !== 'done').map((s) => s.key);
  assert.ok(failedKeys.includes(doomed.key));

  // An unrelated change: the next revision must still bring up what failed.
  const claim = (await repos.policy.getObject({ kind: 'claim', namespace: 'social', name: 'alice_dev' }))!;
  const text = 'kind: claim\nmetadata: {namespace: social, name: alice_dev}\nuser: Alice\nservice: twitter_stats\nlabels: {tsvisimage: demo12, retry: later}\n';
  const w = await services.policy.saveObject(sam, { id: claim, text, baseGeneration: await repos.policy.head() });
  const next = await services.revisions!.ensureForGeneration(w.generation);
  const nextSteps = (next.plan as RevisionPlan).steps;
  for (const key of failedKeys.filter((k) => steps.find((s) => s.key === k)?.action !== 'delete')) {
    assert.ok(nextSteps.some((s) => s.key === key && (s.action === 'create' || s.action === 'update')), `${key} is planned again`);
  }

  // The failed revision holds nothing back: the next one is accepted and applied.
  await services.revisions!.decide(sam, { revisionId: next.id, decision: 'accept' });
  const good: Actuator = { name: 'good', async begin() {}, async apply() { return { status: 'done' as const }; }, async finish() { return { changed: true, commit: 'd' }; } };
  while (await runOnce({ revisions: revs, actuator: good })) {
    /* apply */
  }
  assert.equal((await revs.get(next.id))!.status, 'applied');
});

test('a delete that failed is deleted again by the next revision (what still runs is not taken for gone)', async () => {
  // Everything is applied (previous test). Remove a claim: its own instances are deleted.
  const w = await services.policy.delete(sam, { ids: [{ kind: 'claim', namespace: 'social', name: 'alice_dev' }], baseGeneration: await repos.policy.head() });
  const removal = await services.revisions!.ensureForGeneration(w.generation);
  const deletes = (removal.plan as RevisionPlan).steps.filter((s) => s.action === 'delete');
  assert.ok(deletes.length > 0, 'removing the claim deletes instances');
  const stuck = deletes[0]!.key;
  await services.revisions!.decide(sam, { revisionId: removal.id, decision: 'accept' });
  const failing: Actuator = {
    name: 'failing',
    async begin() {},
    async apply(s: ApplyStep) {
      return s.key === stuck ? { status: 'failed' as const, error: 'cluster unreachable' } : { status: 'done' as const };
    },
    async finish() {
      return { changed: true, commit: 'e' };
    },
  };
  while (await runOnce({ revisions: revs, actuator: failing, maxAttempts: 1 })) {
    /* apply */
  }
  assert.equal((await revs.get(removal.id))!.status, 'failed');

  // An unrelated change: its revision must delete the instance that is still running.
  const claim = (await repos.policy.getObject({ kind: 'claim', namespace: 'social', name: 'bob_dev' }))!;
  const text = 'kind: claim\nmetadata: {namespace: social, name: bob_dev}\nuser: Bob\nservice: twitter_stats\nlabels: {tsvisimage: demo11, note: retry}\n';
  const next = await services.policy.saveObject(sam, { id: claim, text, baseGeneration: await repos.policy.head() });
  const rev = await services.revisions!.ensureForGeneration(next.generation);
  const steps = (rev.plan as RevisionPlan).steps;
  assert.ok(steps.some((s) => s.key === stuck && s.action === 'delete'), `${stuck} is deleted again: ${JSON.stringify(steps.map((s) => `${s.action} ${s.key}`))}`);
});
