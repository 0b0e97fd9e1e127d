/**
 * Reusing level walks between claims (the memo) must never change a result:
 * every policy here resolves identically with and without it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generatePolicy, toPolicyInput } from '../../../bench/generator';
import { loadObjects } from '../model/validate';
import type { PolicyUser } from '../model/users';
import { resolvePolicy, type PolicyInput } from './index';
import { aptomiOf } from '../state';

function same(input: PolicyInput) {
  const withMemo = resolvePolicy(input, { trace: false });
  const without = resolvePolicy({ ...input, memo: false }, { trace: false });
  assert.deepEqual(withMemo, without);
  return withMemo;
}

const POLICY = `
- kind: cluster
  metadata: {namespace: system, name: c1}
  type: kubernetes
  config: {defaultnamespace: ns}
- kind: cluster
  metadata: {namespace: system, name: c2}
  type: kubernetes
- kind: rule
  metadata: {namespace: main, name: place}
  weight: 1
  actions: {change-labels: {set: {target: c1}}}
- kind: rule
  metadata: {namespace: main, name: vip-claims-elsewhere}
  weight: 2
  criteria: {require-all: ["Claim.Name == 'vip'"]}
  actions: {change-labels: {set: {target: c2}}}
- kind: rule
  metadata: {namespace: system, name: no-interns}
  weight: 1
  criteria: {require-all: ["team == 'interns'"]}
  actions: {claim: reject}
- kind: bundle
  metadata: {namespace: main, name: db}
  components:
    - name: db
      code: {type: helm, params: {size: "{{ .Labels.size }}"}}
      discovery: {url: "db-{{ .Discovery.Instance }}"}
- kind: service
  metadata: {namespace: main, name: db}
  contexts:
    - name: shared
      criteria: {require-none: ["dedicated == true"]}
      allocation: {bundle: db}
    - name: dedicated
      allocation: {bundle: db, keys: ["{{ .User.Name }}"]}
- kind: bundle
  metadata: {namespace: main, name: cache}
  components:
    - name: db
      service: db
    - name: cache
      code: {type: helm, params: {db: "{{ .Discovery.db.db.url }}"}}
      discovery: {url: "cache-{{ .Discovery.Instance }}"}
      dependencies: [db]
- kind: service
  metadata: {namespace: main, name: cache}
  contexts: [{name: only, allocation: {bundle: cache, keys: ['{{ default "shared" .Labels.dedicated }}']}}]
- kind: bundle
  metadata: {namespace: main, name: app}
  components:
    - {name: db, service: db}
    - {name: cache, service: cache}
    - name: web
      criteria: {require-all: ["web"]}
      code: {type: raw, params: {manifest: "cache={{ .Discovery.cache.cache.url }} db={{ .Discovery.db.db.url }} by {{ .User.Name }}"}}
      dependencies: [db, cache]
- kind: service
  metadata: {namespace: main, name: app}
  contexts: [{name: only, allocation: {bundle: app, keys: ["{{ .User.Name }}"]}}]
`;

const USERS: PolicyUser[] = [
  { name: 'ann', labels: { size: 'small', web: 'true' }, secrets: {} },
  { name: 'ben', labels: { size: 'small', web: 'true' }, secrets: {} },
  { name: 'cat', labels: { size: 'large', web: 'false', dedicated: 'true' }, secrets: {} },
  { name: 'dan', labels: { size: 'small', team: 'interns' }, secrets: {} },
];

/** One cluster, and a rule that places everything on it. */
const ONE_CLUSTER = `
- kind: cluster
  metadata: {namespace: system, name: c1}
  type: kubernetes
- kind: rule
  metadata: {namespace: main, name: place}
  weight: 1
  actions: {change-labels: {set: {target: c1}}}`;

describe('memoised resolution equals a full walk', () => {
  test('users, claims, keys, rules reading the claim, diamonds and discovery across levels', () => {
    const claims = [
      ['c0', 'ann', 'app', ''],
      ['c1', 'ben', 'app', ''],
      ['c2', 'ben', 'cache', ''],
      ['c3', 'dan', 'app', ''],
      ['c4', 'cat', 'app', ', labels: {size: medium}'],
      ['vip', 'ann', 'app', ''],
    ]
      .map(([name, user, service, extra]) => `- {kind: claim, metadata: {namespace: main, name: ${name}}, user: ${user}, service: ${service}${extra}}`)
      .join('\n');
    const loaded = loadObjects(POLICY + claims);
    assert.deepEqual(loaded.diagnostics, []);
    const state = same({ objects: loaded.objects, users: USERS });
    const status = Object.fromEntries(state.claims.map((c) => [c.name, c.status]));
    assert.deepEqual(status, { c0: 'resolved', c1: 'resolved', c2: 'resolved', c3: 'rejected', c4: 'resolved', vip: 'resolved' });
    // The claim-reading rule moved only the vip claim to c2.
    const vip = state.claims.find((c) => c.name === 'vip')!;
    assert.ok(vip.instance?.startsWith('system#c2#default#main#app#only#ann#'), vip.instance);
    // Ann, Ben (twice) share one cache and db on c1; Cat has her own (dedicated) pair.
    const caches = state.instances.filter((i) => i.component === 'cache' && i.code && i.target.cluster === 'c1');
    assert.deepEqual(caches.map((i) => [aptomiOf(i)?.allocationKeys, i.claims]), [
      [['shared'], ['main/c0', 'main/c1', 'main/c2']],
      [['true'], ['main/c4']],
    ]);
    const web = state.instances.find((i) => i.key === 'system#c1#ns#main#app#only#ann#web')!;
    assert.match(String(web.code!.params.manifest), /^cache=cache-a-\w+ db=db-a-\w+ by ann$/);
  });

  test('a template that reads the whole root (`{{ print . }}`) reads the user: two users are not given one rendering', () => {
    const policy = `${ONE_CLUSTER}
- kind: bundle
  metadata: {namespace: main, name: dump}
  components:
    - name: app
      code: {type: raw, params: {data: "{{ print . }}"}}
- kind: service
  metadata: {namespace: main, name: dump}
  contexts: [{name: only, allocation: {bundle: dump}}]
- {kind: claim, metadata: {namespace: main, name: a}, user: ann, service: dump}
- {kind: claim, metadata: {namespace: main, name: b}, user: ben, service: dump}
`;
    const loaded = loadObjects(policy);
    assert.deepEqual(loaded.diagnostics, []);
    const state = same({ objects: loaded.objects, users: USERS });
    // Both users reach one instance and render different code: a conflict, as a full walk finds.
    assert.deepEqual(
      state.claims.map((c) => [c.name, c.status]),
      [
        ['a', 'error'],
        ['b', 'error'],
      ],
    );
    assert.match(state.claims[0]!.errors.join(), /conflicting code parameters/);
  });

  test('level decisions shared between users: consume rights are still checked per user', () => {
    const claims = ['ann', 'ben', 'ann', 'ben']
      .map((user, i) => `- {kind: claim, metadata: {namespace: main, name: c${i}}, user: ${user}, service: cache}`)
      .join('\n');
    const loaded = loadObjects(POLICY.replace(/criteria: \{require-all: \["Claim.Name == 'vip'"\]\}/, "criteria: {require-all: [\"false\"]}") + claims);
    assert.deepEqual(loaded.diagnostics, []);
    const state = same({ objects: loaded.objects, users: USERS, enforceConsumeAcl: true, domainAdmins: ['ann'] });
    assert.deepEqual(
      state.claims.map((c) => [c.name, c.status]),
      [
        ['c0', 'resolved'],
        ['c1', 'rejected'],
        ['c2', 'resolved'],
        ['c3', 'rejected'],
      ],
    );
  });

  test('a level whose templates do not read discovery, reached from two parents and directly, is one instance with both edges', () => {
    const policy = `${ONE_CLUSTER}
- kind: bundle
  metadata: {namespace: main, name: leaf}
  components:
    - {name: db, code: {type: helm, params: {size: "{{ .Labels.size }}"}}, discovery: {size: "{{ .Labels.size }}"}}
- kind: service
  metadata: {namespace: main, name: leaf}
  contexts: [{name: only, allocation: {bundle: leaf}}]
- kind: bundle
  metadata: {namespace: main, name: p1}
  components:
    - {name: dep, service: leaf}
    - {name: app, code: {type: helm, params: {db: "{{ .Discovery.dep.db.size }}"}}, dependencies: [dep]}
- kind: bundle
  metadata: {namespace: main, name: p2}
  components:
    - {name: dep, service: leaf}
- kind: service
  metadata: {namespace: main, name: p1}
  contexts: [{name: only, allocation: {bundle: p1}}]
- kind: service
  metadata: {namespace: main, name: p2}
  contexts: [{name: only, allocation: {bundle: p2}}]
- {kind: claim, metadata: {namespace: main, name: a}, user: ann, service: leaf}
- {kind: claim, metadata: {namespace: main, name: b}, user: ben, service: p1}
- {kind: claim, metadata: {namespace: main, name: c}, user: ann, service: p2}
- {kind: claim, metadata: {namespace: main, name: d}, user: ben, service: p2}
`;
    const loaded = loadObjects(policy);
    assert.deepEqual(loaded.diagnostics, []);
    const state = same({ objects: loaded.objects, users: USERS });
    assert.ok(state.claims.every((c) => c.status === 'resolved'));
    const leaf = state.instances.find((i) => i.component === 'db')!;
    assert.deepEqual(leaf.claims, ['main/a', 'main/b', 'main/c', 'main/d']);
    const leafRoot = state.instances.find((i) => i.key === leaf.key.replace(/db$/, 'root'))!;
    const parents = state.instances.filter((i) => i.edges.includes(leafRoot.key)).map((i) => i.key.split('#').slice(4, 5).concat(i.component));
    assert.deepEqual(parents, [['p1', 'dep'], ['p2', 'dep']]);
    // The parent read what its dependency announced.
    assert.equal(state.instances.find((i) => i.component === 'app')!.code!.params.db, 'small');
  });

  test('the generated benchmark policy (small)', () => {
    const g = generatePolicy('small');
    const state = same(toPolicyInput(g));
    assert.equal(state.claims.filter((c) => c.status === 'resolved').length, 500);
  });

  test('the same with varied users: half the users get other labels', () => {
    const g = generatePolicy('small', { claims: 300 });
    const users = g.users.map((u, i) => (i % 2 ? { ...u, labels: { ...u.labels, extra: String(i % 5) } } : u));
    same(toPolicyInput(g, users));
  });
});
