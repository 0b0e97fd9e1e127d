/**
 * A planted secret, end to end: Alice's user secret (planted by
 * playwright.config.ts) is read by a bundle's templates; Alice claims it in
 * her own name, Sam accepts, the apply worker commits it to GitOps. Then
 * Bob and Alice browse every console page about it while every response the
 * browser receives is recorded — none holds the secret; John, namespace
 * admin of social, does see the rendered value (so the search is real). The
 * server's log and every GitOps commit message and file header are searched
 * too.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { commitLog, readTrackedFiles } from '../server/apply/gitops/actuator';
import { signIn } from './fixtures';

const SECRET = process.env.E2E_PLANTED_SECRET!;
const DATA = process.env.E2E_DATA_DIR!;

test.describe.configure({ mode: 'serial' });

function keelson(args: string[], user: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KEELSON_USER: user, KEELSON_PASSWORD: user, KEELSON_SERVER: test.info().project.use.baseURL },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const POLICY = `- kind: bundle
  metadata: {namespace: social, name: vault-user}
  components:
    - name: db
      discovery: {password: '{{ .User.Secrets.token }}'}
      code: {type: helm, params: {chartName: db, chartRepo: https://charts.example.com}}
    - name: app
      dependencies: [db]
      code: {type: helm, params: {chartName: app, chartRepo: https://charts.example.com, dsn: 'postgres://app:{{ .Discovery.db.password }}@db'}}
- kind: service
  metadata: {namespace: social, name: vault-user}
  contexts: [{name: only, allocation: {bundle: vault-user}}]
`;
const CLAIM = `- {kind: claim, metadata: {namespace: social, name: alice_vault}, user: Alice, service: vault-user, labels: {target: k8s-example.west}}
`;

let revisionId = 0;

test('set up: the secret is used by a claim, accepted and applied', async () => {
  expect(SECRET).toBeTruthy();
  const policyFile = join(DATA, 'vault-user.yaml');
  const claimFile = join(DATA, 'alice-vault.yaml');
  writeFileSync(policyFile, POLICY);
  writeFileSync(claimFile, CLAIM);
  const a = keelson(['apply', policyFile, '--message', 'a bundle reading user secrets', '--format', 'json'], 'sam');
  expect(a.code, a.err).toBe(0);
  const c = keelson(['apply', claimFile, '--message', 'alice claims it', '--format', 'json'], 'alice');
  expect(c.code, c.err).toBe(0);
  revisionId = (JSON.parse(c.out) as { revision: { id: number } }).revision.id;
  for (const r of JSON.parse(keelson(['revisions', 'list', '--format', 'json'], 'sam').out) as { id: number; status: string }[]) {
    if (r.status === 'pending') expect(keelson(['revisions', 'accept', String(r.id)], 'sam').code).toBe(0);
  }
  const waited = keelson(['revisions', 'wait', String(revisionId), '--until', 'applied', '--timeout', '90'], 'sam');
  expect(waited.code, waited.err).toBe(0);
});

/** Visit every page about the change as `user`, expanding each instance's parameters; returns every response body the browser received. */
async function browse(page: Page, user: string): Promise<string[]> {
  const bodies: string[] = [];
  const pending: Promise<void>[] = [];
  let inFlight = 0;
  page.on('request', () => inFlight++);
  page.on('requestfinished', () => inFlight--);
  page.on('requestfailed', () => inFlight--);
  // Pages that poll never reach "network idle": wait until no request has been open for 0.4 s (at most 4 s).
  const settle = async () => {
    let quietSince = Date.now();
    for (const end = Date.now() + 4_000; Date.now() < end; await page.waitForTimeout(50)) {
      if (inFlight > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= 400) return;
    }
  };
  page.on('response', (r) => {
    pending.push(
      r
        .body()
        .then((b) => void bodies.push(`${r.url()}\n${b.toString('utf8')}`))
        .catch(() => undefined),
    );
  });
  await signIn(page, user);
  for (const path of ['/objects', '/claims', '/claims/social/alice_vault', '/objects/claim/social/alice_vault', '/objects/bundle/social/vault-user', '/history', '/graphs', '/revisions', `/revisions/${revisionId}`]) {
    await page.goto(path);
    await page.waitForLoadState('load');
    await settle();
  }
  // Open each instance's parameter diff on the revision page.
  const instances = page.getByRole('button', { name: /vault-user/ });
  for (let i = 0; i < (await instances.count()); i++) {
    await instances.nth(i).click();
    await settle();
  }
  await Promise.all(pending);
  expect(bodies.length).toBeGreaterThan(10);
  return bodies;
}

for (const user of ['bob', 'alice']) {
  test(`${user} (a service consumer) never receives the secret in any response`, async ({ page }) => {
    const leaks = (await browse(page, user)).filter((b) => b.includes(SECRET)).map((b) => b.split('\n')[0]);
    expect(leaks).toEqual([]);
  });
}

test('john, namespace admin of social, sees the rendered value (the search finds it where it may be seen)', async ({ page }) => {
  const seen = (await browse(page, 'john')).filter((b) => b.includes(SECRET));
  expect(seen.length).toBeGreaterThan(0);
});

test('the server log, GitOps commit messages and file headers never hold it; the deployed values do', async () => {
  const log = readFileSync(join(DATA, 'server.log'), 'utf8');
  expect(log.length).toBeGreaterThan(0);
  expect(log.includes(SECRET)).toBe(false);
  const git = join(DATA, 'gitops');
  for (const c of await commitLog(git)) expect(c.message.includes(SECRET), c.message).toBe(false);
  const files = await readTrackedFiles(git);
  for (const [path, content] of Object.entries(files)) {
    expect(path.includes(SECRET)).toBe(false);
    const header = content.split('\n').filter((l) => l.startsWith('#')).join('\n');
    expect(header.includes(SECRET), `${path} header`).toBe(false);
  }
  expect(Object.values(files).some((c) => c.includes(SECRET))).toBe(true);
});
