/**
 * Rights are visible before acting (issue 37 items 2 and 6): the demo's
 * sign-in page says who each user is, and the console offers a user only
 * what they may do, with the reason for what it does not.
 *
 * The run's main server signs in from its own users file (a planted secret),
 * which hides the demo list by design; these tests start a second console on
 * the same build exactly as `npm start` runs the demo, with its own data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { demoRevisionId } from './fixtures';

const PORT = Number(process.env.E2E_PORT ?? 3999) + 3;
const DEMO_URL = `http://localhost:${PORT}`;
const DM_REGISTRY_PORT = Number(process.env.E2E_DM_REGISTRY_PORT ?? 4011);

let server: ChildProcess | undefined;
let dataDir: string | undefined;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  dataDir = mkdtempSync(join(tmpdir(), 'keelson-e2e-demo-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(PORT), KEELSON_DATA_DIR: dataDir, NEXTAUTH_URL: DEMO_URL };
  for (const k of Object.keys(env)) if (k.startsWith('KEELSON_')) delete env[k];
  Object.assign(env, {
    KEELSON_DATA_DIR: dataDir,
    KEELSON_DM_ALLOW_HOSTS: `127.0.0.1:${DM_REGISTRY_PORT}`,
    KEELSON_DM_REGISTRY: `http://127.0.0.1:${DM_REGISTRY_PORT}/{owner}/{repo}/master/`,
  });
  // Its own process group, so that afterAll stops it and the server it starts, and nothing else.
  server = spawn(process.execPath, ['scripts/start.mjs'], { env, detached: true, stdio: 'ignore' });
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${DEMO_URL}/signin`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 280_000, intervals: [500, 1000] },
    )
    .toBe(200);
});

test.afterAll(() => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function signIn(page: Page, user: string) {
  await page.goto(`${DEMO_URL}/signin`);
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(user);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('current-user')).toBeVisible();
}

test('the demo sign-in page says, in words, what each user may do and what to try first', async ({ page }) => {
  await page.goto(`${DEMO_URL}/signin`);
  const list = page.getByTestId('demo-users');
  await expect(page.getByTestId('demo-user-sam')).toContainText('domain admin');
  await expect(page.getByTestId('demo-user-sam')).toContainText('accept');
  for (const name of ['john', 'frank']) {
    await expect(page.getByTestId(`demo-user-${name}`)).toContainText('namespace admin of platform and social');
  }
  for (const name of ['alice', 'bob', 'carol']) {
    await expect(page.getByTestId(`demo-user-${name}`)).toContainText('service consumer in platform and social');
    await expect(page.getByTestId(`demo-user-${name}`)).toContainText('Create a claim in platform');
  }
  // The users file's own labels said nothing of rights.
  await expect(list).not.toContainText('Global Ops');
});

test('carol’s new-object editor offers only claims, in her namespaces, under her name', async ({ page }) => {
  await signIn(page, 'carol');
  await page.goto(`${DEMO_URL}/objects/new`);
  const kind = page.getByLabel('Kind', { exact: true });
  await expect(kind).toHaveValue('claim');
  await expect(kind.locator('option')).toHaveText(['claim']);
  const namespace = page.getByLabel('Namespace', { exact: true });
  await expect(namespace.locator('option')).toHaveText(['platform', 'social']);
  const editor = page.getByTestId('yaml-editor');
  // The first editor this fresh server serves loads Monaco: slow on a busy machine.
  await expect(editor.locator('.view-lines')).toContainText('namespace: platform', { timeout: 60_000 });
  await expect(editor.locator('.view-lines')).toContainText('user: Carol');
  await namespace.selectOption('social');
  await expect(editor.locator('.view-lines')).toContainText('namespace: social');
  // Asking for a kind she may not save starts her on one she may.
  await page.goto(`${DEMO_URL}/objects/new?kind=bundle`);
  await expect(page.getByLabel('Kind', { exact: true })).toHaveValue('claim');
});

test('carol sees "Roll back to this" disabled, with the reason, where sam may use it', async ({ browser }) => {
  test.setTimeout(180_000);
  const sam = await (await browser.newContext()).newPage();
  await signIn(sam, 'sam');
  // An applied revision: the demo starts deployed, its revision accepted before the console serves and applied by its worker.
  await sam.goto(`${DEMO_URL}/revisions/${await demoRevisionId(sam, DEMO_URL)}`);
  await expect(sam.getByTestId('revision-status')).toHaveText('applied', { timeout: 120_000 });
  const url = sam.url();
  await expect(sam.getByRole('button', { name: 'Roll back to this' })).toBeEnabled();
  await expect(sam.getByTestId('rollback-why')).toHaveCount(0);

  const carol = await (await browser.newContext()).newPage();
  await signIn(carol, 'carol');
  await carol.goto(url);
  await expect(carol.getByTestId('revision-status')).toHaveText('applied');
  const rollback = carol.getByRole('button', { name: 'Roll back to this' });
  await expect(rollback).toBeDisabled();
  await expect(rollback).toHaveAccessibleDescription(/You may not roll back: .*namespace-admin.*service consumer in platform and social/);
  await expect(carol.getByTestId('rollback-why')).toBeVisible();
});
