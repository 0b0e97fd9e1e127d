import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { jsonSchemaForKind, KNOWN_KINDS } from '@/server/engine/model/kinds';
import { newObjectTemplates, templateFor as placeTemplate, type TemplateGrant } from './templates';

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
