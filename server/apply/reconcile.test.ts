/**
 * Landscaper's automaticReconcile run by the job loop, end to end on the
 * in-memory stores: an installation applied to a GitOps repository, then
 * reconciled when due — its HelmRelease asked to reconcile now
 * (Flux's requestedAt), committed, recorded on the revision — and not
 * before; one job per installation at a time; a job whose revision was
 * replaced does nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { createServices, type Services } from '../services';
import { GitOpsActuator } from './gitops/actuator';
import { scheduleReconciles } from './reconcile';
import { reconcileSource } from './reconcile-source';
import { runOnce } from './worker';

const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
const policy = (replicas: number) => `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
---
${API}
kind: Target
metadata: {name: k8s, namespace: demo}
spec: {type: landscaper.gardener.cloud/kubernetes-cluster, config: {}}
---
${API}
kind: Blueprint
metadata: {name: web, namespace: demo}
imports:
  - {name: cluster, targetType: landscaper.gardener.cloud/kubernetes-cluster}
deployExecutions:
  - name: deploy
    type: GoTemplate
    template: |
      deployItems:
        - name: nginx
          type: landscaper.gardener.cloud/helm
          target: {import: cluster}
          config:
            chart: {ref: "eu.gcr.io/charts/ingress-nginx:v0.1.0"}
            values: {replicaCount: ${replicas}}
---
${API}
kind: Installation
metadata: {name: application, namespace: demo}
spec:
  blueprint: {ref: {resourceName: web}}
  imports:
    targets: [{name: cluster, target: k8s}]
  automaticReconcile:
    succeededReconcile: {interval: 1h}
`;

describe('automatic reconcile in the job loop', () => {
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  let repos: Repos;
  let services: Services;
  let dir: string;
  let actuator: GitOpsActuator;
  const T0 = new Date('2026-11-25T10:00:00.000Z');
  const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
  const source = () => reconcileSource(repos);
  const work = (now: Date) => runOnce({ revisions: repos.revisions, actuator, reconcile: { source: source(), now: () => now } });
  /** The one file the installation's helm release is written to. */
  const release = () => {
    const folder = join(dir, 'clusters/system.k8s/apps');
    const files = readdirSync(folder);
    assert.equal(files.length, 1, files.join(', '));
    return readFileSync(join(folder, files[0]!), 'utf8');
  };

  before(async () => {
    repos = memoryRepos();
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
    dir = mkdtempSync(join(tmpdir(), 'keelson-reconcile-'));
    actuator = new GitOpsActuator(dir);
    await services.policy.apply(sam, { text: policy(2), baseGeneration: await repos.policy.head(), accept: true });
    const rev = await services.revisions.byGeneration(sam, await repos.policy.head(), { wait: true });
    assert.notEqual(rev.id, null);
    while (await work(T0)) {
      /* apply the accepted revision */
    }
    assert.equal((await repos.revisions.get(rev.id!))?.status, 'applied');
  });
  after(async () => {
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('succeeded: the first look starts the clock; nothing is due before the interval', async () => {
    assert.deepEqual(await scheduleReconciles(repos.revisions, source(), T0), []);
    assert.deepEqual(await scheduleReconciles(repos.revisions, source(), at(59)), []);
    assert.doesNotMatch(release(), /requestedAt/);
  });

  test('due after the interval: one job, which asks Flux to reconcile the release now and commits', async () => {
    assert.deepEqual(await scheduleReconciles(repos.revisions, source(), at(60)), ['demo/application']);
    assert.deepEqual(await scheduleReconciles(repos.revisions, source(), at(61)), [], 'one job at a time per installation');
    assert.equal(await work(at(60)), true);
    assert.match(release(), new RegExp(`reconcile\\.fluxcd\\.io/requestedAt: "?${at(60).toISOString()}`));
    assert.doesNotMatch(release(), /forceAt/, 'a reconcile forces nothing');
    const applied = (await repos.revisions.head()).appliedRevisionId!;
    const events = await repos.revisions.events(applied);
    assert.ok(events.some((e) => e.kind === 'reconcile-queued' && /demo\/application queued \(succeeded: reconcile 1\)/.test(e.message)));
    assert.ok(events.some((e) => e.kind === 'reconciled' && /1 deploy item re-applied · commit [0-9a-f]{12}/.test(e.message)), JSON.stringify(events.map((e) => e.message)));
    assert.equal(await work(at(62)), false, 'nothing left to do');
    assert.deepEqual(await scheduleReconciles(repos.revisions, source(), at(119)), []);
    assert.deepEqual(await scheduleReconciles(repos.revisions, source(), at(120)), ['demo/application']);
  });

  test('a job whose revision is no longer the applied one does nothing', async () => {
    // The job queued above waits; a new revision is accepted and applied first.
    await services.policy.apply(sam, { text: policy(3), baseGeneration: await repos.policy.head(), accept: true });
    await services.revisions.byGeneration(sam, await repos.policy.head(), { wait: true });
    const jobs: string[] = [];
    while (await work(at(121))) jobs.push('ran');
    assert.match(release(), /replicaCount: 3/);
    assert.doesNotMatch(release(), new RegExp(at(121).toISOString()), 'the stale reconcile wrote nothing');
    // The new generation starts the clock again.
    assert.deepEqual(await scheduleReconciles(repos.revisions, source(), at(122)), []);
  });
});

describe('a reconcile job that keeps failing', () => {
  test('is retried with backoff, then given up, so applies behind it are not held', async () => {
    let clock = Date.parse('2026-11-25T10:00:00Z');
    const { MemoryRevisionRepository } = await import('../repo/memory-revisions');
    const revisions = new MemoryRevisionRepository(() => clock);
    const plan = { steps: [], actions: [] };
    const created = await revisions.insert({ generation: 1, baseRevisionId: null, status: 'pending', author: 'a', rollbackOf: null, counts: {}, cost: {}, quota: [], plan, sections: [{ namespace: 'main', overMarks: false, counts: {} }] });
    assert.equal(created.status, 'created');
    if (created.status !== 'created') return;
    const jobId = await revisions.enqueue('reconcile', created.revision.id, 'demo/a');
    const broken = { name: 'broken', begin: async () => Promise.reject(new Error('remote is down')), apply: async () => ({ status: 'done' as const }), finish: async () => ({ changed: false }) };
    const source = { applied: async () => ({ revisionId: created.revision.id, generation: 1, installations: [] }), deployItems: async () => [] };
    const opts = { revisions, actuator: broken, backoffMs: 1000, maxAttempts: 2, reconcile: { source, now: () => new Date(clock) } };
    for (let i = 0; i < 3; i++) {
      assert.equal(await runOnce(opts), true, `attempt ${i + 1}`);
      clock += 10 * 60_000; // past any backoff
    }
    const job = (await revisions.jobsFor(created.revision.id)).find((j) => j.id === jobId)!;
    assert.equal(job.status, 'failed');
    assert.match(job.lastError ?? '', /gave up after 2 attempts: remote is down/);
    assert.equal(await runOnce(opts), false, 'nothing is left holding the queue');
  });
});
