/**
 * Every tRPC procedure declares its output, and the declared output loses
 * nothing the service returned: each procedure is called once (through the
 * caller, so `.output()` runs) and its result compared with what the
 * service method gave the router, field for field. A field a service adds
 * without its schema, or a schema that strips one, fails here rather than
 * silently disappearing from the console (or becoming a 500 there).
 *
 * Runs on in-memory repositories and on PGlite: services work on either,
 * and both give the same answers' shapes.
 */
import assert from 'node:assert/strict';
import { DM } from '../engine/model/sources/dm';
import { after, before, describe, test } from 'node:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOnce } from '../apply/worker';
import type { Actuator } from '../apply/actuator';
import { DEMO_USERS_FILE, loadLocalUsers } from '../auth/users';
import { openDb, type DbHandle } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from '../services/actor';
import { createServices, type Services } from '../services';
import { appRouter, createCaller } from './root';

const demoActor = (name: string): Actor => {
  const u = loadLocalUsers().find((x) => x.name === name)!;
  return { id: `local:${name}`, name, labels: u.labels, provider: 'test' };
};
const sam = demoActor('Sam');
const alice = demoActor('Alice');
const john = demoActor('John');

const bundleYaml = (name: string, tag: string) =>
  `kind: bundle\nmetadata: {namespace: social, name: ${name}}\ncomponents: [{name: web, code: {type: helm, params: {chartName: web-${tag}, chartRepo: https://charts.example}}}]\n`;

/** Alice's demo claim with another visualisation image: an update to deploy. */
const claimYaml = (image: string) => `kind: claim\nmetadata: {namespace: social, name: alice_dev}\nuser: Alice\nservice: twitter_stats\nlabels: {tsvisimage: ${image}}\n`;

const idle: Actuator = {
  name: 'idle',
  async begin() {},
  async apply() {
    return { status: 'done' as const };
  },
  async finish() {
    return { changed: false };
  },
};

/** JSON as it reaches a client (Dates as strings, undefined fields gone): what must survive the output schema. */
const wire = (v: unknown) => JSON.parse(JSON.stringify(v ?? null));

function procedurePaths(): string[] {
  return Object.keys((appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures).sort();
}

for (const backend of ['memory', 'pglite'] as const) {
  describe(`tRPC outputs lose nothing the services return (${backend})`, () => {
    let h: DbHandle | undefined;
    let repos: Repos;
    let services: Services;
    let dir: string;
    /** What the last service method called through the context returned. */
    let returned: unknown;
    const called = new Set<string>();

    /** The services as the router sees them, recording what each method it calls returns. */
    const spying = (s: Services): Services =>
      new Proxy(s, {
        get(target, service) {
          const svc = target[service as keyof Services] as unknown as Record<string, unknown>;
          return new Proxy(svc, {
            get(o, method) {
              const f = o[method as string];
              if (typeof f !== 'function') return f;
              return (...args: unknown[]) => (returned = (f as (...a: unknown[]) => unknown).apply(o, args));
            },
          });
        },
      });
    const as = (actor: Actor | null) => createCaller({ actor, services: spying(services) });

    /** Call `path` as `actor`, and compare its output with what the service returned. */
    async function same(actor: Actor | null, path: string, input?: unknown): Promise<any> {
      returned = undefined;
      const fn = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], as(actor)) as (i: unknown) => Promise<unknown>;
      const out = await fn(input);
      assert.deepEqual(wire(out), wire(await returned), `${path}: the output schema changed what the service returned`);
      called.add(path);
      return out;
    }

    before(async () => {
      if (backend === 'memory') repos = memoryRepos();
      else {
        h = await openDb({ pgliteDir: 'memory://' });
        repos = drizzleRepos(h.db);
      }
      await seedDemo(repos);
      dir = mkdtempSync(join(tmpdir(), 'keelson-outputs-'));
      const usersFile = join(dir, 'users.yaml');
      writeFileSync(usersFile, readFileSync(DEMO_USERS_FILE, 'utf8'));
      services = createServices(repos, { usersFile, domainAdmins: [] });
    });
    after(async () => {
      await h?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('policy', async () => {
      const head: number = await same(sam, 'policy.head');
      await same(null, 'policy.schemas');
      await same(sam, 'policy.list', {});
      await same(alice, 'policy.list', { kind: 'bundle', search: 'twitter' });
      await same(sam, 'policy.get', { kind: 'bundle', namespace: 'social', name: 'twitter_stats' });
      await same(alice, 'policy.get', { kind: 'cluster', namespace: 'system', name: 'k8s-example' });
      await same(sam, 'policy.generations', {});
      await same(sam, 'policy.generation', { generation: head });
      await same(sam, 'policy.generation', { generation: 0 });
      await same(sam, 'policy.diff', { from: 1, to: 2 });
      const w = await same(sam, 'policy.applyText', { text: bundleYaml('outputs-a', 'a'), baseGeneration: head, message: 'a' });
      await same(sam, 'policy.save', { id: { kind: 'bundle', namespace: 'social', name: 'outputs-a' }, text: bundleYaml('outputs-a', 'b'), baseGeneration: w.generation });
      const s = await same(sam, 'policy.save', { text: bundleYaml('outputs-b', 'a'), baseGeneration: w.generation + 1 });
      const d = await same(sam, 'policy.deleteText', { text: bundleYaml('outputs-b', 'a'), baseGeneration: s.generation });
      await same(sam, 'policy.delete', { ids: [{ kind: 'bundle', namespace: 'social', name: 'outputs-a' }], baseGeneration: d.generation });
    });

    test('resolution and graphs', async () => {
      await same(sam, 'resolution.claims', {});
      const claim = await same(alice, 'resolution.claim', { namespace: 'social', name: 'alice_dev' });
      await same(sam, 'resolution.claim', { namespace: 'social', name: 'alice_dev', generation: 1 });
      await same(sam, 'graphs.policy', {});
      await same(sam, 'graphs.desired', {});
      const view = await same(alice, 'graphs.desiredView', { budget: 2 });
      await same(alice, 'graphs.desiredBucket', { budget: view.budget, bucket: view.graph.b[0].id });
      await same(alice, 'graphs.instance', { key: claim.instances[0].key });
      await same(alice, 'capact.interfaces');
      await same(alice, 'landscaper.scopes', {});
      await same(sam, 'policy.applyText', { text: DM.kinds.deployment.example.replace('namespace: main', 'namespace: dmtest'), baseGeneration: await repos.policy.head() });
      await same(alice, 'dm.types');
      await same(alice, 'dm.deployment', { namespace: 'dmtest', name: 'my-deployment' });
      await same(alice, 'capact.tryIt', { interface: { path: 'cap.interface.database.postgresql.install' }, draft: 'kind: policy\nmetadata: {namespace: system, name: global}\ninterface: {rules: []}\n' });
    });

    test('revisions: computed, decided, applied, rolled back and reverted', async () => {
      const head = await repos.policy.head();
      const first = await services.revisions.ensureForGeneration(head);
      await same(sam, 'revisions.byGeneration', { generation: head, wait: true });
      await same(john, 'revisions.get', { id: first.id });
      await same(sam, 'revisions.decide', { revisionId: first.id, decision: 'accept', comment: 'ok' });
      while (await runOnce({ revisions: repos.revisions, actuator: idle })) {
        /* apply it */
      }
      const applied = await same(sam, 'revisions.get', { id: first.id });
      assert.equal(applied.revision.status, 'applied');
      assert.ok(applied.steps.length > 0 && applied.jobs.length === 1);
      await same(sam, 'revisions.events', { id: first.id });
      await same(sam, 'revisions.events', { id: first.id, afterId: 1 });
      assert.equal(applied.planTotals.steps, applied.stepStatus.done);
      await same(sam, 'revisions.planPage', { id: first.id, of: 'steps', offset: 1, limit: 3 });
      await same(john, 'revisions.planPage', { id: first.id, of: 'actions', namespace: 'social', text: 'twitter' });
      const key = applied.plan.steps[0].key;
      await same(sam, 'graphs.instance', { key });
      await same(sam, 'graphs.desired', { revisionId: first.id });
      await same(sam, 'graphs.desiredView', { revisionId: first.id });
      await same(sam, 'revisions.instanceDiff', { revisionId: first.id, key });
      await same(sam, 'revisions.preview', { text: bundleYaml('twitter_stats', 'preview') });
      await same(sam, 'revisions.preview', { text: 'kind: nope\n' });

      const changed = await services.policy.apply(sam, { text: claimYaml('demo20'), baseGeneration: await repos.policy.head() });
      const pending = await services.revisions.ensureForGeneration(changed.generation);
      await same(john, 'revisions.get', { id: pending.id });
      await same(sam, 'revisions.list', {});
      await same(sam, 'revisions.rollback', { revisionId: first.id });

      const next = await services.policy.apply(sam, { text: claimYaml('demo21'), baseGeneration: await repos.policy.head() });
      const rejected = await services.revisions.ensureForGeneration(next.generation);
      await same(john, 'revisions.decide', { revisionId: rejected.id, namespace: 'social', decision: 'reject', comment: 'not now' });
      const view = await same(sam, 'revisions.get', { id: rejected.id });
      assert.equal(view.revertTo, next.generation - 1);
      await same(sam, 'revisions.revert', { revisionId: rejected.id });
      await same(sam, 'revisions.list', { limit: 2 });
    });

    test('tenants and users', async () => {
      await same(john, 'tenants.create', { name: 'outputs', namespaces: [] });
      await same(john, 'tenants.addNamespace', { tenant: 'outputs', namespace: 'social' });
      const inv = await same(john, 'tenants.invite', { tenant: 'outputs', user: 'Alice', role: 'plain' });
      await same(alice, 'tenants.list');
      await same(alice, 'tenants.myInvitations');
      await same(alice, 'tenants.answer', { invitationId: inv.id, accept: true, role: 'plain' });
      await same(john, 'tenants.invite', { tenant: 'outputs', user: 'Bob' });
      await same(john, 'tenants.get', { name: 'outputs' });
      await services.estate.addAccount(john, { tenant: 'outputs', account: 'main', marks: { vcpu: 4 }, labels: {} });
      await services.estate.createEnvironment(john, { tenant: 'outputs', account: 'main', environment: 'prod', cluster: 'k8s-example', marks: {}, labels: {}, meta: {} });
      assert.equal((await same(john, 'tenants.environments', { tenant: 'outputs' })).length, 1);
      await same(john, 'tenants.setRules', { tenant: 'outputs', rules: { selectEnvironmentService: [{ reason: 'prod', sel: ['$.environment.meta.tier', 'prod', '::eq'] }] } });
      await same(sam, 'tenants.list');
      await same(john, 'tenants.changeRole', { tenant: 'outputs', user: 'Alice', role: 'admin' });
      await same(alice, 'tenants.myRoles');
      await same(sam, 'tenants.roleMap');
      await same(alice, 'tenants.removeMember', { tenant: 'outputs', user: 'Alice' });
      await same(sam, 'tenants.create', { name: 'outputs-gone', namespaces: [] });
      await same(sam, 'tenants.remove', { tenant: 'outputs-gone' });
      await same(alice, 'users.me');
      await same(sam, 'users.endSessions', { user: 'Bob' });
    });

    test('API tokens', async () => {
      const t = await same(alice, 'tokens.create', { name: 'outputs' });
      assert.match(t.token, /^kst_/);
      await same(alice, 'tokens.create', { name: 'outputs-expiring', expiresInDays: 30 });
      await services.tokens.authenticate(t.token); // sets lastUsedAt
      const list = await same(alice, 'tokens.list');
      assert.equal(list.length, 2);
      const revoked = await same(alice, 'tokens.revoke', { id: t.id });
      assert.ok(revoked.revokedAt);
      await same(alice, 'tokens.list');
    });

    test('every procedure was called above', () => {
      assert.deepEqual(procedurePaths().filter((p) => !called.has(p)), []);
    });
  });
}
