/**
 * What ran out of its time, through the services: a claim that missed its
 * time in one generation (on a loaded machine) has its running instances
 * held back by that generation's revision — and carried over as running,
 * so the next revision, in which it resolves again, neither creates nor
 * removes anything of it; and Landscaper's scope graph is not kept when a
 * root in it ran out of its time, so the next read runs it again.
 *
 * The services resolve in this process (the inline resolver), so the clock
 * granted here is the engine's: a counter that moves one millisecond per
 * reading while `slow`, and stands still otherwise (as in
 * engine/timed-out.test.ts). No test here depends on real time.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { useEvaluationClock } from '../engine/host-clock';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import type { Actor } from './actor';
import { createServices, type Services } from './index';
import type { StoredPlan } from './revisions.types';
import { slowComponents, SLOW_TEMPLATE } from '../testing/slow-units';

const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: { is_operator: 'true' }, provider: 'test' };

let slow = false;
/** The engine's clock while these tests run: 1000 ms per unit, which only a unit of many steps uses up, and only while slow. */
function grantClock(): void {
  let t = 0;
  useEvaluationClock(() => (slow ? t++ : t), 1000);
}


describe('a claim that ran out of its time, through revisions', () => {
  let repos: Repos;
  let services: Services;

  before(() => {
    grantClock();
    repos = memoryRepos();
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
  });
  after(async () => {
    await services.resolution.close();
    useEvaluationClock(() => performance.now(), 5000);
  });

  const write = async (text: string) => {
    const w = await services.policy.apply(sam, { text, baseGeneration: await repos.policy.head() });
    return services.revisions!.ensureForGeneration(w.generation);
  };
  const planOf = async (id: number) => (await repos.revisions.get(id))!.plan as StoredPlan;
  const accept = async (id: number) => {
    await services.revisions!.decide(sam, { revisionId: id, decision: 'accept' });
    assert.equal((await repos.revisions.get(id))!.status, 'accepted');
  };

  const components = slowComponents();
  const POLICY = `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 10, actions: {change-labels: {set: {target: k8s}}}}
- kind: bundle
  metadata: {namespace: main, name: slow}
  components:
${components}
- {kind: service, metadata: {namespace: main, name: slow}, contexts: [{name: all, allocation: {bundle: slow}}]}
- {kind: bundle, metadata: {namespace: main, name: web}, components: [{name: app, code: {type: helm, params: {chartName: web}}}]}
- {kind: service, metadata: {namespace: main, name: web}, contexts: [{name: all, allocation: {bundle: web}}]}
- {kind: claim, metadata: {namespace: main, name: heavy}, user: Sam, service: slow}
- {kind: claim, metadata: {namespace: main, name: web}, user: Sam, service: web}
`;

  test('its running instances are held back as they ran, carried over, and neither created nor removed once it resolves again', async () => {
    // Generation 1, accepted: the heavy claim runs nine instances.
    const r1 = await write(POLICY);
    const running = (await services.resolution.ensure(r1.generation)).state.instances.filter((i) => i.claims.includes('main/heavy')).map((i) => i.key);
    assert.equal(running.length, 9);
    assert.deepEqual((await planOf(r1.id)).actions.filter((a) => a.kind === 'create' && running.includes(a.key)).length, 9);
    await accept(r1.id);

    // Generation 2, on a loaded machine: the heavy claim is edited (a label) and misses its time; another claim is added.
    slow = true;
    const r2 = await write(`- {kind: claim, metadata: {namespace: main, name: heavy}, user: Sam, service: slow, labels: {note: edited}}
- {kind: claim, metadata: {namespace: main, name: more}, user: Sam, service: web}`);
    slow = false;
    const heavy2 = (await services.resolution.ensure(r2.generation)).state.claims.find((c) => c.name === 'heavy')!;
    assert.equal(heavy2.status, 'error');
    assert.equal(heavy2.timedOut, true);
    const p2 = await planOf(r2.id);
    assert.deepEqual(
      p2.actions.filter((a) => running.includes(a.key)),
      [],
      'no detach, delete or update of what it runs',
    );
    assert.ok(p2.notes.some((n) => running.includes(n.key) && /held back: 'main\/heavy' ran out of its time/.test(n.note)));
    assert.deepEqual(p2.carryOver?.map((i) => i.key).sort(), [...running].sort(), 'carried over as running');
    assert.ok(p2.actions.some((a) => a.kind === 'attach-claim' && a.claim === 'main/more'), 'the rest of the change goes ahead');
    await accept(r2.id);

    // Generation 3 touches another claim only: the heavy one is resolved again, and what it runs was running all along.
    const r3 = await write('- {kind: claim, metadata: {namespace: main, name: extra}, user: Sam, service: web}');
    const heavy3 = (await services.resolution.ensure(r3.generation)).state.claims.find((c) => c.name === 'heavy')!;
    assert.equal(heavy3.status, 'resolved', heavy3.errors.join('\n'));
    assert.equal(heavy3.timedOut, undefined);
    const p3 = await planOf(r3.id);
    assert.deepEqual(
      p3.actions.filter((a) => running.includes(a.key)),
      [],
      'nothing of it is created again',
    );
  });
});

describe("Landscaper's scope graph when a root installation ran out of its time", () => {
  let repos: Repos;
  let services: Services;
  before(() => {
    grantClock();
    repos = memoryRepos();
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
  });
  after(async () => {
    await services.resolution.close();
    useEvaluationClock(() => performance.now(), 5000);
  });
  afterEach(() => {
    slow = false;
  });

  const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
  // Eight executions of 80,000 steps each: the root's time is theirs together.
  const executions = Array.from({ length: 8 }, (_, i) => `  - {name: e${i}, type: GoTemplate, template: "n${i}: '${SLOW_TEMPLATE}'"}`).join('\n');
  const POLICY = `${API}
kind: Blueprint
metadata: {name: heavy, namespace: ls}
deployExecutions:
${executions}
---
${API}
kind: Installation
metadata: {name: tree, namespace: ls}
spec:
  blueprint: {ref: {resourceName: heavy}}
`;

  test('is not kept: the next read of the same generation runs it again', async () => {
    await services.policy.apply(sam, { text: POLICY, baseGeneration: await repos.policy.head() });
    slow = true;
    const first = (await services.landscaper.scopes(sam, { namespace: 'ls' })).installations.find((i) => i.path === 'tree')!;
    assert.equal(first.phase, 'Failed');
    assert.match(first.errors.map((e) => e.message).join('\n'), /ran out of its time \(1000 ms\)/);
    slow = false;
    const again = (await services.landscaper.scopes(sam, { namespace: 'ls' })).installations.find((i) => i.path === 'tree')!;
    assert.equal(again.phase, 'Succeeded', JSON.stringify(again.errors));
  });
});
