/**
 * A unit that ran out of its time is not kept. Time depends on load, steps
 * and sizes do not: under a loaded machine an ordinary claim can miss its
 * time once, and must not stay failed in every later generation. So an
 * outcome a deadline decided says so (`timedOut`), and the warm session's
 * next update resolves it again — an Aptomi claim, a Capact Interface
 * choice inside Aptomi and a Capact action, a Landscaper root installation,
 * a Deployment Manager deployment — even when the update changed nothing
 * it reads. And a revision holds back what such a unit ran, as it ran,
 * rather than planning its removal.
 *
 * The clocks count their readings rather than run (as in host-clock.test.ts):
 * "slow" moves one millisecond per reading, so a unit of many steps reads it
 * past its allowance while a quick one stays far from it; otherwise it stands
 * still. No test here depends on real time.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { useEvaluationClock } from './host-clock';
import { useTemplateClock } from './dm';
import { EngineSession, type EngineObject } from './index';
import { loadObjects } from './model/validate';
import type { PolicyUser } from './model/users';
import { appliedState, planRevision } from './plan';
import type { DesiredState } from './state';
import { manyImplementationsHub, slowComponents, SLOW_TEMPLATE } from '../testing/slow-units';
import { plugTemplateSandbox } from '../dm-python';

// DM's Jinja and Python templates render in the sandbox, as on every server thread that expands them.
plugTemplateSandbox();

let slow = false;

/** Grants the engine a clock that moves one millisecond per reading while `slow`, and `ms` of it per unit. */
function grantClock(ms: number): void {
  let t = 0;
  useEvaluationClock(() => (slow ? t++ : t), ms);
}

afterEach(() => {
  useEvaluationClock(undefined);
  useTemplateClock(undefined);
  slow = false;
});

function load(yaml: string): EngineObject[] {
  const r = loadObjects(yaml);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  return r.objects;
}

const outcome = (state: DesiredState, name: string) => state.claims.find((c) => c.name === name)!;


describe('an Aptomi claim that ran out of its time', () => {
  const users: PolicyUser[] = [
    { name: 'dev', labels: {}, secrets: {} },
    { name: 'ops', labels: {}, secrets: {} },
  ];
  const components = slowComponents();
  const policy = load(`
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 10, actions: {change-labels: {set: {target: k8s}}}}
- kind: bundle
  metadata: {namespace: main, name: slow}
  components:
${components}
- {kind: service, metadata: {namespace: main, name: slow}, contexts: [{name: all, allocation: {bundle: slow}}]}
- {kind: bundle, metadata: {namespace: main, name: web}, components: [{name: app, code: {type: helm, params: {owner: "{{ .User.Name }}"}}}]}
- {kind: service, metadata: {namespace: main, name: web}, contexts: [{name: all, allocation: {bundle: web, keys: ["{{ .User.Name }}"]}}]}
- {kind: claim, metadata: {namespace: main, name: heavy}, user: dev, service: slow}
- {kind: claim, metadata: {namespace: main, name: mine}, user: dev, service: web}
- {kind: claim, metadata: {namespace: main, name: broken}, user: dev, service: nowhere}
`);
  const [theirs] = load('- {kind: claim, metadata: {namespace: main, name: theirs}, user: ops, service: web}');

  /** Generation N on a loaded machine: the heavy claim misses its time. */
  function slowFirst(): EngineSession {
    grantClock(1000);
    slow = true;
    const session = new EngineSession({ objects: policy, users });
    const heavy = outcome(session.state(), 'heavy');
    assert.equal(heavy.status, 'error');
    assert.match(heavy.errors[0]!, /ran out of its time \(1000 ms\)/);
    assert.equal(heavy.timedOut, true);
    // A failure the policy decided is no time-out: it is kept as it is.
    assert.equal(outcome(session.state(), 'broken').status, 'error');
    assert.equal(outcome(session.state(), 'broken').timedOut, undefined);
    assert.equal(outcome(session.state(), 'mine').status, 'resolved');
    slow = false;
    return session;
  }

  test('is resolved again by the next update, though the update does not touch it', () => {
    const session = slowFirst();
    const next = session.update({ upserts: [theirs!], deletes: [] });
    assert.ok(next, 'a change of claims is absorbed in place');
    const heavy = outcome(next, 'heavy');
    assert.equal(heavy.status, 'resolved', heavy.errors.join('\n'));
    assert.equal(heavy.timedOut, undefined);
    assert.equal(next.instances.filter((i) => i.claims.includes('main/heavy')).length, 9, 'its bundle root and eight components');
    assert.equal(outcome(next, 'theirs').status, 'resolved');
  });

  test('is resolved again by an update that changes nothing of Aptomi’s', () => {
    const session = slowFirst();
    const next = session.update({ upserts: [], deletes: [] })!;
    assert.equal(outcome(next, 'heavy').status, 'resolved', outcome(next, 'heavy').errors.join('\n'));
  });
});

describe('a Capact Interface choice that ran out of its time', () => {
  const users: PolicyUser[] = [{ name: 'dev', labels: {}, secrets: {} }];
  const policy = load(`${manyImplementationsHub()}
---
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 10, actions: {change-labels: {set: {target: k8s}}}}
- {kind: bundle, metadata: {namespace: main, name: db}, components: [{name: db, interface: cap.interface.database.postgresql.install}]}
- {kind: service, metadata: {namespace: main, name: db}, contexts: [{name: all, allocation: {bundle: db, keys: ["{{ .Claim.Name }}"]}}]}
- {kind: bundle, metadata: {namespace: main, name: web}, components: [{name: app, code: {type: helm, params: {chartName: web}}}]}
- {kind: service, metadata: {namespace: main, name: web}, contexts: [{name: all, allocation: {bundle: web}}]}
- {kind: claim, metadata: {namespace: main, name: wants-db}, user: dev, service: db}
- {kind: claim, metadata: {namespace: main, name: web}, user: dev, service: web}
- {kind: action, metadata: {namespace: main, name: install-db}, interface: {path: cap.interface.database.postgresql.install}, target: k8s}
`);

  test('is made again by the next update: the claims that need it and the action resolve, and so does a claim added then', () => {
    grantClock(300);
    slow = true;
    const session = new EngineSession({ objects: policy, users });
    const first = session.state();
    for (const name of ['wants-db', 'install-db']) {
      assert.equal(outcome(first, name).status, 'error', name);
      assert.match(outcome(first, name).errors[0]!, /choosing an Implementation of Interface "cap\.interface\.database\.postgresql\.install:0\.1\.0" ran out of its time \(300 ms\)/);
      assert.equal(outcome(first, name).timedOut, true, name);
    }
    assert.equal(outcome(first, 'web').status, 'resolved');

    slow = false;
    // A change of nothing Capact reads: a label on another claim, and a new claim of the same Interface.
    const changed = load(`- {kind: claim, metadata: {namespace: main, name: web}, user: dev, service: web, labels: {tier: front}}
- {kind: claim, metadata: {namespace: main, name: late}, user: dev, service: db}`);
    const next = session.update({ upserts: changed, deletes: [] });
    assert.ok(next, 'a change of claims is absorbed in place');
    for (const name of ['wants-db', 'late', 'install-db']) {
      assert.equal(outcome(next, name).status, 'resolved', `${name}: ${outcome(next, name).errors.join('\n')}`);
      assert.equal(outcome(next, name).timedOut, undefined, name);
    }
    const db = next.instances.filter((i) => i.component === 'db' || i.component === 'action');
    assert.deepEqual(
      db.map((i) => i.code?.params.chartName),
      ['i399', 'i399', 'i399'],
    );
  });
});

describe('a Landscaper root installation that ran out of its time', () => {
  const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
  // Eight executions of 80,000 steps each: the root's time is theirs together.
  const executions = Array.from(
    { length: 8 },
    (_, i) => `  - name: e${i}
    type: GoTemplate
    template: |
      # ${SLOW_TEMPLATE}
      deployItems:
        - name: d${i}
          type: landscaper.gardener.cloud/kubernetes-manifest
          target: {import: cluster}
          config: {manifests: [{policy: manage, manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: d${i}}}}]}`,
  ).join('\n');
  const policy = load(`- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
---
${API}
kind: Target
metadata: {name: k8s, namespace: demo}
spec: {type: landscaper.gardener.cloud/kubernetes-cluster, config: {}}
---
${API}
kind: Blueprint
metadata: {name: heavy, namespace: demo}
imports: [{name: cluster, targetType: landscaper.gardener.cloud/kubernetes-cluster}]
deployExecutions:
${executions}
---
${API}
kind: Installation
metadata: {name: tree, namespace: demo}
spec:
  blueprint: {ref: {resourceName: heavy}}
  imports: {targets: [{name: cluster, target: k8s}]}
`);

  test('is run again by the next update, though the update changes nothing Landscaper reads', () => {
    grantClock(1000);
    slow = true;
    const session = new EngineSession({ objects: policy, users: [] });
    const first = outcome(session.state(), 'tree');
    assert.equal(first.status, 'error');
    assert.match(first.errors.join('\n'), /ran out of its time \(1000 ms\)/);
    assert.equal(first.timedOut, true);

    slow = false;
    const next = session.update({ upserts: [], deletes: [] })!;
    const tree = outcome(next, 'tree');
    assert.equal(tree.status, 'resolved', tree.errors.join('\n'));
    assert.equal(tree.timedOut, undefined);
    assert.equal(tree.instances.length, 8);
  });
});

describe('a Deployment Manager deployment whose templates ran out of their time', () => {
  const policy = load(`- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
---
kind: deployment
metadata: {namespace: shop, name: loops}
target: k8s
configuration:
  imports: [loop.jinja]
  resources: [{name: cm, type: loop.jinja}]
imports:
  loop.jinja: |
    {% for i in range(1000) %}{% endfor %}
    resources:
    - {name: loops-cm, type: ConfigMap, properties: {apiVersion: v1, kind: ConfigMap}}
`);

  test('is expanded again by the next update, though the update changes nothing it reads', () => {
    let ms = 0;
    // Each reading 200 ms later while slow: the expansion's 100 ms are gone before its template starts.
    useTemplateClock(() => (slow ? (ms += 200) : ms), 100);
    slow = true;
    const session = new EngineSession({ objects: policy, users: [] });
    const first = outcome(session.state(), 'loops');
    assert.equal(first.status, 'error');
    assert.match(first.errors.join('\n'), /ran out of time/);
    assert.equal(first.timedOut, true);

    slow = false;
    const next = session.update({ upserts: [], deletes: [] })!;
    const loops = outcome(next, 'loops');
    assert.equal(loops.status, 'resolved', loops.errors.join('\n'));
    assert.equal(loops.instances.length, 1);
  });
});

describe('the revision of a generation in which a claim ran out of its time', () => {
  const users: PolicyUser[] = [
    { name: 'dev', labels: {}, secrets: {} },
    { name: 'ops', labels: {}, secrets: {} },
  ];
  const components = slowComponents();
  const yaml = (extra = '') => `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 10, actions: {change-labels: {set: {target: k8s}}}}
- kind: bundle
  metadata: {namespace: main, name: slow}
  components:
${components}
    - {name: shared, service: db}
- {kind: service, metadata: {namespace: main, name: slow}, contexts: [{name: all, allocation: {bundle: slow}}]}
- {kind: bundle, metadata: {namespace: main, name: db}, components: [{name: pg, code: {type: helm, params: {chartName: postgresql}}}]}
- {kind: service, metadata: {namespace: main, name: db}, contexts: [{name: all, allocation: {bundle: db}}]}
- {kind: claim, metadata: {namespace: main, name: heavy}, user: dev, service: slow}
- {kind: claim, metadata: {namespace: main, name: data}, user: ops, service: db}
${extra}`;
  const resolve = (text: string, slowNow: boolean) => {
    grantClock(1000);
    slow = slowNow;
    const s = new EngineSession({ objects: load(text), users }).state();
    slow = false;
    return s;
  };

  test('holds the claim’s running instances back as they ran — its own and those it shares — rather than detaching or deleting them', () => {
    const before = resolve(yaml(), false);
    const running = before.instances.filter((i) => i.claims.includes('main/heavy'));
    assert.equal(running.length, 12, 'the slow bundle (root, eight components, the one using db) and the db (root, pg)');
    assert.ok(running.some((i) => i.claims.includes('main/data')), 'the db is shared with another claim');

    // The next generation adds a claim; the heavy one, unchanged, misses its time.
    const after = resolve(yaml('- {kind: claim, metadata: {namespace: main, name: more}, user: ops, service: db}'), true);
    assert.equal(outcome(after, 'heavy').timedOut, true);
    assert.equal(after.instances.filter((i) => i.claims.includes('main/heavy')).length, 0, 'it contributes nothing');

    const plan = planRevision({ before, after, clusters: [] });
    const touching = plan.actions.filter((a) => running.some((i) => i.key === a.key));
    assert.deepEqual(touching, [], 'no detach, delete or update of what it runs');
    assert.ok(plan.notes.some((n) => /held back: 'main\/heavy' ran out of its time; what runs is kept as it was/.test(n.note)));
    assert.deepEqual(plan.steps, []);
    // What runs once it is applied: everything as it ran.
    const applied = appliedState(before, after);
    for (const i of running) assert.deepEqual(applied.instances.find((x) => x.key === i.key), i, i.key);

    // A claim that failed on the policy's account is not held: what it ran is removed, as Aptomi does.
    const broken = resolve(yaml().replace('service: slow}', 'service: nowhere}'), false);
    assert.equal(outcome(broken, 'heavy').timedOut, undefined);
    const removal = planRevision({ before, after: broken, clusters: [] });
    assert.ok(removal.actions.some((a) => a.kind === 'delete' && running.some((i) => i.key === a.key)));
  });
});
