/**
 * A bundle component naming a Capact Interface: the Global policy chooses
 * the Implementation, whose Keelson code becomes the component's (params
 * rendered in the claim's context); a policy allowing nothing fails the
 * claim with Capact's reason; a change to the Hub or the policy is not
 * absorbed in place (the session starts over).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EngineSession } from '../index';
import { loadObjects } from '../model/validate';
import type { PolicyUser } from '../model/users';
import { resolvePolicy } from './index';
import { tryCapact } from '../capact/try';
import { stringify } from 'yaml';

const users: PolicyUser[] = [{ name: 'dev', labels: { team: 'dev' }, secrets: {} }];

function load(yaml: string) {
  const r = loadObjects(yaml);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  return r.objects;
}

const HUB = `
ocfVersion: 0.0.1
revision: 0.1.0
kind: Interface
metadata: {prefix: cap.interface.database.postgresql, name: install}
spec: {input: {}, output: {}}
---
ocfVersion: 0.0.1
revision: 0.1.0
kind: Implementation
metadata: {prefix: cap.implementation.bitnami.postgresql, name: install}
spec:
  implements: [{path: cap.interface.database.postgresql.install, revision: 0.1.0}]
  keelson:
    code: {type: helm, params: {chartRepo: https://charts.bitnami.com/bitnami, chartName: postgresql, owner: "{{ .User.Name }}"}}
---
ocfVersion: 0.0.1
revision: 0.1.0
kind: Implementation
metadata: {prefix: cap.implementation.aws.rds, name: install}
spec:
  implements: [{path: cap.interface.database.postgresql.install, revision: 0.1.0}]
  keelson:
    code: {type: helm, params: {chartRepo: https://charts.example.com, chartName: rds-proxy}}
`;

const policy = (oneOf: string) => `
kind: policy
metadata: {namespace: system, name: global}
interface:
  rules:
    - interface: {path: cap.interface.database.postgresql.install}
      oneOf: ${oneOf}
`;

const APP = `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 10, actions: {change-labels: {set: {target: k8s}}}}
- kind: bundle
  metadata: {namespace: main, name: app}
  components:
    - {name: db, interface: "cap.interface.database.postgresql.install"}
    - {name: web, code: {type: helm, params: {chartRepo: https://charts.example.com, chartName: web}}, dependencies: [db]}
- {kind: service, metadata: {namespace: main, name: app}, contexts: [{name: all, allocation: {bundle: app}}]}
- {kind: claim, metadata: {namespace: main, name: mine}, user: dev, service: app}
`;

const BY_PATH = (impl: string) => `[{implementationConstraints: {path: ${impl}}}]`;

describe('components naming a Capact Interface', () => {
  test('the policy chooses the Implementation; its code is the component code, rendered for the claim', () => {
    const state = resolvePolicy({ objects: load(`${HUB}---\n${policy(BY_PATH('cap.implementation.aws.rds.install'))}---\n${APP}`), users });
    const c = state.claims[0]!;
    assert.equal(c.status, 'resolved', c.errors.join('\n'));
    const db = state.instances.find((i) => i.component === 'db')!;
    assert.deepEqual(db.code, { type: 'helm', params: { chartRepo: 'https://charts.example.com', chartName: 'rds-proxy' } });
    assert.ok(c.trace.some((s) => /component db → interface cap\.interface\.database\.postgresql\.install: Implementation cap\.implementation\.aws\.rds\.install:0\.1\.0/.test(s.message)));

    const bitnami = resolvePolicy({ objects: load(`${HUB}---\n${policy(BY_PATH('cap.implementation.bitnami'))}---\n${APP}`), users });
    const code = bitnami.instances.find((i) => i.component === 'db')!.code as { params: Record<string, unknown> };
    assert.equal(code.params.chartName, 'postgresql');
    assert.equal(code.params.owner, 'dev', 'params are templates, rendered in the claim’s context');
  });

  test('a policy that allows nothing fails the claim with the reason; no policy at all allows nothing', () => {
    const denied = resolvePolicy({ objects: load(`${HUB}---\n${policy('[]')}---\n${APP}`), users });
    assert.equal(denied.claims[0]!.status, 'error');
    assert.match(denied.claims[0]!.errors.join('\n'), /component db of bundle main\/app: interface cap\.interface\.database\.postgresql\.install: .*No Implementations found/);
    const none = resolvePolicy({ objects: load(`${HUB}---\n${APP}`), users });
    assert.equal(none.claims[0]!.status, 'error');
  });

  test('an Implementation without Keelson code is chosen but cannot be deployed: the claim says so', () => {
    const hub = HUB.replace(/ {2}keelson:\n {4}code: \{type: helm, params: \{chartRepo: https:\/\/charts\.example\.com, chartName: rds-proxy\}\}\n/, '');
    const state = resolvePolicy({ objects: load(`${hub}---\n${policy(BY_PATH('cap.implementation.aws'))}---\n${APP}`), users });
    assert.match(state.claims[0]!.errors.join('\n'), /Implementation cap\.implementation\.aws\.rds\.install:0\.1\.0 was chosen, but it has no spec\.keelson\.code/);
  });

  test('a change of the Global policy is not absorbed in place: the session starts over', () => {
    const objects = load(`${HUB}---\n${policy(BY_PATH('cap.implementation.aws'))}---\n${APP}`);
    const session = new EngineSession({ objects, users });
    assert.equal(session.state().claims[0]!.status, 'resolved');
    const [changed] = load(policy(BY_PATH('cap.implementation.bitnami')));
    assert.equal(session.update({ upserts: [changed!], deletes: [] }), null);
  });

  test('the Implementation’s Keelson code is checked when it is saved', () => {
    const r = loadObjects(HUB.replace('code: {type: helm, params: {chartRepo: https://charts.example.com, chartName: rds-proxy}}', 'code: {type: ansible}'), 'hub.yaml');
    const e = r.diagnostics.find((d) => d.severity === 'error')!;
    assert.equal(e.object, 'implementation/system/cap.implementation.aws.rds.install:0.1.0');
    assert.match(e.message, /spec\.keelson\.code\.type/);
  });
});

describe('actions: an Interface requested directly', () => {
  const ACTION = (extra = '') => `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- kind: action
  metadata: {namespace: main, name: db}
  interface: {path: cap.interface.database.postgresql.install}
  target: k8s.data
${extra}`;

  test('the Action policy outranks the Global one; the chosen Implementation is one instance on the target', () => {
    const actionPolicy = `  policy:\n    interface:\n      rules:\n        - interface: {path: cap.interface.database.postgresql.install}\n          oneOf: ${BY_PATH('cap.implementation.bitnami')}\n`;
    const session = new EngineSession({ objects: load(`${HUB}---\n${policy(BY_PATH('cap.implementation.aws'))}---\n${ACTION(actionPolicy)}`), users });
    const s = session.state();
    const db = s.claims.find((c) => c.name === 'db')!;
    assert.equal(db.status, 'resolved', db.errors.join('\n'));
    const inst = s.instances.find((i) => i.provenance.source === 'capact')!;
    assert.equal(inst.key, 'system#k8s#data#main#@capact#db#action');
    assert.equal(db.kind, 'action');
    assert.deepEqual(inst.provenance, { source: 'capact', action: 'main/db', interface: 'cap.interface.database.postgresql.install', implementation: 'cap.implementation.bitnami.postgresql.install:0.1.0' });
    assert.equal((inst.code!.params as { chartName: string }).chartName, 'postgresql');
    assert.deepEqual(inst.target, { clusterNamespace: 'system', cluster: 'k8s', namespace: 'data' });
    assert.ok(db.trace.some((t) => /resolves to cap\.implementation\.bitnami\.postgresql\.install:0\.1\.0/.test(t.message)));

    // Without its own policy the Global one decides; the session follows the change in place.
    const [plain] = load(ACTION()).filter((o) => o.kind === 'action');
    const next = session.update({ upserts: [plain!], deletes: [] })!;
    assert.equal(next.instances.find((i) => i.provenance.source === 'capact')!.provenance.source, 'capact');
    assert.match(JSON.stringify(next.instances.find((i) => i.provenance.source === 'capact')!.provenance), /aws\.rds/);
  });

  test('the Global policy’s merge order decides between it and an Action policy', () => {
    const actionPolicy = `  policy:\n    interface:\n      rules:\n        - interface: {path: cap.interface.database.postgresql.install}\n          oneOf: ${BY_PATH('cap.implementation.bitnami')}\n`;
    const globalFirst = policy(BY_PATH('cap.implementation.aws')) + 'merge: {order: [GLOBAL, ACTION]}\n';
    const s = new EngineSession({ objects: load(`${HUB}---\n${globalFirst}---\n${ACTION(actionPolicy)}`), users }).state();
    assert.match(JSON.stringify(s.instances.find((i) => i.provenance.source === 'capact')!.provenance), /aws\.rds/);
    const bad = loadObjects(policy('[]') + 'merge: {order: [GLOBAL, GLOBAL]}\n');
    assert.match(bad.diagnostics.find((d) => d.severity === 'error')!.message, /names each kind of policy once/);
  });

  test('an action nothing may serve, or on a missing cluster, is an error naming why', () => {
    const s = new EngineSession({ objects: load(`${HUB}---\n${policy('[]')}---\n${ACTION()}`), users }).state();
    assert.match(s.claims.find((c) => c.name === 'db')!.errors[0]!, /interface cap\.interface\.database\.postgresql\.install: .*No Implementations found/);
    const noCluster = new EngineSession({ objects: load(`${HUB}---\n${policy(BY_PATH('cap.implementation.aws'))}---\n${ACTION().replace('target: k8s.data', 'target: elsewhere')}`), users }).state();
    assert.match(noCluster.claims.find((c) => c.name === 'db')!.errors[0]!, /cluster 'elsewhere' from target 'elsewhere' does not exist/);
    assert.equal(noCluster.instances.length, 0);
  });
});

/** A PostgreSQL Interface and one Implementation that requires a `cap.type.db` TypeInstance as alias `creds`; `tail` ends the Implementation's spec. */
const credsHub = (tail = '') => `
ocfVersion: 0.0.1
revision: 0.1.0
kind: Interface
metadata: {prefix: cap.interface.database.postgresql, name: install}
spec: {input: {}, output: {}}
---
ocfVersion: 0.0.1
revision: 0.1.0
kind: Implementation
metadata: {prefix: cap.implementation.managed.postgresql, name: install}
spec:
  implements: [{path: cap.interface.database.postgresql.install, revision: 0.1.0}]
  requires:
    cap.type.db:
      allOf:
        - {name: creds, alias: creds, revision: 0.1.0}
${tail.replace(/^\n/, '')}`;

describe('what the policy injects reaches the Implementation’s templates', () => {
  test('an injected TypeInstance is .Capact.TypeInstances.<alias>, and the instance becomes sensitive', () => {
    const hub = `${credsHub(`
  keelson:
    code: {type: helm, params: {chartRepo: https://charts.example.com, chartName: proxy, user: "{{ .Capact.TypeInstances.creds.Value.user }}"}}
`)}---
id: ti-creds
typeRef: {path: cap.type.db.creds, revision: 0.1.0}
latestResourceVersion: {resourceVersion: 1, spec: {value: {user: admin}}}
`;
    const inject = `[{implementationConstraints: {}, inject: {requiredTypeInstances: [{id: ti-creds, description: DB credentials}]}}]`;
    const state = resolvePolicy({ objects: load(`${hub}---\n${policy(inject)}---\n${APP}`), users });
    assert.equal(state.claims[0]!.status, 'resolved', state.claims[0]!.errors.join('\n'));
    const db = state.instances.find((i) => i.component === 'db')!;
    assert.equal((db.code!.params as { user: string }).user, 'admin');
    assert.equal(db.sensitive, 'domain-admins');
  });
});

describe('Try it merges an Action policy by Type, as Capact does', () => {
  const hub = `${credsHub()}---
kind: typeinstance
metadata: {namespace: system, name: platform-creds}
typeRef: {path: cap.type.db.creds, revision: 0.1.0}
value: {}
---
kind: typeinstance
metadata: {namespace: system, name: team-creds}
typeRef: {path: cap.type.db.creds, revision: 0.1.0}
value: {}
`;
  const inject = (id: string) => ({
    interface: { rules: [{ interface: { path: 'cap.interface.database.postgresql.install' }, oneOf: [{ implementationConstraints: {}, inject: { requiredTypeInstances: [{ id }] } }] }] },
  });
  const stored = load(`${hub}---\n${stringify({ kind: 'policy', metadata: { namespace: 'system', name: 'global' }, ...inject('platform-creds') })}`);

  for (const mode of ['documented', 'capact-compat'] as const) {
    test(`${mode}: the Global and the Action policy inject credentials of one Type; the Action's are injected, not both`, () => {
      const r = tryCapact(stored, { interface: { path: 'cap.interface.database.postgresql.install' }, action: inject('team-creds'), mode });
      assert.ok(!('hubError' in r));
      assert.deepEqual(r.explanation?.errors, []);
      assert.deepEqual(r.explanation?.injections, ['TypeInstance team-creds (cap.type.db.creds:0.1.0) as "creds"']);
    });
  }
});
