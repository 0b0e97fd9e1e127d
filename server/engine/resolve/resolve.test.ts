import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadObjects } from '../model/validate';
import type { PolicyUser } from '../model/users';
import { MAX_SERVICE_DEPTH, resolvePolicy, ResolveSession } from './index';
import { hostileTemplatesPolicy, serviceChainPolicy } from '../../testing/hostile-engine';

const users: PolicyUser[] = [
  { name: 'dev', labels: { team: 'dev', org: 'eng' }, secrets: {} },
  { name: 'ops', labels: { team: 'ops', org: 'eng' }, secrets: {} },
];

function load(yaml: string) {
  const r = loadObjects(yaml);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  return r.objects;
}

const BASE = `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 10, actions: {change-labels: {set: {target: k8s}}}}
- {kind: rule, metadata: {namespace: main, name: tag-dev}, weight: 20, criteria: {require-all: ["team == 'dev'"]}, actions: {change-labels: {set: {tier: sandbox}, remove: {org: ''}}}}
- kind: bundle
  metadata: {namespace: main, name: web}
  components: [{name: app, code: {type: helm, params: {tier: "{{ default .Labels.tier }}"}}}]
- kind: service
  metadata: {namespace: main, name: web}
  contexts:
    - {name: prod, criteria: {require-all: ["team == 'ops'"]}, allocation: {bundle: web}}
    - {name: dev, criteria: {require-any: ["team == 'dev'", "team == 'qa'"]}, allocation: {bundle: web, keys: ["{{ .User.Name }}"]}}
`;

describe('decision traces', () => {
  test('name the contexts tried and why, the rules that matched and what they changed, the keys and the target', () => {
    const state = resolvePolicy({ objects: load(BASE + '- {kind: claim, metadata: {namespace: main, name: c}, user: dev, service: web}'), users });
    const c = state.claims[0]!;
    assert.equal(c.status, 'resolved');
    const lines = c.trace.map((s) => `${s.kind}: ${s.message}`);
    const has = (re: RegExp) => assert.ok(lines.some((l) => re.test(l)), `${re} not in:\n${lines.join('\n')}`);
    has(/^context: context prod: did not match \(require-all `team == 'ops'` was false\)$/);
    has(/^context: context dev: matched \(require-any `team == 'dev'` was true\)$/);
    has(/^keys: allocation keys: dev$/);
    has(/^rule: rule main\/place \(weight 10\) matched: no criteria \(always matches\); labels target=k8s$/);
    has(/^rule: rule main\/tag-dev \(weight 20\) matched: require-all `team == 'dev'` was true; labels tier=sandbox, -org$/);
    has(/^target: target: cluster system\/k8s, namespace apps$/);
    assert.equal(state.instances.find((i) => i.component === 'app')!.code!.params.tier, 'sandbox');
  });

  test('a rejected claim says which rule rejected it', () => {
    const objs = load(BASE + `
- {kind: rule, metadata: {namespace: system, name: no-dev}, weight: 1, criteria: {require-all: ["team == 'dev'"]}, actions: {claim: reject}}
- {kind: claim, metadata: {namespace: main, name: c}, user: dev, service: web}`);
    const c = resolvePolicy({ objects: objs, users }).claims[0]!;
    assert.equal(c.status, 'rejected');
    assert.match(c.errors[0]!, /\(rule 'system\/no-dev'\)$/);
    assert.equal(c.trace.at(-1)!.kind, 'reject');
    assert.ok(c.trace.some((s) => s.kind === 'rule' && s.data?.rule === 'system/no-dev' && s.data?.claim === 'reject'));
  });
});

describe('limits and failures stay with their claim', () => {
  // How fast these are stopped is the `limits` benchmark's figures (limits.deep_chain.ms, limits.hostile_resolve.ms), not assertions here.
  test(`a service chain deeper than ${MAX_SERVICE_DEPTH} levels fails that claim with a reason`, () => {
    const yaml = BASE + serviceChainPolicy(MAX_SERVICE_DEPTH + 5) + '\n- {kind: claim, metadata: {namespace: main, name: shallow}, user: ops, service: web}';
    const state = resolvePolicy({ objects: load(yaml), users });
    const byName = Object.fromEntries(state.claims.map((c) => [c.name, c]));
    assert.equal(byName.deep!.status, 'error');
    assert.match(byName.deep!.errors[0]!, /service chain deeper than 32 levels/);
    assert.equal(byName.shallow!.status, 'resolved');
    assert.ok(state.instances.every((i) => i.claims.every((c) => c === 'main/shallow')), 'the failed claim contributes nothing');
  });

  test('hostile templates and expressions fail their claim on the template cap', () => {
    const c = resolvePolicy({ objects: load(hostileTemplatesPolicy()), users }).claims[0]!;
    assert.equal(c.status, 'error');
    assert.match(c.errors[0]!, /code parameters of component 'x'.*(larger than|exceeded)/);
  });

  test('conflicting parameters fail only the claims involved', () => {
    const objs = load(`
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 0, actions: {change-labels: {set: {target: k8s}}}}
- {kind: bundle, metadata: {namespace: main, name: b}, components: [{name: x, code: {type: helm, params: {who: "{{ .Labels.team }}"}}}]}
- {kind: service, metadata: {namespace: main, name: shared}, contexts: [{name: c, allocation: {bundle: b}}]}
- {kind: service, metadata: {namespace: main, name: own}, contexts: [{name: c, allocation: {bundle: b, keys: ["{{ .User.Name }}"]}}]}
- {kind: claim, metadata: {namespace: main, name: a}, user: dev, service: shared}
- {kind: claim, metadata: {namespace: main, name: b}, user: ops, service: shared}
- {kind: claim, metadata: {namespace: main, name: c}, user: dev, service: own}`);
    const state = resolvePolicy({ objects: objs, users });
    assert.deepEqual(state.claims.map((c) => [c.name, c.status]), [['a', 'error'], ['b', 'error'], ['c', 'resolved']]);
    const conflicted = state.instances.find((i) => i.key.endsWith('#shared#c#x'))!;
    assert.match(conflicted.error!, /conflicting code parameters/);
    assert.deepEqual(conflicted.claims, ['main/a', 'main/b']);
    assert.ok(!state.instances.find((i) => i.key.includes('#own#'))!.error);
  });

  const SHARED = `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 0, actions: {change-labels: {set: {target: k8s}}}}
- {kind: bundle, metadata: {namespace: main, name: b}, components: [{name: x, code: {type: helm, params: {who: "{{ .Labels.team }}"}}}]}
- {kind: service, metadata: {namespace: main, name: shared}, contexts: [{name: c, allocation: {bundle: b}}]}
- {kind: claim, metadata: {namespace: main, name: platform}, user: ops, service: shared}`;

  const TENANT = `\n- {kind: claim, metadata: {namespace: acme, name: api}, user: dev, service: main/shared}`;
  /** PolicyInput.deployedClaims: these claims deployed as `objects` has them. */
  const deployedAsIn = (objects: ReturnType<typeof load>, keys: string[]) =>
    new Map(objects.filter((o) => o.kind === 'claim' && keys.includes(`${o.namespace}/${o.name}`)).map((o) => [`${o.namespace}/${o.name}`, JSON.stringify(o.spec)]));

  test('a new claim that conflicts with a deployed one fails alone; the deployed one keeps its instance', () => {
    const objects = load(SHARED + TENANT);
    const state = resolvePolicy({ objects, users, deployedClaims: deployedAsIn(objects, ['main/platform']) });
    const byName = Object.fromEntries(state.claims.map((c) => [`${c.namespace}/${c.name}`, c]));
    assert.equal(byName['main/platform']!.status, 'resolved');
    assert.equal(byName['acme/api']!.status, 'error');
    assert.match(byName['acme/api']!.errors[0]!, /claim 'acme\/api' renders values different from deployed claim 'main\/platform', which keeps the instance/);
    const x = state.instances.find((i) => i.key.endsWith('#shared#c#x'))!;
    assert.equal(x.error, undefined);
    assert.deepEqual(x.claims, ['main/platform']);
    assert.deepEqual(x.code?.params, { who: 'ops' });
  });

  test('a deployed claim changed since is new again: its change fails, the unchanged deployed claim keeps the instance', () => {
    // acme/api ran beside main/platform as ops; now it acts for dev, which renders another value.
    const before = load(SHARED + TENANT.replace('user: dev', 'user: ops'));
    const state = resolvePolicy({ objects: load(SHARED + TENANT), users, deployedClaims: deployedAsIn(before, ['main/platform', 'acme/api']) });
    assert.deepEqual(state.claims.map((c) => [c.name, c.status]), [['api', 'error'], ['platform', 'resolved']]);
    assert.deepEqual(state.instances.find((i) => i.key.endsWith('#shared#c#x'))!.code?.params, { who: 'ops' });
  });

  test('the warm session weighs conflicts again when the deployed generation or a claim changes, as a full resolution does', () => {
    const session = new ResolveSession({ objects: load(SHARED), users }, { trace: false });
    const withTenant = load(SHARED + TENANT);
    const full = (deployedClaims: Map<string, string>) => resolvePolicy({ objects: withTenant, users, deployedClaims }, { trace: false });
    // Nothing deployed yet: both fail, as a full resolution of the same input says.
    const tenant = withTenant.filter((o) => o.namespace === 'acme').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as never }));
    assert.deepEqual(session.updateClaims({ upserts: tenant }), full(new Map()));
    const deployed = deployedAsIn(withTenant, ['main/platform']);
    session.setDeployedClaims(deployed);
    const kept = session.state();
    assert.deepEqual(kept, full(deployed));
    assert.deepEqual(kept.claims.map((c) => c.status), ['error', 'resolved']);
    // The deployed claim changes (to what the tenant renders): it is new again, so both fail, as resolving it all says.
    const changed = load(SHARED.replace('user: ops', 'user: dev') + TENANT);
    const platform = changed.filter((o) => o.name === 'platform').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as never }));
    const moved = session.updateClaims({ upserts: platform });
    assert.deepEqual(moved, resolvePolicy({ objects: changed, users, deployedClaims: deployed }, { trace: false }));
    assert.deepEqual(moved.claims.map((c) => c.status), ['resolved', 'resolved'], 'they now agree');
    session.setDeployedClaims(new Map());
    assert.deepEqual(session.state(), resolvePolicy({ objects: changed, users }, { trace: false }));
  });
});

describe('incremental re-resolution', () => {
  test('updating one claim gives the same state as resolving everything again', () => {
    const claims = (tier: string) => `
- {kind: claim, metadata: {namespace: main, name: c1}, user: dev, service: web, labels: {x: '${tier}'}}
- {kind: claim, metadata: {namespace: main, name: c2}, user: ops, service: web}`;
    const before = load(BASE + claims('1'));
    const after = load(BASE + claims('2'));
    const session = new ResolveSession({ objects: before, users }, { trace: false });
    const changed = after.filter((o) => o.kind === 'claim' && o.name === 'c1').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as never }));
    const incremental = session.updateClaims({ upserts: changed });
    assert.deepEqual(incremental, resolvePolicy({ objects: after, users }, { trace: false }));
    const removed = session.updateClaims({ deletes: ['main/c2'] });
    assert.deepEqual(removed.claims.map((c) => c.name), ['c1']);
    assert.ok(removed.instances.every((i) => i.claims.join() === 'main/c1'));
  });
});
