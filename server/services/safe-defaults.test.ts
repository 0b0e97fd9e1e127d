/**
 * Safe defaults outside the demo, and tenants that cannot take namespaces:
 * production without a users file has no demo users or seed; an open policy
 * makes nobody a domain admin; a tenant takes only namespaces its creator
 * administers, or free ones matching a configured pattern.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { createCaller } from '../api/root';
import { loadLocalUsers } from '../auth/users';
import { openDb, type DbHandle } from '../db/client';
import { loadEnv } from '../env';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { createServices, type Services } from './index';

const demo = (name: string): Actor => ({ id: `local:${name}`, name, labels: loadLocalUsers().find((u) => u.name === name)!.labels, provider: 'test' });
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'allow',
    (e: unknown) => (e instanceof TRPCError ? `${e.code}: ${e.message}` : Promise.reject(e)),
  );

describe('safe defaults outside the demo', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-defaults-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('NODE_ENV=production without a users file: no demo seed, no demo users; KEELSON_SEED=demo asks for both', () => {
    const prod = loadEnv({ NODE_ENV: 'production', KEELSON_DATA_DIR: dir });
    assert.equal(prod.seed, 'none');
    assert.equal(prod.demoUsers, false);
    const asked = loadEnv({ NODE_ENV: 'production', KEELSON_DATA_DIR: dir, KEELSON_SEED: 'demo' });
    assert.equal(asked.seed, 'demo');
    assert.equal(asked.demoUsers, true);
    const dev = loadEnv({ KEELSON_DATA_DIR: dir });
    assert.equal(dev.seed, 'demo');
    assert.equal(dev.demoUsers, true);
  });

  test('sessions are short by default (8 h) and configurable; https makes cookies Secure', () => {
    assert.equal(loadEnv({ KEELSON_DATA_DIR: dir }).sessionSeconds, 8 * 3600);
    assert.equal(loadEnv({ KEELSON_DATA_DIR: dir, KEELSON_SESSION_HOURS: '0.5' }).sessionSeconds, 1800);
    assert.throws(() => loadEnv({ KEELSON_DATA_DIR: dir, KEELSON_SESSION_HOURS: '10000' }), /KEELSON_SESSION_HOURS/);
  });

  test('without demo users, nobody signs in with the demo passwords', async () => {
    const h = await openDb({ pgliteDir: 'memory://' });
    try {
      const services = createServices(drizzleRepos(h.db), { usersFile: undefined, domainAdmins: [], demoUsers: false });
      assert.deepEqual(services.users.localUsers(), []);
      assert.ok(createServices(drizzleRepos(h.db), { usersFile: undefined, domainAdmins: [] }).users.localUsers().length > 0, 'the demo keeps them');
    } finally {
      await h.close();
    }
  });

  test('an open policy (no ACL rules) makes only the configured domain admins domain admins', async () => {
    const h = await openDb({ pgliteDir: 'memory://' });
    try {
      const repos = drizzleRepos(h.db);
      const services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
      const yaml = `kind: aclrule\nmetadata: {namespace: system, name: first}\ncriteria: {require-all: ["true"]}\nactions: {add-role: {service-consumer: main}}\n`;
      const first = createCaller({ actor: { id: 'local:eve', name: 'eve', labels: {}, provider: 'test' }, services });
      assert.match(await outcome(first.policy.applyText({ text: yaml, baseGeneration: 0 })), /^FORBIDDEN/);
      assert.equal(await repos.policy.head(), 0, 'nothing written');
      const sam = createCaller({ actor: { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' }, services });
      assert.equal(await outcome(sam.policy.applyText({ text: yaml, baseGeneration: 0 })), 'allow');
    } finally {
      await h.close();
    }
  });
});

describe('tenants cannot be used to take namespaces', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [], freeNamespaces: ['sandbox-*'] });
    // An ACL rule naming a namespace that holds nothing yet.
    await createCaller({ actor: demo('Sam'), services }).policy.applyText({
      baseGeneration: await repos.policy.head(),
      text: `kind: aclrule\nmetadata: {namespace: system, name: payments-team}\ncriteria: {require-all: ["team == 'payments'"]}\nactions: {add-role: {namespace-admin: payments}}\n`,
    });
  });
  after(() => h.close());
  const as = (name: string) => createCaller({ actor: demo(name), services });

  test('a service consumer cannot take a namespace that holds policy, nor one an ACL rule names', async () => {
    assert.match(await outcome(as('Alice').tenants.create({ name: 'grab1', namespaces: ['social'] })), /^FORBIDDEN: Namespace social already holds policy/);
    assert.match(await outcome(as('Alice').tenants.create({ name: 'grab2', namespaces: ['payments'] })), /^FORBIDDEN: Namespace payments is named by ACL rule system\/payments-team/);
    assert.equal((await as('Sam').tenants.list()).tenants.length, 0, 'no tenant was created');
  });

  test('an unused namespace is free only when it matches a configured pattern; otherwise a domain admin hands it out', async () => {
    assert.match(await outcome(as('Alice').tenants.create({ name: 'grab3', namespaces: ['billing'] })), /^FORBIDDEN: Namespace billing is not free to take: ask a domain admin .* sandbox-\*/);
    assert.equal(await outcome(as('Alice').tenants.create({ name: 'alices', namespaces: ['sandbox-alice'] })), 'allow');
    assert.equal(await outcome(as('Alice').tenants.addNamespace({ tenant: 'alices', namespace: 'billing' })), 'FORBIDDEN: Namespace billing is not free to take: ask a domain admin to add it to your tenant, or pick a name matching sandbox-*.');
    assert.equal(await outcome(as('Sam').tenants.addNamespace({ tenant: 'alices', namespace: 'billing' })), 'allow', "the domain admin's approval");
  });

  test('namespace admins may give their own namespace to a tenant', async () => {
    assert.equal(await outcome(as('John').tenants.create({ name: 'social-team', namespaces: ['social'] })), 'allow');
  });
});
