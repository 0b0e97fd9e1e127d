/**
 * GitOps on a remote repository served by real git (`git http-backend` on
 * loopback), with several workers each keeping a scratch clone: revisions
 * land in order as one line of history, one commit each, whichever worker
 * applied them; a push the remote rejects (someone pushed first, or the
 * branch is protected) is retried on the remote's newest commit; a worker
 * killed after its push does not commit the revision twice.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDb, type DbHandle } from '../../db/client';
import type { RevisionPlan } from '../../engine/plan';
import { DrizzleRevisionRepository } from '../../repo/revisions';
import { startGitServer, type GitServer } from '../../testing/git-server';
import type { ApplyStep } from '../actuator';
import { runOnce, StopWorker } from '../worker';
import { GitOpsActuator, readTrackedFiles } from './actuator';
import { rawStep } from '../../testing/gitops-steps';

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  n: "${name}"\n`;
const stepFor = (name: string, index = 0): ApplyStep => rawStep(configMap(name), { index, key: `system#k8s-example#west#main#${name}`, deployName: name, claims: ['main/c'], waitsFor: [] } as Partial<ApplyStep>);

describe('GitOps on a remote repository', () => {
  let h: DbHandle;
  let revs: DrizzleRevisionRepository;
  let remote: GitServer;
  const scratch: string[] = [];
  const clone = (remoteUrl: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-scratch-'));
    scratch.push(dir);
    return new GitOpsActuator(dir, { remote: remoteUrl });
  };
  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    revs = new DrizzleRevisionRepository(h.db);
  });
  after(async () => {
    await h.close();
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  });

  let generation = 0;
  let accepted: number | null = null;
  async function acceptedRevision(names: string[]): Promise<number> {
    const plan = { steps: names.map((n, i) => stepFor(n, i)), actions: [] } as unknown as RevisionPlan;
    // Each is computed against the one accepted before it, as the service makes them.
    const created = await revs.insert({ generation: ++generation, baseRevisionId: accepted, status: 'pending', author: 'a', rollbackOf: null, counts: {}, cost: {}, quota: [], plan, sections: [{ namespace: 'main', overMarks: false, counts: {} }] });
    assert.equal(created.status, 'created');
    const id = created.status === 'created' ? created.revision.id : -1;
    assert.equal((await revs.decide({ revisionId: id, namespaces: ['main'], decision: 'accept', actor: 'ops' })).status, 'ok');
    accepted = id;
    return id;
  }

  test('two workers, twelve revisions taken at random: one line of history, one commit per revision, in order', async () => {
    remote = await startGitServer();
    try {
      const workers = [clone(remote.url), clone(remote.url)];
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) ids.push(await acceptedRevision([`cm-${i}`]));
      let turns = 0;
      for (;;) {
        const w = workers[Math.floor(Math.random() * 2)]!;
        if (!(await runOnce({ revisions: revs, actuator: w, leaseMs: 60_000, backoffMs: 1, workerId: `w${workers.indexOf(w)}` }))) break;
        if (++turns > 100) assert.fail('the workers did not finish');
      }
      for (const id of ids) assert.equal((await revs.get(id))!.status, 'applied', JSON.stringify([await revs.jobsFor(id), (await revs.events(id)).map((e) => e.message)]));
      assert.deepEqual(remote.subjects(), ids.map((id, i) => `Apply revision ${id} (generation ${i + 1})`));
      assert.equal(remote.merges(), 0);
      // The remote's tip holds every ConfigMap (a fresh clone sees it all).
      const reader = clone(remote.url);
      await reader.begin({ revisionId: 0, generation: 0, accepters: [], author: '' });
      const files = await readTrackedFiles(reader.dir);
      assert.equal(Object.values(files).filter((c) => /kind: ConfigMap/.test(c)).length, 12, 'one file per instance');
      const all = Object.values(files).join('\n');
      for (let i = 0; i < 12; i++) assert.ok(all.includes(`name: cm-${i}\n`), `cm-${i} is at the tip`);
    } finally {
      await remote.close();
    }
  });

  test('a push the remote rejects because another worker pushed first is applied again on top of that commit', async () => {
    remote = await startGitServer();
    try {
      const a = clone(remote.url);
      const b = clone(remote.url);
      const first = await acceptedRevision(['alpha']);
      // While worker A applies, worker B (its lease run out, say) pushes a commit of its own.
      const r = await runOnce({
        revisions: revs,
        actuator: a,
        backoffMs: 1,
        afterStep: async () => {
          await b.begin({ revisionId: 999, generation: 999, accepters: [], author: '' });
          await b.apply(stepFor('beta'), { revisionId: 999, generation: 999, accepters: [], author: '' });
          await b.finish({ revisionId: 999, generation: 999, accepters: [], author: '', purpose: 'Someone else first' }, { done: 1, failed: 0, skipped: 0 });
        },
      });
      assert.equal(r, true);
      const job = (await revs.jobsFor(first))[0]!;
      assert.equal(job.status, 'queued');
      assert.match(job.lastError!, /refused the push .*applied again on the remote's newest commit/);
      assert.ok((await revs.events(first)).some((e) => e.kind === 'apply-error' && /refused the push/.test(e.message)));
      await new Promise((ok) => setTimeout(ok, 10));
      assert.equal(await runOnce({ revisions: revs, actuator: a, backoffMs: 1 }), true);
      assert.equal((await revs.get(first))!.status, 'applied');
      assert.deepEqual(remote.subjects(), ['Someone else first', `Apply revision ${first} (generation ${generation})`]);
      assert.equal(remote.merges(), 0);
      const all = Object.values(await readTrackedFiles(a.dir)).join('\n');
      assert.ok(all.includes('name: alpha\n') && all.includes('name: beta\n'), 'both are at the tip');
    } finally {
      await remote.close();
    }
  });

  test('a worker killed after its push: the next one finds the revision applied and commits nothing more', async () => {
    remote = await startGitServer();
    try {
      const id = await acceptedRevision(['gamma']);
      const dying = clone(remote.url);
      const killedAfterPush = Object.assign(Object.create(Object.getPrototypeOf(dying)), dying, {
        finish: async (...args: Parameters<GitOpsActuator['finish']>) => {
          await GitOpsActuator.prototype.finish.apply(dying, args);
          throw new StopWorker('killed after the push');
        },
      }) as GitOpsActuator;
      await assert.rejects(runOnce({ revisions: revs, actuator: killedAfterPush, leaseMs: 50 }), StopWorker);
      assert.equal(remote.subjects().length, 1);
      await new Promise((ok) => setTimeout(ok, 80)); // the lease runs out
      // A lease older than the claimer's lease time counts as abandoned.
      assert.equal(await runOnce({ revisions: revs, actuator: clone(remote.url), leaseMs: 50 }), true);
      assert.equal((await revs.get(id))!.status, 'applied');
      assert.deepEqual(remote.subjects(), [`Apply revision ${id} (generation ${generation})`]);
      assert.ok((await revs.events(id)).some((e) => e.kind === 'applied' && /no new commit \(already applied\)/.test(e.message)));
    } finally {
      await remote.close();
    }
  });

  test('a remote that refuses every push: a clear event, retries with backoff, applied once it accepts again', async () => {
    remote = await startGitServer();
    try {
      const w = clone(remote.url);
      const id = await acceptedRevision(['delta']);
      remote.refusePushes(true, 'main is protected');
      assert.equal(await runOnce({ revisions: revs, actuator: w, backoffMs: 1 }), true);
      const job = (await revs.jobsFor(id))[0]!;
      assert.equal(job.status, 'queued');
      assert.match(job.lastError!, /refused the push/);
      assert.equal((await revs.get(id))!.status, 'applying');
      assert.deepEqual(remote.subjects(), []);
      remote.refusePushes(false);
      await new Promise((ok) => setTimeout(ok, 10));
      assert.equal(await runOnce({ revisions: revs, actuator: w, backoffMs: 1 }), true);
      assert.equal((await revs.get(id))!.status, 'applied');
      assert.equal(remote.subjects().length, 1);
    } finally {
      await remote.close();
    }
  });
});
