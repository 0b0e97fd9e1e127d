/** The scope graph service over stored policy: the seed's application installed twice, then a cycle. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices } from './index';
import type { Actuator } from '../apply/actuator';
import { runOnce } from '../apply/worker';

const fixture = (name: string) => readFileSync(join(process.cwd(), 'server/testing', name), 'utf8');
const sam = { id: 'local:Sam', name: 'Sam', labels: { is_operator: 'true' }, provider: 'test' as const };

describe('LandscaperService.scopes', async () => {
  const repos = memoryRepos();
  await seedDemo(repos);
  const services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], freeNamespaces: ['landscape'] });
  after(() => services.resolution.close());

  test('anonymous callers are refused', async () => {
    await assert.rejects(services.landscaper.scopes(null, {}), /Sign in|signed in|UNAUTHORIZED/i);
  });

  test('application twice: two scopes in the namespace, local names apart, values as computed', async () => {
    await services.policy.apply(sam, { text: fixture('landscaper-application.yaml'), baseGeneration: await repos.policy.head() });
    const g = await services.landscaper.scopes(sam, { namespace: 'landscape' });
    assert.deepEqual(g.scopes.map((s) => s.id), ['ns:landscape', 'scope:landscape/application', 'scope:landscape/application2']);
    assert.deepEqual(g.errors, []);
    const obj = (id: string) => g.objects.find((o) => o.id === id);
    assert.equal(obj('obj:scope:landscape/application:data:databaseaccess')?.value, 'postgres://db.cluster/shop');
    assert.equal(obj('obj:scope:landscape/application2:data:databaseaccess')?.value, 'postgres://db.cluster2/blog');
    assert.equal(obj('obj:ns:landscape:data:exports2')?.value, 'https://ui.cluster2 → postgres://db.cluster2/blog');
    const webui = g.installations.find((i) => i.id === 'landscape/application/webui')!;
    assert.deepEqual(webui.imports.in, 'postgres://db.cluster/shop');
    assert.equal(webui.phase, 'Succeeded');
    // Another namespace's view holds none of it; the view of all holds both.
    assert.deepEqual((await services.landscaper.scopes(sam, { namespace: 'social' })).installations, []);
    assert.equal((await services.landscaper.scopes(sam, {})).installations.length, 6);
  });

  test('taken out of the policy: InitDelete (naming who still imports its exports) until the revision is applied, then gone', async () => {
    const noop: Actuator = { name: 'test', begin: async () => {}, apply: async () => ({ status: 'done' }), finish: async () => ({ changed: false }) };
    const applyAll = async () => {
      while (await runOnce({ revisions: repos.revisions, actuator: noop })) {
        /* apply what is accepted */
      }
    };
    const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
    const policy = `- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
---
${API}
kind: Target
metadata: {name: k8s, namespace: gone}
spec: {type: landscaper.gardener.cloud/kubernetes-cluster, config: {}}
---
${API}
kind: Blueprint
metadata: {name: web, namespace: gone}
imports: [{name: cluster, targetType: landscaper.gardener.cloud/kubernetes-cluster}]
exports: [{name: url, type: data, schema: {type: string}}]
deployExecutions:
  - name: deploy
    type: GoTemplate
    template: |
      deployItems:
        - {name: nginx, type: landscaper.gardener.cloud/helm, target: {import: cluster}, config: {chart: {ref: "eu.gcr.io/charts/nginx:v1.0.0"}}}
exportExecutions:
  - name: export
    type: GoTemplate
    template: |
      exports:
        url: https://web
---
${API}
kind: Blueprint
metadata: {name: reader, namespace: gone}
imports: [{name: url, type: data, schema: {type: string}}]
---
${API}
kind: Installation
metadata: {name: web1, namespace: gone}
spec:
  blueprint: {ref: {resourceName: web}}
  imports: {targets: [{name: cluster, target: k8s}]}
  exports: {data: [{name: url, dataRef: weburl}]}
---
${API}
kind: Installation
metadata: {name: reader1, namespace: gone}
spec:
  blueprint: {ref: {resourceName: reader}}
  imports: {data: [{name: url, dataRef: weburl}]}
`;
    await services.policy.apply(sam, { text: policy, baseGeneration: await repos.policy.head(), accept: true });
    await services.revisions.byGeneration(sam, await repos.policy.head(), { wait: true });
    await applyAll();
    const before = await services.landscaper.scopes(sam, { namespace: 'gone' });
    assert.deepEqual(before.installations.map((i) => [i.id, i.phase, i.removed ?? false]), [
      ['gone/web1', 'Succeeded', false],
      ['gone/reader1', 'Succeeded', false],
    ]);

    await services.policy.delete(sam, { ids: [{ kind: 'installation', namespace: 'gone', name: 'web1' }], baseGeneration: await repos.policy.head() });
    const rev = await services.revisions.byGeneration(sam, await repos.policy.head(), { wait: true });
    assert.equal(rev.status, 'pending', 'its helm release is to be deleted');
    const g = await services.landscaper.scopes(sam, { namespace: 'gone' });
    const gone = g.installations.find((i) => i.id === 'gone/web1')!;
    assert.equal(gone.removed, true);
    assert.equal(gone.phase, 'InitDelete');
    assert.match(gone.phases[0]!.reason, /deleted when the revision that removes it is applied; meanwhile installation reader1 still imports what it exports/);
    assert.equal(g.installations.find((i) => i.id === 'gone/reader1')!.phase, 'Failed', 'its import is gone');

    // Accepted and applied: gone from the graph.
    for (const section of (await services.revisions.get(sam, rev.id!)).sections) await services.revisions.decide(sam, { revisionId: rev.id!, namespace: section.namespace, decision: 'accept' });
    await applyAll();
    assert.deepEqual((await services.landscaper.scopes(sam, { namespace: 'gone' })).installations.map((i) => i.id), ['gone/reader1']);
  });

  test('a cycle between roots is reported with its path; the rest still runs', async () => {
    await services.policy.apply(sam, { text: fixture('landscaper-cycle.yaml'), baseGeneration: await repos.policy.head() });
    const g = await services.landscaper.scopes(sam, { namespace: 'landscape' });
    const cycle = g.errors.find((e) => e.code === 'cycle');
    assert.ok(cycle, JSON.stringify(g.errors));
    assert.deepEqual(new Set(cycle.cycle), new Set(['ping', 'pong']));
    assert.equal(g.installations.find((i) => i.id === 'landscape/ping')?.phase, 'Failed');
    assert.equal(g.installations.find((i) => i.id === 'landscape/application')?.phase, 'Succeeded');
  });

  test('a Target written without a namespace: the installation’s outcome opens at the import that misses it', async () => {
    const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
    const policy = `${API}
kind: Target
metadata: {name: my-cluster}
spec: {type: landscaper.gardener.cloud/kubernetes-cluster, config: {}}
---
${API}
kind: Blueprint
metadata: {name: needs-cluster, namespace: lost}
imports: [{name: cluster, targetType: landscaper.gardener.cloud/kubernetes-cluster}]
---
${API}
kind: Installation
metadata: {name: app, namespace: lost}
spec:
  blueprint: {ref: {resourceName: needs-cluster}}
  imports:
    targets:
      - name: cluster
        target: my-cluster
`;
    await services.policy.apply(sam, { text: policy, baseGeneration: await repos.policy.head() });
    const { outcome } = await services.claims.get(sam, { namespace: 'lost', name: 'app' });
    assert.equal(outcome.status, 'error');
    const [d] = outcome.diagnostics ?? [];
    assert.equal(d?.object, 'installation/lost/app');
    assert.match(d!.message, /spec\.imports\.targets\[0\]\.target: unable to fetch target "my-cluster" .* a Target "my-cluster" is in namespace "default" .*set its metadata\.namespace to "lost"/);
    // The installation's own text: `target: my-cluster` is its ninth line.
    assert.deepEqual([d!.line, d!.column], [9, 17]);
  });

  test('phases tell the truth: Pending while the revision waits, Succeeded once applied, Failed with the apply’s error; mock items say they are simulated', async () => {
    const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
    const policy = (replicas: number) => `- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
---
${API}
kind: Target
metadata: {name: k8s, namespace: truth}
spec: {type: landscaper.gardener.cloud/kubernetes-cluster, config: {}}
---
${API}
kind: Blueprint
metadata: {name: web, namespace: truth}
imports: [{name: cluster, targetType: landscaper.gardener.cloud/kubernetes-cluster}]
deployExecutions:
  - name: deploy
    type: GoTemplate
    template: |
      deployItems:
        - {name: nginx, type: landscaper.gardener.cloud/helm, target: {import: cluster}, config: {chart: {ref: "eu.gcr.io/charts/nginx:v1.0.0"}, values: {replicas: ${replicas}}}}
        - {name: probe, type: landscaper.gardener.cloud/mock, config: {}}
---
${API}
kind: Installation
metadata: {name: web1, namespace: truth}
spec:
  blueprint: {ref: {resourceName: web}}
  imports: {targets: [{name: cluster, target: k8s}]}
`;
    const look = async () => {
      const i = (await services.landscaper.scopes(sam, { namespace: 'truth' })).installations.find((x) => x.id === 'truth/web1')!;
      const item = (name: string) => i.deployItems.find((d) => d.name === name)!;
      return { phase: i.phase, from: i.phaseFrom, last: i.phases.at(-1)!.reason, nginx: [item('nginx').phase, item('nginx').phaseFrom, item('nginx').note], probe: [item('probe').phase, item('probe').phaseFrom] };
    };
    const decideAll = async (id: number) => {
      for (const section of (await services.revisions.get(sam, id)).sections) await services.revisions.decide(sam, { revisionId: id, namespace: section.namespace, decision: 'accept' });
    };
    const run = async (actuator: Actuator) => {
      while (await runOnce({ revisions: repos.revisions, actuator, maxAttempts: 1 })) {
        /* apply what is accepted */
      }
    };

    await services.policy.apply(sam, { text: policy(1), baseGeneration: await repos.policy.head() });
    const first = await services.revisions.byGeneration(sam, await repos.policy.head(), { wait: true });
    assert.equal(first.status, 'pending');
    // The install run succeeded, but nothing is deployed yet: not Succeeded.
    assert.deepEqual(await look(), {
      phase: 'Pending',
      from: 'applied',
      last: `deploy item nginx: waits for revision ${first.id} to be accepted`,
      nginx: ['Pending', 'applied', `waits for revision ${first.id} to be accepted`],
      probe: ['Succeeded', 'simulated'],
    });

    await decideAll(first.id!);
    await run({ name: 'test', begin: async () => {}, apply: async () => ({ status: 'done' }), finish: async () => ({ changed: false }) });
    assert.deepEqual((await look()).nginx, ['Succeeded', 'applied', `applied by revision ${first.id}`]);
    assert.equal((await look()).phase, 'Succeeded');

    await services.policy.apply(sam, { text: policy(2), baseGeneration: await repos.policy.head() });
    const second = await services.revisions.byGeneration(sam, await repos.policy.head(), { wait: true });
    await decideAll(second.id!);
    await run({ name: 'test', begin: async () => {}, apply: async () => ({ status: 'failed', error: 'helm: release nginx: timed out waiting for the condition' }), finish: async () => ({ changed: false }) });
    const failed = await look();
    assert.equal(failed.phase, 'Failed');
    assert.deepEqual(failed.nginx, ['Failed', 'applied', `revision ${second.id} failed to apply it: helm: release nginx: timed out waiting for the condition`]);
  });
});
