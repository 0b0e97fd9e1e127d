/**
 * Credentials reach their audience only, as the kind registry declares
 * them (server/testing/planted-secrets.ts plants one of each).
 *
 *  - A Landscaper Target's config (a kubeconfig) and a Capact TypeInstance
 *    written in any shape the Hub reads are the platform's: no namespace
 *    admin, consumer or user without a role reads them through the editor,
 *    history, diffs or the scope graph; a domain admin does.
 *  - What is rendered from a Hub TypeInstance is the platform's too: the
 *    namespace admin of the namespace it is deployed in does not read it
 *    in the revision, its pages, the instance diff, the graph or the claim
 *    — while what is rendered from a user's own secrets stays visible to
 *    that namespace's admins.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCaller } from '../api/root';
import { DEMO_USERS_FILE } from '../auth/users';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { PLANTED, PLANTED_CLAIMS, PLANTED_PLATFORM, PLANTED_SOCIAL, PLANTED_USER_SECRET } from '../testing/planted-secrets';
import type { Actor } from './actor';
import { createServices, type Services } from './index';

const actor = (name: string, labels: Record<string, string>): Actor => ({ id: `local:${name}`, name, labels, provider: 'test' });
const alice = actor('Alice', { org: 'dev' });
const john = actor('John', { org: 'it', is_operator: 'true' });
const sam = actor('Sam', { org: 'it', is_operator: 'true', global_ops: 'true' });
const nina = actor('nina', {});

describe('credentials reach their audience only', () => {
  let repos: Repos;
  let services: Services;
  let dir: string;
  let before1: number;
  let revisionId: number;
  const call = (a: Actor) => createCaller({ actor: a, services });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-credentials-'));
    const usersFile = join(dir, 'users.yaml');
    writeFileSync(usersFile, `${readFileSync(DEMO_USERS_FILE, 'utf8').replace(/- name: Alice\n/, `- name: Alice\n${PLANTED_USER_SECRET}`).replace(/\s*$/, '\n')}- name: nina\n  labels: {}\n`);
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile, domainAdmins: [] });
    before1 = await repos.policy.head();
    await call(sam).policy.applyText({ text: PLANTED_PLATFORM, baseGeneration: before1 });
    await call(john).policy.applyText({ text: PLANTED_SOCIAL, baseGeneration: await repos.policy.head() });
    const w = await call(alice).policy.applyText({ text: PLANTED_CLAIMS, baseGeneration: await repos.policy.head() });
    revisionId = (await services.revisions!.ensureForGeneration(w.generation)).id;
    const c = await call(sam).resolution.claim({ namespace: 'social', name: 'alice_planted_db' });
    assert.equal(c.outcome.status, 'resolved', c.outcome.errors.join('\n'));
  });
  after(async () => {
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a Landscaper Target's config is shown to domain admins only: the editor, history, diffs and the scope graph", async () => {
    const head = await repos.policy.head();
    const reads = async (a: Actor) =>
      JSON.stringify([
        await call(a).policy.get({ kind: 'target', namespace: 'social', name: 'k8s-example' }),
        await call(a).policy.generation({ generation: head }),
        await call(a).policy.diff({ from: before1, to: head }),
        await call(a).landscaper.scopes({}),
        await call(a).landscaper.scopes({ namespace: 'social' }),
      ]);
    for (const a of [nina, alice, john]) assert.ok(!(await reads(a)).includes(PLANTED.target), `${a.name} read the Target's kubeconfig`);
    assert.ok((await reads(sam)).includes(PLANTED.target), 'the domain admin reads it');
    const shown = await call(john).policy.get({ kind: 'target', namespace: 'social', name: 'k8s-example' });
    assert.match(shown.text, /config: "?<redacted: only domain admins see Target credentials>/);
    assert.match(shown.text, /name: k8s-example/, 'what names the object stays');
  });

  test('a TypeInstance in each shape the Hub reads (value, latestResourceVersion, a bare spec) is shown to domain admins only', async () => {
    for (const [name, secret] of [
      ['planted-ti', PLANTED.typeInstance],
      ['planted-ti-export', PLANTED.typeInstanceExport],
      ['planted-ti-spec', PLANTED.typeInstanceSpec],
    ] as const) {
      const id = { kind: 'typeinstance', namespace: 'system', name };
      for (const a of [nina, alice, john]) assert.ok(!JSON.stringify(await call(a).policy.get(id)).includes(secret), `${a.name} read ${name}`);
      assert.ok((await call(sam).policy.get(id)).text.includes(secret));
    }
  });

  test('saving back a redacted Target is refused, naming the object, field and line', async () => {
    const shown = await call(john).policy.get({ kind: 'target', namespace: 'social', name: 'k8s-example' });
    await assert.rejects(call(sam).policy.applyText({ text: shown.text, baseGeneration: await repos.policy.head() }), (e: Error) => {
      assert.match(e.message, /target social\/k8s-example, line \d+: spec\.config shows "<redacted/);
      return true;
    });
  });

  test('what is rendered from a Hub TypeInstance is not shown to the namespace admin: revision, pages, instance diff, graph, claim', async () => {
    const key = async (component: string) => (await call(sam).resolution.claim({ namespace: 'social', name: 'alice_planted_db' })).instances.find((i) => i.component === component)!.key;
    const [db, app] = [await key('db'), await key('app')];
    const reads = async (a: Actor) =>
      JSON.stringify([
        await call(a).revisions.get({ id: revisionId }),
        await call(a).revisions.planPage({ id: revisionId, of: 'steps', limit: 500 }),
        await call(a).revisions.instanceDiff({ revisionId, key: db }),
        await call(a).revisions.instanceDiff({ revisionId, key: app }),
        await call(a).graphs.instance({ key: db }),
        await call(a).graphs.instance({ key: app }),
        await call(a).resolution.claim({ namespace: 'social', name: 'alice_planted_db' }),
      ]);
    // The namespace admin first: sensitivity from the Hub was once treated like a user's own secrets.
    for (const a of [john, alice, nina]) assert.ok(!(await reads(a)).includes(PLANTED.typeInstance), `${a.name} read the injected TypeInstance's password`);
    // The domain admin does, in the component that reads it and in the one its discovery reaches.
    const all = await reads(sam);
    assert.ok(all.includes(`"password":"${PLANTED.typeInstance}"`), 'the injected value');
    assert.ok(all.includes(`postgres://app:${PLANTED.typeInstance}@db`), 'passed on through discovery');
  });

  test("what a Target's kubeconfig is rendered into (a Landscaper deploy item) is the domain admins' too", async () => {
    const claims = await call(sam).resolution.claim({ namespace: 'social', name: 'planted' });
    assert.equal(claims.outcome.status, 'resolved', claims.outcome.errors.join('\n'));
    const [web] = claims.outcome.instances;
    assert.ok(web);
    const reads = async (a: Actor) => JSON.stringify([await call(a).graphs.instance({ key: web }), await call(a).resolution.claim({ namespace: 'social', name: 'planted' }), await call(a).revisions.get({ id: revisionId })]);
    for (const a of [nina, alice, john]) assert.ok(!(await reads(a)).includes(PLANTED.target), `${a.name} read the rendered kubeconfig`);
    assert.ok((await reads(sam)).includes(PLANTED.target));
  });

  test("what is rendered from a user's own secret stays with that namespace's admins", async () => {
    const c = await call(sam).resolution.claim({ namespace: 'social', name: 'alice_planted_user' });
    assert.equal(c.outcome.status, 'resolved', c.outcome.errors.join('\n'));
    const reads = async (a: Actor) => JSON.stringify([await call(a).resolution.claim({ namespace: 'social', name: 'alice_planted_user' }), await call(a).revisions.get({ id: revisionId })]);
    for (const a of [nina, alice]) assert.ok(!(await reads(a)).includes(PLANTED.user), `${a.name} read Alice's secret`);
    assert.ok((await reads(john)).includes(PLANTED.user), 'the namespace admin of social reads it');
    assert.ok((await reads(sam)).includes(PLANTED.user));
  });

  describe('restoring a generation works on the stored policy, not on what the restorer is shown', () => {
    const targetId = { kind: 'target', namespace: 'social', name: 'k8s-example' };
    const storedTarget = async () => (await repos.policy.getObject(targetId))!.text;
    const ROTATED = 'ROTATED-TARGET-KUBE-71f4aa';

    test('a user who may not write the credential object cannot restore a generation that changes it; nothing is written', async () => {
      // Sam rotates the Target's kubeconfig: restoring the generation before it changes the Target back.
      const before = await repos.policy.head();
      await call(sam).policy.applyText({ text: (await storedTarget()).replace(PLANTED.target, ROTATED), baseGeneration: before });
      const head = await repos.policy.head();
      // Alice (a consumer in social: claims only) may not write a Target.
      await assert.rejects(services.policy.restore(alice, { generation: before, baseGeneration: head }), (e: Error) => {
        assert.match(e.message, /target/i);
        assert.match(e.message, /social/);
        return true;
      });
      assert.equal(await repos.policy.head(), head, 'nothing was written');
      assert.ok((await storedTarget()).includes(ROTATED));
    });

    test('a restore that leaves the credential object as it is needs no right to read it; the stored credential stays intact', async () => {
      // John (namespace admin of social, not a domain admin: he is shown the Target redacted) changes a bundle, then takes it back.
      const before = await repos.policy.head();
      const bundle = (await repos.policy.getObject({ kind: 'bundle', namespace: 'social', name: 'planted-user' }))!;
      await call(john).policy.applyText({ text: bundle.text.replace('chartName: planted-user', 'chartName: planted-user-2'), baseGeneration: before });
      const target = await storedTarget();
      const r = await services.policy.restore(john, { generation: before, baseGeneration: await repos.policy.head() });
      assert.equal(r.changed, true);
      assert.deepEqual(r.changes.map((c) => `${c.kind} ${c.namespace}/${c.name}`), ['bundle social/planted-user'], 'only what differs is written');
      assert.equal(await storedTarget(), target, 'the Target is untouched: its real kubeconfig, not "<redacted…>"');
      assert.ok(!(await storedTarget()).includes('redacted'));
      assert.equal((await repos.policy.getObject({ kind: 'bundle', namespace: 'social', name: 'planted-user' }))!.text, bundle.text, 'the bundle is as it was');
    });

    test('a user who may write the credential object restores it as stored, though shown it redacted', async () => {
      // Back to before Sam's rotation: John may write Targets in social, and the restored text is the stored one.
      const rotation = (await repos.policy.listGenerations({ limit: 50 })).find((g) => g.changes.some((c) => c.kind === 'target'))!;
      const r = await services.policy.restore(john, { generation: rotation.generation - 1, baseGeneration: await repos.policy.head() });
      assert.ok(r.changes.some((c) => c.kind === 'target'));
      assert.ok((await storedTarget()).includes(PLANTED.target), 'the original kubeconfig is back');
      assert.ok(!(await storedTarget()).includes('redacted'));
    });
  });
});
