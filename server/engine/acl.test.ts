import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canConsume, canManage, computeRoles, roleIn } from './acl';
import { loadObjects } from './model/validate';

// The three ACL rules of Aptomi's language document.
const RULES = loadObjects(`
- kind: aclrule
  metadata: {namespace: system, name: domain_admins}
  criteria: {require-all: [global_ops]}
  actions: {add-role: {domain-admin: '*'}}
- kind: aclrule
  metadata: {namespace: system, name: namespace_admins_for_main}
  criteria: {require-all: [is_operator]}
  actions: {add-role: {namespace-admin: main}}
- kind: aclrule
  metadata: {namespace: system, name: service_consumers_for_main}
  criteria: {require-all: ["org == 'dev'"]}
  actions: {add-role: {service-consumer: main}}
`).objects.map((o) => ({ name: o.name, spec: o.spec as never }));

const roles = (labels: Record<string, string>, name = 'u', domainAdmins: string[] = []) => computeRoles({ name, labels }, RULES, { domainAdmins });

describe('ACL roles (Aptomi language document examples)', () => {
  test('labels grant roles through the rules', () => {
    assert.equal(roleIn(roles({ global_ops: 'true' }), 'anything'), 'domain-admin');
    assert.equal(roleIn(roles({ is_operator: 'true' }), 'main'), 'namespace-admin');
    assert.equal(roleIn(roles({ is_operator: 'true' }), 'other'), null);
    assert.equal(roleIn(roles({ org: 'dev' }), 'main'), 'service-consumer');
    assert.equal(roleIn(roles({ org: 'it' }), 'main'), null);
    assert.equal(roleIn(roles({}, 'Sam', ['sam']), 'system'), 'domain-admin');
    assert.deepEqual(roles({ is_operator: 'true', org: 'dev' }).grants.map((g) => `${g.role}:${g.source}`), [
      'namespace-admin:aclrule system/namespace_admins_for_main',
      'service-consumer:aclrule system/service_consumers_for_main',
    ]);
  });

  const table: [string, Record<string, string>, string, string, boolean][] = [
    ['domain admin manages system objects', { global_ops: 'true' }, 'cluster', 'system', true],
    ['namespace admin manages bundles in main', { is_operator: 'true' }, 'bundle', 'main', true],
    ['namespace admin only views system', { is_operator: 'true' }, 'rule', 'system', false],
    ['namespace admin of main has no rights in other', { is_operator: 'true' }, 'claim', 'other', false],
    ['service consumer manages claims in main', { org: 'dev' }, 'claim', 'main', true],
    ['service consumer may not change bundles', { org: 'dev' }, 'bundle', 'main', false],
    ['nobody manages nothing', {}, 'claim', 'main', false],
  ];
  for (const [name, labels, kind, ns, want] of table) {
    test(name, () => assert.equal(canManage(roles(labels), kind, ns), want));
  }

  test('consuming a service needs claim rights in its namespace', () => {
    assert.equal(canConsume(roles({ org: 'dev' }), 'main'), true);
    assert.equal(canConsume(roles({ org: 'dev' }), 'db'), false);
  });
});
