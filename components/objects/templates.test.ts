import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { jsonSchemaForKind, KNOWN_KINDS } from '@/server/engine/model/kinds';
import { newObjectChoices, newObjectTemplates, templateFor as placeTemplate, type TemplateGrant } from './templates';

// The texts as the console gets them: from the kind registry, through the JSON Schemas.
const NEW_OBJECT_TEMPLATES = newObjectTemplates(Object.fromEntries(KNOWN_KINDS.map((k) => [k, jsonSchemaForKind(k)])));
const templateFor = (kind: string, who?: { user: string; grants: readonly TemplateGrant[] }) => placeTemplate(NEW_OBJECT_TEMPLATES[kind]!, kind, who);

const consumer = { user: 'Bob', grants: [{ role: 'service-consumer', namespaces: ['platform', 'social'] }] };
const nsAdmin = { user: 'Frank', grants: [{ role: 'service-consumer', namespaces: ['main'] }, { role: 'namespace-admin', namespaces: ['social'] }] };
const domainAdmin = { user: 'Sam', grants: [{ role: 'domain-admin', namespaces: '*' as const }] };

test('a new claim is placed in the first namespace the user consumes in, under their name', () => {
  const doc = parse(templateFor('claim', consumer));
  assert.equal(doc.metadata.namespace, 'platform');
  assert.equal(doc.user, 'Bob');
});

test('other namespaced kinds go where the user is a namespace admin, not merely a consumer', () => {
  assert.equal(parse(templateFor('bundle', nsAdmin)).metadata.namespace, 'social');
  assert.equal(parse(templateFor('service', nsAdmin)).metadata.namespace, 'social');
  // A consumer cannot save a bundle anywhere: the template stays as written, and the server says why.
  assert.equal(templateFor('bundle', consumer), NEW_OBJECT_TEMPLATES.bundle);
});

test('system kinds and domain admins keep the template; without roles it is unchanged', () => {
  assert.equal(parse(templateFor('cluster', nsAdmin)).metadata.namespace, 'system');
  assert.equal(parse(templateFor('rule', domainAdmin)).metadata.namespace, 'main');
  assert.equal(templateFor('rule'), NEW_OBJECT_TEMPLATES.rule);
  assert.equal(parse(templateFor('claim', domainAdmin)).user, 'Sam');
});

const SCHEMAS = Object.fromEntries(KNOWN_KINDS.map((k) => [k, jsonSchemaForKind(k)]));
const withSource = (who: { user: string; grants: readonly TemplateGrant[] }) => ({
  user: who.user,
  grants: who.grants.map((g) => ({ ...g, role: g.role as 'domain-admin' | 'namespace-admin' | 'service-consumer', source: 'test' })),
});

test('"New object" offers a consumer only claims, in her namespaces, and starts there (not a bundle in main)', () => {
  const c = newObjectChoices(SCHEMAS, withSource(consumer));
  assert.deepEqual(c.kinds, ['claim']);
  assert.equal(c.kind, 'claim');
  assert.deepEqual(c.namespaces, ['platform', 'social']);
  assert.equal(c.none, false);
  // Asking for a kind she may not save falls back to one she may.
  assert.equal(newObjectChoices(SCHEMAS, withSource(consumer), 'bundle').kind, 'claim');
  const doc = parse(placeTemplate(NEW_OBJECT_TEMPLATES.claim!, 'claim', consumer, 'social'));
  assert.equal(doc.metadata.namespace, 'social');
  assert.equal(doc.user, 'Bob');
});

test('"New object" offers a namespace admin every namespaced kind where they administer, and system kinds only to domain admins', () => {
  const a = newObjectChoices(SCHEMAS, withSource(nsAdmin), 'bundle');
  assert.equal(a.kind, 'bundle');
  assert.deepEqual(a.namespaces, ['social']);
  assert.ok(!a.kinds.includes('cluster') && !a.kinds.includes('aclrule'));
  assert.deepEqual(newObjectChoices(SCHEMAS, withSource(nsAdmin), 'claim').namespaces, ['main', 'social']);
  const d = newObjectChoices(SCHEMAS, withSource(domainAdmin), 'cluster');
  assert.equal(d.kind, 'cluster');
  assert.equal(d.namespaces, null);
  assert.equal(d.kinds.length, Object.keys(NEW_OBJECT_TEMPLATES).length);
});

test('"New object" without roles offers everything; with no role at all it says so', () => {
  assert.equal(newObjectChoices(SCHEMAS, undefined).kinds.length, Object.keys(NEW_OBJECT_TEMPLATES).length);
  const none = newObjectChoices(SCHEMAS, { user: 'x', grants: [] });
  assert.equal(none.none, true);
  assert.equal(none.kind, 'bundle');
});
