/**
 * Revisions end to end on PGlite and on a real PostgreSQL server: computed
 * per generation, decided per namespace section with rights, races won by
 * exactly one, applied by the worker to a git repository, resumed after a
 * crash with no step lost or doubled, rolled back.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { commitLog, GitOpsActuator, readTrackedFiles } from '../apply/gitops/actuator';
import { runOnce, StopWorker } from '../apply/worker';
import { eq } from 'drizzle-orm';
import type { DbHandle } from '../db/client';
import { deploymentHead, revisions, revisionSections } from '../db/schema';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos, RevisionRepository } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { backends } from '../testing/backends';
import type { Actor } from './actor';
import { AppError } from '../errors';
import { instanceKey } from '../engine/state/key';
import { decodeView } from '../engine/graph/view';
import { shortKey } from '../../components/revisions/format';
import { createServices, type Services } from './index';
import { loadLocalUsers } from '../auth/users';

const person = (name: string): Actor => {
  const u = loadLocalUsers().find((x) => x.name === name)!;
  return { id: `local:${name}`, name, labels: u.labels, provider: 'test' };
};
const alice = person('Alice');
const john = person('John');
const frank = person('Frank');
const sam = person('Sam');

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (e) {
    if (e instanceof AppError) return `${e.code}: ${e.message}`;
    throw e;
  }
}

for (const backend of backends()) {
  describe(`revisions on ${backend.name}`, () => {
    let h: DbHandle & { url?: string };
    let repos: Repos;
    let revs: RevisionRepository;
    let services: Services;
    const dirs: string[] = [];
    const tempDir = () => {
      const d = mkdtempSync(join(tmpdir(), 'keelson-rev-'));
      dirs.push(d);
      return d;
    };

    before(async () => {
      h = await backend.open();
      repos = drizzleRepos(h.db);
      revs = repos.revisions;
      await seedDemo(repos);
      services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    });
    after(async () => {
      await h.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    const svc = () => services.revisions!;
    /** Save a change to a claim's labels, as a user would in the editor. */
    const editClaim = async (who: Actor, name: string, from: string, to: string) => {
      const head = await repos.policy.head();
      const obj = (await repos.policy.getObject({ kind: 'claim', namespace: 'social', name }))!;
      const w = await services.policy.saveObject(who, { id: obj, text: obj.text.replace(from, to), baseGeneration: head });
      return svc().ensureForGeneration(w.generation);
    };

    test('the demo: a newer generation supersedes the older pending revision; from empty, 37 creates and 65 attaches', async () => {
      const r1 = await svc().ensureForGeneration(1);
      const r2 = await svc().ensureForGeneration(2);
      assert.equal((await revs.get(r1.id))!.status, 'superseded');
      assert.equal(r2.status, 'pending');
      const detail = await svc().get(sam, r2.id);
      assert.equal(detail.plan.counts.create, 37);
      assert.equal(detail.plan.counts['attach-claim'], 65);
      assert.deepEqual(detail.sections.map((s) => s.namespace), ['platform', 'social']);
      assert.ok(detail.plan.cost.total.after.monthly > 0, 'the demo cluster is priced');
      assert.match(await code(svc().decide(alice, { revisionId: r1.id, decision: 'accept' })), /^CONFLICT: .*superseded/);
    });

    test('rights: a service consumer may not decide; the reason says what is needed', async () => {
      const r = (await revs.byGeneration(2))!;
      const asAlice = await svc().get(alice, r.id);
      assert.ok(asAlice.sections.every((s) => !s.canDecide));
      assert.match(asAlice.sections[0]!.reason!, /needs the namespace-admin role in platform or domain-admin; you are service-consumer there/);
      assert.match(await code(svc().decide(alice, { revisionId: r.id, namespace: 'social', decision: 'accept' })), /^FORBIDDEN: .*namespace-admin role in social/);
      assert.equal((await revs.get(r.id))!.status, 'pending', 'nothing changed');
    });

    test('the same section accepted twice at once: exactly one wins; different sections both count; one apply job', async () => {
      const r = (await revs.byGeneration(2))!;
      const same = await Promise.all([
        code(svc().decide(john, { revisionId: r.id, namespace: 'social', decision: 'accept' })),
        code(svc().decide(frank, { revisionId: r.id, namespace: 'social', decision: 'accept' })),
        code(svc().decide(sam, { revisionId: r.id, namespace: 'social', decision: 'accept' })),
      ]);
      assert.equal(same.filter((c) => c === 'OK').length, 1, same.join('\n'));
      assert.ok(same.filter((c) => c !== 'OK').every((c) => /^CONFLICT: Section social of revision \d+ was already accepted by (John|Frank|Sam)\.$/.test(c)), same.join('\n'));
      const last = await Promise.all([
        code(svc().decide(frank, { revisionId: r.id, namespace: 'platform', decision: 'accept', comment: 'looks right' })),
        code(svc().decide(john, { revisionId: r.id, namespace: 'platform', decision: 'accept' })),
      ]);
      assert.equal(last.filter((c) => c === 'OK').length, 1, last.join('\n'));
      assert.equal((await revs.get(r.id))!.status, 'accepted');
      assert.equal((await revs.jobsFor(r.id)).length, 1, 'exactly one apply job');
      assert.equal((await revs.head()).acceptedRevisionId, r.id);
    });

    test('the worker applies the stored plan to a git repository: one commit naming the revision and accepters', async () => {
      const r = (await revs.byGeneration(2))!;
      const dir = tempDir();
      const actuator = new GitOpsActuator(dir);
      assert.equal(await runOnce({ revisions: revs, actuator }), true);
      assert.equal((await revs.get(r.id))!.status, 'applied');
      assert.equal((await revs.head()).appliedRevisionId, r.id);
      const log = await commitLog(dir);
      assert.equal(log.length, 1);
      assert.match(log[0]!.message, new RegExp(`^Apply revision ${r.id} \\(generation 2\\)`));
      assert.match(log[0]!.message, /Accepted by: .*Frank|John/);
      const files = await readTrackedFiles(dir);
      const zk = Object.entries(files).find(([p]) => p.endsWith('/east/a-ja659fj220954.yaml'));
      assert.ok(zk, Object.keys(files).join('\n'));
      assert.match(zk[1], /kind: HelmRelease/);
      assert.match(zk[1], /chart: zookeeper/);
      assert.equal(await runOnce({ revisions: revs, actuator }), false, 'no job left');
      const steps = await revs.steps(r.id);
      assert.ok(steps.length > 0 && steps.every((s) => s.status === 'done' && s.attempts === 1));
      assert.equal((await revs.instanceStates()).filter((s) => s.status === 'applied').length, 37);
    });

    test("an instance's graph panel: the instance in full, what is deployed, and the events of the steps that touched it", async () => {
      const r = (await revs.byGeneration(2))!;
      const zk = (await services.resolution.get(sam, 2)).state.instances.find((i) => i.deployName === 'a-ja659fj220954')!;
      const got = await services.graphs.instance(sam, { key: zk.key, generation: 2 });
      assert.equal(got.instance.key, zk.key);
      assert.equal(got.actual?.status, 'applied');
      assert.equal(got.actual?.revisionId, r.id);
      assert.equal(got.events.length, 1, 'one step touched it, once');
      assert.equal(got.events[0]!.revisionId, r.id);
      // One name for the instance: the apply event, the revision plan's row and the graph's node all say the same.
      const name = instanceKey.displayName(zk.key);
      assert.equal(name, 'platform · zookeeper · platform · zookeeper');
      assert.ok(got.events[0]!.message.startsWith(`Created ${name}`), got.events[0]!.message);
      const plan = await services.revisions.planPage(sam, { id: r.id, of: 'actions', text: 'zookeeper' });
      assert.ok(plan.of === 'actions' && plan.actions.some((a) => a.key === zk.key), 'the plan lists it');
      assert.equal(shortKey(zk.key), name, 'the plan table names it so');
      const node = (await services.graphs.desired(sam, { generation: 2 })).nodes.find((n) => n.id === `instance:${zk.key}`)!;
      assert.equal(node.label, name);
      const viewed = decodeView((await services.graphs.desiredView(sam, { generation: 2 })).graph).nodes.find((n) => n.id === `instance:${zk.key}`);
      assert.equal(viewed?.label, name, 'the compact view the console draws gives the same label');
      assert.match(await code(services.graphs.instance(sam, { key: 'no#such#instance', generation: 2 })), /^NOT_FOUND: Instance no#such#instance at generation 2/);
      assert.match(await code(services.graphs.instance(null, { key: zk.key })), /^UNAUTHORIZED/);
    });

    test('a stale accept is refused: the revision was computed against an older accepted state', async () => {
      const head = await revs.head();
      const created = await revs.insert({
        generation: 9999,
        baseRevisionId: head.acceptedRevisionId,
        status: 'pending',
        author: 'test',
        rollbackOf: null,
        counts: {},
        cost: {},
        quota: [],
        plan: { steps: [], actions: [] },
        sections: [{ namespace: 'social', overMarks: false, counts: {} }],
      });
      assert.equal(created.status, 'created');
      // Computing against a base that is no longer the accepted head is refused (the service recomputes).
      const late = await revs.insert({ generation: 10000, baseRevisionId: null, status: 'pending', author: 't', rollbackOf: null, counts: {}, cost: {}, quota: [], plan: {}, sections: [] });
      assert.equal(late.status, 'stale');
      // The accepted head moves under a pending revision (another instance accepted something): accepting it now is refused.
      await h.db.update(deploymentHead).set({ acceptedRevisionId: -1 }).where(eq(deploymentHead.id, 1));
      if (created.status !== 'created') return;
      assert.match(
        await code(svc().decide(sam, { revisionId: created.revision.id, decision: 'accept' })),
        /^CONFLICT: Cannot accept this revision: it was computed against revision \d+, but revision -1 has been accepted since\. It is stale/,
      );
      await h.db.update(deploymentHead).set({ acceptedRevisionId: head.acceptedRevisionId }).where(eq(deploymentHead.id, 1));
      await h.db.delete(revisionSections).where(eq(revisionSections.revisionId, created.revision.id));
      await h.db.delete(revisions).where(eq(revisions.id, created.revision.id));
    });

    test('editing a claim: a pending revision with the update; the worker crashes mid-apply and another resumes', async () => {
      const r = await editClaim(john, 'prod', 'tsvisimage: demo11', 'tsvisimage: demo12');
      assert.equal(r.status, 'pending');
      const d = await svc().get(john, r.id);
      assert.deepEqual(d.plan.counts, { create: 0, update: 2, delete: 0, 'attach-claim': 0, 'detach-claim': 0 });
      assert.deepEqual(d.plan.changedClaims, ['social/prod']);
      assert.equal(d.revision.baseRevisionId, (await revs.byGeneration(2))!.id);
      const diff = await svc().instanceDiff(john, { revisionId: r.id, key: 'system#k8s-example#east#social#twitter_stats#realtime#tweeviz' });
      assert.match(diff.before, /tag: v1\.2\.0-demo11/);
      assert.match(diff.after, /tag: v1\.2\.0-demo12/);
      await svc().decide(john, { revisionId: r.id, decision: 'accept' });
      assert.equal((await revs.get(r.id))!.status, 'accepted');

      const dir = tempDir();
      const first = new GitOpsActuator(dir);
      // Apply everything from revision 2 first, then crash in the middle of this one.
      let done = 0;
      await assert.rejects(
        runOnce({
          revisions: revs,
          actuator: first,
          afterStep: () => {
            if (++done === 1) throw new StopWorker('killed');
          },
        }),
        StopWorker,
      );
      assert.equal((await revs.get(r.id))!.status, 'applying');
      // Another worker does not steal a job whose lease is alive…
      assert.equal(await runOnce({ revisions: revs, actuator: new GitOpsActuator(dir), leaseMs: 60_000 }), false);
      // …but takes it over once the lease ran out, skipping the step already done.
      assert.equal(await runOnce({ revisions: revs, actuator: new GitOpsActuator(dir), leaseMs: 0 }), true);
      assert.equal((await revs.get(r.id))!.status, 'applied');
      const steps = await revs.steps(r.id);
      assert.deepEqual(steps.map((s) => [s.status, s.attempts]), steps.map(() => ['done', 1]), 'every step exactly once');
      const log = await commitLog(dir);
      assert.equal(log.length, 1, 'one commit for the revision');
      assert.match(log[0]!.message, new RegExp(`Apply revision ${r.id} `));
      const events = await revs.events(r.id);
      assert.ok(events.some((e) => e.kind === 'apply-resumed'));
    });

    test('a change that touches nothing deployed is a no-op revision', async () => {
      const head = await repos.policy.head();
      const w = await services.policy.apply(sam, {
        text: 'kind: rule\nmetadata: {namespace: system, name: unused}\nweight: 5000\ncriteria: {require-all: ["nobody == true"]}\nactions: {claim: reject}\n',
        baseGeneration: head,
      });
      const r = await svc().ensureForGeneration(w.generation);
      assert.equal(r.status, 'no-op');
      assert.match(await code(svc().decide(sam, { revisionId: r.id, decision: 'accept' })), /^CONFLICT: .*changes nothing/);
    });

    test('accept=true on a write accepts the sections its author may accept, within marks', async () => {
      const head = await repos.policy.head();
      const obj = (await repos.policy.getObject({ kind: 'claim', namespace: 'social', name: 'prod' }))!;
      const w = await services.policy.apply(john, { text: obj.text.replace('tsvisimage: demo12', 'tsvisimage: demo15'), baseGeneration: head, accept: true });
      const r = await svc().ensureForGeneration(w.generation, { autoAcceptBy: john });
      assert.equal(r.status, 'accepted');
      const d = await svc().get(john, r.id);
      assert.deepEqual(d.sections.map((s) => [s.namespace, s.status, s.decidedBy, s.comment]), [['social', 'accepted', 'John', 'accepted on save (accept=true)']]);
      // Apply it, so the next tests start from a clean deployment.
      assert.equal(await runOnce({ revisions: revs, actuator: new GitOpsActuator(tempDir()) }), true);
      assert.equal((await revs.get(r.id))!.status, 'applied');
    });

    test('reject: one rejected section rejects the revision; rollback restores an applied revision as a new one', async () => {
      const r = await editClaim(john, 'prod', 'tsvisimage: demo15', 'tsvisimage: demo13');
      const rej = await svc().decide(john, { revisionId: r.id, namespace: 'social', decision: 'reject', comment: 'not now' });
      assert.equal(rej.status, 'rejected');
      const applied = (await revs.byGeneration(2))!;
      const back = await svc().rollback(sam, { revisionId: applied.id });
      assert.equal(back.status, 'pending');
      const rb = await svc().get(sam, back.revisionId);
      assert.equal(rb.revision.rollbackOf, applied.id);
      assert.ok(rb.plan.counts.update >= 1, 'restores demo11 over demo15');
      const gen = await repos.policy.getGeneration(back.generation);
      assert.equal(gen?.restoredFrom, 2);
      assert.match(await code(svc().rollback(sam, { revisionId: r.id })), /^CONFLICT: Only an applied revision/);
    });

    test('a section that pushes a cluster over its marks needs a domain admin', async () => {
      const head = await repos.policy.head();
      const cluster = (await repos.policy.getObject({ kind: 'cluster', namespace: 'system', name: 'k8s-example' }))!;
      await services.policy.apply(sam, { text: cluster.text.replace('vcpu: 16', 'vcpu: "0.1"'), baseGeneration: head });
      // John asks for his own guestbook: 0.6 vCPU more on a cluster whose mark is now 0.1.
      const w = await services.policy.apply(john, {
        text: 'kind: claim\nmetadata: {namespace: social, name: john_guestbook}\nuser: John\nservice: guestbook\nlabels: {target: k8s-example.west}\n',
        baseGeneration: await repos.policy.head(),
      });
      const r = await svc().ensureForGeneration(w.generation);
      const d = await svc().get(john, r.id);
      const social = d.sections.find((x) => x.namespace === 'social')!;
      assert.equal(social.overMarks, true);
      assert.equal(social.canDecide, false);
      assert.match(social.reason!, /goes over a cluster's marks: only a domain admin may accept it/);
      assert.match(await code(svc().decide(john, { revisionId: r.id, namespace: 'social', decision: 'accept' })), /^FORBIDDEN: .*only a domain admin/);
      assert.ok(d.plan.quota.some((q) => q.dimension === 'vcpu' && !q.ok));
      assert.equal((await svc().decide(sam, { revisionId: r.id, namespace: 'social', decision: 'accept' })).decided[0], 'social');
      assert.equal(await runOnce({ revisions: revs, actuator: new GitOpsActuator(tempDir()) }), true);
      assert.equal((await revs.get(r.id))!.status, 'applied');
    });

    if (backend.name === 'postgres') {
      test('a worker process killed mid-apply: a new one resumes, no step lost or doubled (real processes)', async () => {
        const r = await editClaim(john, 'bob_dev', 'tsvisimage: demo11', 'tsvisimage: demo14');
        // The rollback revision is pending: this newer generation superseded it.
        await svc().decide(john, { revisionId: r.id, decision: 'accept' });
        const dir = tempDir();
        const env = { ...process.env, DATABASE_URL: h.url ?? '', KEELSON_GITOPS_DIR: dir, KEELSON_DATA_DIR: tempDir(), KEELSON_WORKER_LEASE_MS: '1500' };
        assert.ok(env.DATABASE_URL, 'the postgres backend exposes its URL');
        const run = (extra: Record<string, string>, stopWhen?: () => Promise<boolean>) =>
          new Promise<number>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', 'server/apply/worker-main.ts'], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            child.stdout.on('data', (b) => (out += b));
            child.stderr.on('data', (b) => (out += b));
            const timer = setInterval(async () => {
              if (stopWhen && (await stopWhen())) child.kill('SIGTERM');
            }, 300);
            child.on('exit', (c, sig) => {
              clearInterval(timer);
              resolve(c ?? (sig ? 143 : 0));
            });
            child.on('error', reject);
            setTimeout(() => {
              child.kill('SIGKILL');
              reject(new Error(`worker did not finish:\n${out}`));
            }, 60_000).unref();
          });
        assert.equal(await run({ KEELSON_TEST_CRASH_AFTER_STEPS: '1' }), 137, 'the first worker crashed');
        assert.equal((await revs.get(r.id))!.status, 'applying');
        await run({}, async () => (await revs.get(r.id))!.status === 'applied');
        assert.equal((await revs.get(r.id))!.status, 'applied');
        const steps = await revs.steps(r.id);
        assert.ok(steps.every((s) => s.status === 'done' && s.attempts === 1), JSON.stringify(steps));
        assert.equal((await commitLog(dir)).filter((c) => c.message.startsWith(`Apply revision ${r.id} `)).length, 1);
        assert.ok(existsSync(join(dir, '.git')));
      });
    }

    test("a revision says whose changes it carries: a change whose revision was never accepted rides along in the next author's", async () => {
      // John's change stays pending; Sam's rule, saved after it, makes the next revision, diffed against the same accepted one.
      const johns = await editClaim(john, 'prod', 'tsvisimage: demo', 'tsvisimage: carried-demo');
      assert.equal(johns.status, 'pending');
      const w = await services.policy.apply(sam, {
        text: 'kind: rule\nmetadata: {namespace: system, name: carried-along}\nweight: 5001\ncriteria: {require-all: ["nobody == true"]}\nactions: {claim: reject}\n',
        baseGeneration: await repos.policy.head(),
      });
      const sams = await svc().ensureForGeneration(w.generation);
      assert.equal(sams.author, 'Sam', 'the revision is made by whoever wrote its generation');
      const expected = [
        { generation: w.generation, author: 'Sam' },
        { generation: johns.generation, author: 'John' },
      ];
      const shown = await svc().get(alice, sams.id);
      assert.deepEqual(shown.carries, { changes: expected, more: 0 }, "the page lists John's change beside Sam's");
      const listed = (await svc().list(alice, { limit: 10 })).find((x) => x.id === sams.id)!;
      assert.deepEqual(listed.carries, shown.carries, 'the list says the same');
      // John's own revision carries his change only.
      assert.deepEqual((await svc().get(alice, johns.id)).carries, { changes: [{ generation: johns.generation, author: 'John' }], more: 0 });
    });
  });
}
