import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeRoles, canManage, type AclRuleRef } from './acl';
import { describeRoles, restoreRefusal, savableKinds, savableNamespaces } from './acl-words';
import { loadObjects } from './model/validate';
import { parseUsers } from './model/users';
import { KNOWN_KINDS, SYSTEM_ONLY_KINDS } from './model/kinds';

// The demo's own users and ACL rules: the words must follow what they grant.
const CORPUS = join(import.meta.dirname, '../../corpus/aptomi/examples');
const users = parseUsers(readFileSync(join(CORPUS, 'common/users.yaml'), 'utf8'), 'users.yaml').users;
const rules: AclRuleRef[] = loadObjects(readFileSync(join(CORPUS, 'twitter-analytics/policy/rules/acl.yaml'), 'utf8'), 'acl.yaml')
  .objects.filter((o) => o.kind === 'aclrule')
  .map((o) => ({ name: o.name, spec: o.spec as AclRuleRef['spec'] }));
const rolesOf = (name: string) => {
  const u = users.find((x) => x.name.toLowerCase() === name)!;
  return computeRoles({ name: u.name, labels: u.labels }, rules);
};
const systemOnly = (k: string) => SYSTEM_ONLY_KINDS.has(k as never);

test('each demo user is described by the role the ACL rules give them', () => {
  const sam = describeRoles(rolesOf('sam'));
  assert.deepEqual(sam.roles.length, 1);
  assert.match(sam.roles[0]!, /^domain admin/);
  assert.match(sam.tryFirst, /accept/);
  for (const name of ['john', 'frank']) {
    const d = describeRoles(rolesOf(name));
    assert.deepEqual(d.roles, ['namespace admin of platform and social: may change any object there and accept its revision sections']);
    assert.match(d.tryFirst, /platform/);
  }
  for (const name of ['alice', 'bob', 'carol']) {
    const d = describeRoles(rolesOf(name));
    assert.deepEqual(d.roles, ['service consumer in platform and social: may claim services there in their own name; the rest is read-only']);
    assert.match(d.tryFirst, /claim in platform/);
  }
  assert.match(describeRoles({ user: 'x', grants: [], errors: [] }).roles[0]!, /^no role/);
});

test('a higher role is not repeated under a lower one, and a lower role elsewhere still shows', () => {
  const roles = { user: 'x', errors: [], grants: [
    { role: 'namespace-admin' as const, namespaces: ['social'], source: 'a' },
    { role: 'service-consumer' as const, namespaces: ['social', 'main'], source: 'b' },
  ] };
  const d = describeRoles(roles);
  assert.equal(d.roles.length, 2);
  assert.match(d.roles[0]!, /^namespace admin of social:/);
  assert.match(d.roles[1]!, /^service consumer in main:/);
});

test('a consumer is offered only claims, in the namespaces she consumes in', () => {
  const carol = rolesOf('carol');
  assert.deepEqual(savableKinds(carol, KNOWN_KINDS, systemOnly), ['claim']);
  assert.deepEqual(savableNamespaces(carol, 'claim', false), ['platform', 'social']);
  assert.deepEqual(savableNamespaces(carol, 'bundle', false), []);
});

test('offered kinds and namespaces are exactly those the server would let the user save', () => {
  for (const name of ['sam', 'john', 'carol']) {
    const roles = rolesOf(name);
    for (const kind of KNOWN_KINDS) {
      const where = savableNamespaces(roles, kind, systemOnly(kind));
      for (const ns of ['main', 'platform', 'social', 'system']) {
        const offered = where === '*' ? ns !== 'system' : where.includes(ns);
        const allowed = canManage(roles, kind, ns) && (systemOnly(kind) ? ns === 'system' : ns !== 'system');
        assert.equal(offered, allowed, `${name} ${kind} in ${ns}`);
      }
    }
  }
  // System kinds: domain admins only.
  assert.ok(savableKinds(rolesOf('sam'), KNOWN_KINDS, systemOnly).includes('cluster'));
  assert.ok(!savableKinds(rolesOf('john'), KNOWN_KINDS, systemOnly).includes('cluster'));
  assert.ok(savableKinds(rolesOf('john'), KNOWN_KINDS, systemOnly).includes('bundle'));
});

test('restoring an earlier policy is not offered to a user who may change only claims, with the reason', () => {
  assert.equal(restoreRefusal(rolesOf('sam'), 'roll back'), null);
  assert.equal(restoreRefusal(rolesOf('john'), 'roll back'), null);
  const why = restoreRefusal(rolesOf('carol'), 'roll back');
  assert.match(why ?? '', /^You may not roll back: .*namespace-admin.*service consumer in platform and social/);
  assert.match(restoreRefusal({ user: 'x', grants: [], errors: [] }, 'revert') ?? '', /no role/);
});
