import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { PlanStep } from '../../engine/plan';
import type { ApplyContext, ApplyStep } from '../actuator';
import { GitOpsActuator, commitLog, commitMessage, readTrackedFiles } from './actuator';
import { renderStep } from './render';
import { corpusSteps, ctx, helmStep, rawStep } from '../../testing/gitops-steps';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempRepo(): string {
  const d = mkdtempSync(join(tmpdir(), 'keelson-gitops-'));
  dirs.push(d);
  return join(d, 'gitops'); // not created yet: begin must make it
}

// Compile-time check: the engine's plan steps can be handed to an actuator as they are.
const planStepIsApplyStep = (s: PlanStep): ApplyStep => s;
void planStepIsApplyStep;

const FIXED = () => new Date('2024-05-01T12:00:00Z');

/** Run a revision the way the worker does: begin, every step, finish. */
async function runRevision(act: GitOpsActuator, c: ApplyContext, steps: ApplyStep[]) {
  await act.begin(c);
  const summary = { done: 0, failed: 0, skipped: 0 };
  const results = [];
  for (const s of steps) {
    const r = await act.apply(s, c);
    results.push(r);
    summary[r.status]++;
  }
  return { results, fin: await act.finish(c, summary) };
}

/** What the repository should hold after these steps: path → content of every written file. */
function expectedTree(steps: ApplyStep[]): Record<string, string> {
  const tree: Record<string, string> = {};
  for (const s of steps) {
    const r = renderStep(s);
    if (r.op === 'write') tree[r.path] = r.content;
  }
  return Object.fromEntries(Object.entries(tree).sort(([a], [b]) => a.localeCompare(b)));
}

describe('GitOpsActuator', () => {
  test('two revisions make two commits with the expected messages and trees', async () => {
    const dir = tempRepo();
    const act = new GitOpsActuator(dir, { now: FIXED });
    const steps = corpusSteps();

    const first = await runRevision(act, ctx(1, 4, ['alice', 'bob']), steps);
    assert.ok(first.results.every((r) => r.status === 'done'), JSON.stringify(first.results.filter((r) => r.status !== 'done')));
    assert.ok(first.results.some((r) => r.message === 'bookkeeping only'));
    assert.equal(first.fin.changed, true);
    assert.match(first.fin.commit ?? '', /^[0-9a-f]{40}$/);
    assert.deepEqual(await readTrackedFiles(dir), expectedTree(steps));

    // Revision 2: kafka gets a new value, one raw instance is deleted.
    const kafka = steps.find((s) => s.key === 'system#k8s-example#east#platform#kafka#platform#kafka')!;
    const frontend = steps.find((s) => s.key.endsWith('guestbook#personal#Alice#frontend'))!;
    const updated: ApplyStep = { ...kafka, action: 'update', code: { type: 'helm', params: { ...kafka.code!.params, replicas: 3 } } };
    const deleted: ApplyStep = { ...frontend, action: 'delete' };
    const second = await runRevision(act, ctx(2, 5, ['carol']), [updated, deleted]);
    assert.equal(second.fin.changed, true);
    assert.notEqual(second.fin.commit, first.fin.commit);
    assert.match(second.results[0]!.message ?? '', /^updated clusters\/system\.k8s-example\/east\//);
    assert.match(second.results[1]!.message ?? '', /^removed clusters\/system\.k8s-example\/west\//);

    const log = await commitLog(dir);
    assert.deepEqual(log.map((c) => c.oid), [second.fin.commit, first.fin.commit]);
    assert.equal(
      log[1]!.message,
      'Apply revision 1 (generation 4)\n\nAccepted by: alice, bob\n\nKeelson-Revision: 1\n' +
        'Co-authored-by: alice <alice@users.keelson>\nCo-authored-by: bob <bob@users.keelson>',
    );
    assert.equal(
      log[0]!.message,
      'Apply revision 2 (generation 5)\n\nAccepted by: carol\n\nKeelson-Revision: 2\nCo-authored-by: carol <carol@users.keelson>',
    );

    const want = expectedTree(steps.filter((s) => s !== kafka && s !== frontend).concat(updated));
    assert.deepEqual(await readTrackedFiles(dir), want);
    assert.ok(!Object.keys(want).some((p) => p.endsWith(`${frontend.deployName}.yaml`)));
  });

  test('re-running the same revision makes no new commit and touches no file', async () => {
    const dir = tempRepo();
    const steps = [helmStep(), rawStep('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n')];
    const first = await runRevision(new GitOpsActuator(dir), ctx(7, 1), steps);
    const again = await runRevision(new GitOpsActuator(dir), ctx(7, 1), steps);
    assert.deepEqual(again.fin, { changed: false, commit: first.fin.commit });
    assert.ok(again.results.every((r) => r.status === 'done' && r.message?.startsWith('unchanged ')));
    // finish alone, twice more, stays put too.
    const act = new GitOpsActuator(dir);
    assert.deepEqual(await act.finish(ctx(7, 1), { done: 2, failed: 0, skipped: 0 }), { changed: false, commit: first.fin.commit });
    assert.equal((await commitLog(dir)).length, 1);
  });

  test('deleting removes the file (and its emptied folders) and commits; deleting again is a no-op', async () => {
    const dir = tempRepo();
    const act = new GitOpsActuator(dir);
    const step = helmStep();
    const path = 'clusters/system.k8s-example/east/a-b26gs9dni7muc.yaml';
    await runRevision(act, ctx(1, 1), [step]);
    assert.ok(path in (await readTrackedFiles(dir)));

    const del = await runRevision(act, ctx(2, 2), [{ ...step, action: 'delete' }]);
    assert.deepEqual(del.results[0], { status: 'done', message: `removed ${path}` });
    assert.equal(del.fin.changed, true);
    assert.deepEqual(await readTrackedFiles(dir), {});
    assert.ok(!existsSync(join(dir, 'clusters/system.k8s-example')), 'emptied folders are removed');

    const again = await runRevision(act, ctx(2, 2), [{ ...step, action: 'delete' }]);
    assert.deepEqual(again.results[0], { status: 'done', message: `already absent ${path}` });
    assert.deepEqual(again.fin, { changed: false, commit: del.fin.commit });
    assert.equal((await commitLog(dir)).length, 2);
  });

  test('a crash mid-revision: a new actuator replays every step and finish commits exactly once', async () => {
    const dir = tempRepo();
    const steps = corpusSteps();
    const c = ctx(3, 9, ['alice']);
    const half = Math.floor(steps.length / 2);

    const crashed = new GitOpsActuator(dir, { now: FIXED });
    await crashed.begin(c);
    for (const s of steps.slice(0, half)) assert.equal((await crashed.apply(s, c)).status, 'done');
    // A write interrupted half-way leaves a temp file behind; it must never reach the commit.
    writeFileSync(join(dir, '.git', 'keelson-tmp', 'interrupted.yaml'), 'partial');
    // … the worker dies here: no finish.

    const restarted = new GitOpsActuator(dir, { now: FIXED });
    const { results, fin } = await runRevision(restarted, c, steps);
    assert.ok(results.every((r) => r.status === 'done'));
    assert.ok(results.slice(0, half).some((r) => r.message?.startsWith('unchanged ')), 'earlier steps found their files in place');
    assert.equal(fin.changed, true);
    const log = await commitLog(dir);
    assert.equal(log.length, 1);
    assert.equal(log[0]!.oid, fin.commit);
    assert.deepEqual(await readTrackedFiles(dir), expectedTree(steps));

    // A crash after the commit but before the job is marked done: the retry commits nothing.
    const retry = await runRevision(new GitOpsActuator(dir), c, steps);
    assert.deepEqual(retry.fin, { changed: false, commit: fin.commit });
    assert.equal((await commitLog(dir)).length, 1);
  });

  test('a failing step is reported, the rest is committed, and the message says it was partial', async () => {
    const dir = tempRepo();
    const act = new GitOpsActuator(dir);
    const bad = rawStep('kind: A\nkind: B\n');
    const { results, fin } = await runRevision(act, ctx(4, 2, []), [helmStep(), bad]);
    assert.equal(results[1]!.status, 'failed');
    assert.match(results[1]!.error ?? '', /raw manifest is not valid YAML: Map keys must be unique at line 2/);
    assert.equal(fin.changed, true);
    const [entry] = await commitLog(dir);
    assert.equal(
      entry!.message,
      'Apply revision 4 (generation 2)\n\nAccepted by: (none)\n\nPartially applied: 1 steps done, 1 failed, 0 skipped.\n\nKeelson-Revision: 4',
    );
    assert.deepEqual(Object.keys(await readTrackedFiles(dir)), ['clusters/system.k8s-example/east/a-b26gs9dni7muc.yaml']);
  });

  test('only clusters/ is committed, and a hand edit there is overwritten by the next apply', async () => {
    const dir = tempRepo();
    const act = new GitOpsActuator(dir);
    const step = helmStep();
    await runRevision(act, ctx(1, 1), [step]);
    writeFileSync(join(dir, 'notes.txt'), 'not ours');
    const file = join(dir, 'clusters/system.k8s-example/east/a-b26gs9dni7muc.yaml');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, 'edited by hand\n');
    const { results, fin } = await runRevision(act, ctx(1, 1), [step]);
    assert.match(results[0]!.message ?? '', /^updated /);
    assert.equal(readFileSync(file, 'utf8'), original);
    assert.equal(fin.changed, false, 'the tree equals HEAD again');
    assert.ok(!('notes.txt' in (await readTrackedFiles(dir))));
  });

  test('helpers on an empty repository, and co-author addresses', async () => {
    const dir = tempRepo();
    const act = new GitOpsActuator(dir);
    const { fin } = await runRevision(act, ctx(1, 1), [{ ...helmStep(), code: null }]);
    assert.deepEqual(fin, { changed: false });
    assert.deepEqual(await readTrackedFiles(dir), {});
    assert.deepEqual(await commitLog(dir), []);
    assert.equal(
      commitMessage(ctx(5, 6, ['Jane Doe', 'bob', 'bob'])),
      'Apply revision 5 (generation 6)\n\nAccepted by: Jane Doe, bob\n\nKeelson-Revision: 5\n' +
        'Co-authored-by: Jane Doe <Jane-Doe@users.keelson>\nCo-authored-by: bob <bob@users.keelson>',
    );
  });
});
