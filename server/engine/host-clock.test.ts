/**
 * Each unit of a resolution — an Aptomi claim, a Landscaper root
 * installation, a Capact choice, a service's placement by its tenant's
 * rules — has its own time on the clock the host
 * grants (host-clock.ts), and one that runs out of it fails alone, as its
 * own error naming the object and the budget, while the others resolve.
 * The policies here are within every per-run budget (steps, sizes): each
 * template stays under its step limit, but a unit runs many of them, which
 * only time bounds.
 *
 * The clock is a counter that moves one millisecond each time it is read,
 * so the tests are the same on an idle machine and a loaded one: the
 * engine reads it only now and then (every 256 steps of a language, once
 * per service level or installation), so a quick unit is far from its
 * allowance and a slow one far past it.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { runEngine } from './index';
import { selectEnvironment, type Candidate } from './axebow/stage';
import { installAll } from './landscaper';
import { loadObjects } from './model/validate';
import type { PolicyUser } from './model/users';
import { useEvaluationClock } from './host-clock';
import { manyImplementationsHub, slowComponents, SLOW_TEMPLATE } from '../testing/slow-units';

/** Grants the engine a clock that moves one millisecond per reading, and `ms` of it per unit. */
function grantCountingClock(ms: number): void {
  let t = 0;
  useEvaluationClock(() => t++, ms);
}

afterEach(() => useEvaluationClock(undefined));

function load(yaml: string) {
  const r = loadObjects(yaml);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  return r.objects;
}


describe('an Aptomi claim', () => {
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
- {kind: claim, metadata: {namespace: main, name: hostile}, user: dev, service: slow}
- {kind: claim, metadata: {namespace: main, name: mine}, user: dev, service: web}
- {kind: claim, metadata: {namespace: main, name: theirs}, user: ops, service: web}
`);
  const claim = (state: ReturnType<typeof runEngine>, name: string) => state.claims.find((c) => c.name === name)!;

  test('whose templates each stay within their steps, but not within its time, fails with that error; the other claims resolve', () => {
    grantCountingClock(1000);
    const state = runEngine({ objects: policy, users });
    const hostile = claim(state, 'hostile');
    assert.equal(hostile.status, 'error');
    assert.match(hostile.errors[0]!, /^code parameters of component 'c\d' in bundle 'main\/slow': dots: template .*ran out of its time \(1000 ms\)$/);
    assert.deepEqual(hostile.instances, []);
    assert.deepEqual(
      ['mine', 'theirs'].map((n) => [n, claim(state, n).status]),
      [
        ['mine', 'resolved'],
        ['theirs', 'resolved'],
      ],
    );
    assert.deepEqual(
      state.instances.filter((i) => i.component === 'app').map((i) => i.code?.params.owner),
      ['dev', 'ops'],
    );
  });

  test('without a clock from the host only the per-run budgets apply, and the same claim resolves', () => {
    const state = runEngine({ objects: policy, users });
    assert.equal(claim(state, 'hostile').status, 'resolved', claim(state, 'hostile').errors.join('\n'));
  });
});

describe('a Landscaper root installation', () => {
  const API = 'landscaper.gardener.cloud/v1alpha1';
  const blueprint = (b: Record<string, unknown>) => ({ 'blueprint.yaml': stringify({ apiVersion: API, kind: 'Blueprint', ...b }) });
  const heavy = blueprint({ deployExecutions: [{ name: 'dots', type: 'GoTemplate', template: `dots: "${SLOW_TEMPLATE}"\n` }] });
  const blueprints = {
    // Eight subinstallations of one heavy execution each: the root's time is theirs together.
    tree: blueprint({ subinstallations: Array.from({ length: 8 }, (_, i) => ({ name: `c${i}`, blueprint: { ref: 'cd://componentReferences/heavy/resources/blueprint' } })) }),
    'cd://componentReferences/heavy/resources/blueprint': heavy,
    quick: blueprint({ deployExecutions: [{ name: 'one', type: 'Spiff', template: { value: '(( 1 + 1 ))' } }] }),
  };
  const installation = (name: string, resourceName: string) => ({ apiVersion: API, kind: 'Installation', metadata: { name, namespace: 'ls' }, spec: { blueprint: { ref: { resourceName } } } });
  const objects = [installation('tree', 'tree'), installation('quick', 'quick')];

  test('that runs out of its time fails with that error, naming the subinstallation; the other root succeeds', () => {
    grantCountingClock(1000);
    const run = installAll({ objects, blueprints });
    const phase = (name: string) => run.installations.find((i) => i.name === name)?.phase;
    assert.equal(phase('quick'), 'Succeeded');
    assert.equal(phase('tree'), 'Failed');
    assert.equal(phase('tree/c0'), 'Succeeded');
    const timedOut = run.errors.filter((e) => /ran out of its time \(1000 ms\)|ran out of the time its root installation has \(1000 ms\)/.test(e.message));
    assert.ok(timedOut.length > 0, JSON.stringify(run.errors));
    // The first to run out is stopped inside its template; the ones after it do not start.
    assert.match(timedOut[0]!.message, /^deploy execution dots: template "dots": template ran out of its time \(1000 ms\)$/);
    assert.equal(timedOut.at(-1)!.installation, 'tree/c7');
    assert.equal(timedOut.at(-1)!.code, 'time_limit');
  });

  test('without a clock from the host, the same tree succeeds', () => {
    const run = installAll({ objects, blueprints });
    assert.deepEqual(run.errors, []);
    assert.deepEqual([...new Set(run.installations.map((i) => i.phase))], ['Succeeded']);
  });
});

describe('a Capact choice', () => {
  const users: PolicyUser[] = [{ name: 'dev', labels: {}, secrets: {} }];
  const policy = load(`${manyImplementationsHub()}
---
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 10, actions: {change-labels: {set: {target: k8s}}}}
- {kind: bundle, metadata: {namespace: main, name: db}, components: [{name: db, interface: cap.interface.database.postgresql.install}]}
- {kind: service, metadata: {namespace: main, name: db}, contexts: [{name: all, allocation: {bundle: db}}]}
- {kind: bundle, metadata: {namespace: main, name: web}, components: [{name: app, code: {type: helm, params: {chartName: web}}}]}
- {kind: service, metadata: {namespace: main, name: web}, contexts: [{name: all, allocation: {bundle: web}}]}
- {kind: claim, metadata: {namespace: main, name: wants-db}, user: dev, service: db}
- {kind: claim, metadata: {namespace: main, name: web}, user: dev, service: web}
- {kind: action, metadata: {namespace: main, name: install-db}, interface: {path: cap.interface.database.postgresql.install}, target: k8s}
`);

  test('that runs out of its time fails the claim and the action that need it, saying so; the rest resolves', () => {
    grantCountingClock(300);
    const state = runEngine({ objects: policy, users });
    const outcome = (name: string) => state.claims.find((c) => c.name === name)!;
    const why = /choosing an Implementation of Interface "cap\.interface\.database\.postgresql\.install:0\.1\.0" ran out of its time \(300 ms\)/;
    assert.equal(outcome('wants-db').status, 'error');
    assert.match(outcome('wants-db').errors[0]!, why);
    assert.equal(outcome('install-db').status, 'error');
    assert.match(outcome('install-db').errors[0]!, why);
    assert.equal(outcome('web').status, 'resolved');
  });

  test('without a clock from the host, the same choice is made', () => {
    const state = runEngine({ objects: policy, users });
    const db = state.instances.find((i) => i.component === 'db');
    assert.equal(db?.code?.params.chartName, 'i399');
  });
});

describe("a service's placement by its tenant's rules", () => {
  // A rule of 1,001 items (the most is 1,024): a selector looks at the clock at every one.
  const long = [true, ...Array.from({ length: 500 }, () => [true, '::and']).flat()];
  const env = (id: number, name: string): Candidate => ({ id, name, info: { id, name }, over: [], freeVcpuMillisAfter: 1000 });
  const place = () =>
    selectEnvironment({
      rules: { validateEnvironmentUser: [{ reason: 'long', sel: long }] },
      tenant: { name: 'acme' },
      user: { name: 'alice', role: 'plain' },
      service: () => ({ name: 'web' }),
      resources: [],
      candidates: [env(1, 'main/a'), env(2, 'main/b')],
    });

  test('whose rules run out of its time counts them false, saying so', () => {
    grantCountingClock(300);
    const s = place();
    assert.equal(s.chosen, null);
    assert.deepEqual(
      s.table.map((r) => [r.environment, r.outcome]),
      [
        ['main/a', 'excluded'],
        ['main/b', 'excluded'],
      ],
    );
    for (const r of s.table) assert.match(r.reasons.join('\n'), /^validateEnvironmentUser "long" could not run: the run ran out of its time \(300 ms\) at \d+$/);
  });

  test('without a clock from the host, the same rules admit both', () => {
    assert.equal(place().chosen?.environment, 'main/a');
  });
});
