/**
 * A planted secret never reaches a reader who may not see it. Alice's user
 * secret is read by a bundle three ways a text search missed or mislabelled
 * (`print .User`, a discovery value passed on to another component, and
 * `.User.Secrets` itself); Alice claims the service in her own name. Then
 * every read procedure is called as Alice (a service consumer) and as Bob
 * (another consumer): no response holds the secret. John, namespace admin
 * of social, may see it. After accepting and applying to GitOps, no commit
 * message and no file header holds it; a key that would be rendered from a
 * secret fails its claim instead.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { commitLog, GitOpsActuator, readTrackedFiles } from '../apply/gitops/actuator';
import { runOnce } from '../apply/worker';
import { createCaller } from '../api/root';
import { DEMO_USERS_FILE } from '../auth/users';
import { openDb, type DbHandle } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { createServices, type Services } from './index';

const SECRET = 'PLANTED-SECRET-7f3a91';
const actor = (name: string, labels: Record<string, string>): Actor => ({ id: `local:${name}`, name, labels, provider: 'test' });
const alice = actor('Alice', { org: 'dev' });
const bob = actor('Bob', { org: 'dev' });
const john = actor('John', { org: 'it', is_operator: 'true' });
const sam = actor('Sam', { org: 'it', is_operator: 'true', global_ops: 'true' });

const POLICY = `
- kind: bundle
  metadata: {namespace: social, name: leaky}
  components:
    - name: db
      discovery: {password: '{{ .User.Secrets.token }}'}
      code: {type: helm, params: {chartName: db, chartRepo: https://charts.example.com}}
    - name: app
      dependencies: [db]
      code: {type: helm, params: {chartName: app, chartRepo: https://charts.example.com, dsn: 'postgres://app:{{ .Discovery.db.password }}@db'}}
    - name: printer
      code: {type: helm, params: {chartName: printer, chartRepo: https://charts.example.com, who: '{{ print .User }}'}}
- kind: service
  metadata: {namespace: social, name: leaky}
  contexts: [{name: only, allocation: {bundle: leaky}}]
- kind: service
  metadata: {namespace: social, name: keyed}
  contexts: [{name: only, allocation: {bundle: leaky, keys: ['{{ .User.Secrets.token }}']}}]
`;

describe('a planted secret reaches only those who may see it', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  let dir: string;
  let revisionId: number;
  let keys: string[];
  const call = (a: Actor) => createCaller({ actor: a, services });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-secrets-'));
    const usersFile = join(dir, 'users.yaml');
    // The demo users, Alice with a secret.
    writeFileSync(usersFile, readFileSync(DEMO_USERS_FILE, 'utf8').replace(/- name: Alice\n/, `- name: Alice\n  secrets: {token: ${SECRET}}\n`));
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    services = createServices(repos, { usersFile, domainAdmins: [] });
    await services.revisions!.ensureForGeneration(await repos.policy.head());
    await call(sam).policy.applyText({ text: POLICY, baseGeneration: await repos.policy.head() });
    const w = await call(alice).policy.applyText({
      text: `- {kind: claim, metadata: {namespace: social, name: alice_leaky}, user: Alice, service: leaky, labels: {target: k8s-example.west}}
- {kind: claim, metadata: {namespace: social, name: alice_keyed}, user: Alice, service: keyed, labels: {target: k8s-example.west}}`,
      baseGeneration: await repos.policy.head(),
    });
    const rev = await services.revisions!.ensureForGeneration(w.generation);
    revisionId = rev.id;
    const claim = await call(sam).resolution.claim({ namespace: 'social', name: 'alice_leaky' });
    assert.equal(claim.outcome.status, 'resolved', claim.outcome.errors.join());
    keys = claim.outcome.instances;
    assert.ok(keys.length >= 3);
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every read a console user can make about this change. */
  async function everything(a: Actor): Promise<string> {
    const api = call(a);
    const head = await repos.policy.head();
    const out: unknown[] = [
      await api.revisions.get({ id: revisionId }),
      await api.revisions.list({}),
      await api.revisions.events({ id: revisionId }),
      await api.resolution.claims({}),
      await api.resolution.claim({ namespace: 'social', name: 'alice_leaky' }),
      await api.resolution.claim({ namespace: 'social', name: 'alice_keyed' }),
      await api.graphs.desired({}),
      await api.graphs.policy({}),
      await api.policy.generation({ generation: head }),
      await api.policy.generations({}),
    ];
    for (const key of keys) {
      out.push(await api.revisions.instanceDiff({ revisionId, key }));
      out.push(await api.graphs.instance({ key }));
    }
    return JSON.stringify(out);
  }

  test('service consumers — even the claim’s own user — never see it in any response', async () => {
    for (const a of [alice, bob]) assert.ok(!(await everything(a)).includes(SECRET), `${a.name} saw the secret`);
  });

  test('the namespace admin of social sees the rendered parameters', async () => {
    assert.ok((await everything(john)).includes(SECRET));
  });

  test('a key rendered from a secret fails its claim, naming the template, not the value', async () => {
    const c = await call(sam).resolution.claim({ namespace: 'social', name: 'alice_keyed' });
    assert.equal(c.outcome.status, 'error');
    assert.match(c.outcome.errors[0]!, /allocation key of context 'only' in service 'social\/keyed' could read user secrets/);
    assert.ok(!c.outcome.errors[0]!.includes(SECRET));
  });

  test('applied to GitOps: no commit message and no file header holds it', async () => {
    const sections = (await call(sam).revisions.get({ id: revisionId })).sections;
    for (const s of sections.filter((x) => x.status === 'pending')) await call(sam).revisions.decide({ revisionId, namespace: s.namespace, decision: 'accept' });
    const git = join(dir, 'gitops');
    const actuator = new GitOpsActuator(git);
    while (await runOnce({ revisions: repos.revisions, actuator })) {
      /* apply every queued job */
    }
    const log = await commitLog(git);
    assert.ok(log.length > 0, 'something was applied');
    for (const c of log) assert.ok(!c.message.includes(SECRET), `commit message: ${c.message}`);
    const files = await readTrackedFiles(git);
    for (const [path, content] of Object.entries(files)) {
      assert.ok(!path.includes(SECRET), path);
      const header = content.split('\n').filter((l) => l.startsWith('#')).join('\n');
      assert.ok(!header.includes(SECRET), `${path} header: ${header}`);
    }
    // The deployed values do carry it: that is what was asked for.
    assert.ok(Object.values(files).some((c) => c.includes(SECRET)));
  });
});

describe('cluster credentials are redacted on the parsed value', () => {
  test('an anchored kubeconfig aliased elsewhere, and a comment repeating it, show no secret byte to non-admins', async () => {
    const h = await openDb({ pgliteDir: 'memory://' });
    try {
      const repos = drizzleRepos(h.db);
      await seedDemo(repos);
      const services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
      const text = `kind: cluster
metadata: {namespace: system, name: anchored}
type: kubernetes
# old credentials: ${SECRET}
config:
  kubeconfig: {users: [{name: admin, token: &kc "${SECRET}-kube"}]}
  defaultnamespace: apps
  context: *kc
`;
      await createCaller({ actor: sam, services }).policy.applyText({ text, baseGeneration: await repos.policy.head() });
      for (const who of [alice, john]) {
        const got = await createCaller({ actor: who, services }).policy.get({ kind: 'cluster', namespace: 'system', name: 'anchored' });
        assert.ok(!JSON.stringify(got).includes(SECRET), `${who.name} saw it: ${got.text}`);
        assert.match(got.text, /kubeconfig: "?<redacted/);
      }
      const admin = await createCaller({ actor: sam, services }).policy.get({ kind: 'cluster', namespace: 'system', name: 'anchored' });
      assert.ok(admin.text.includes(SECRET), 'the domain admin sees the text as written');
    } finally {
      await h.close();
    }
  });
});
