import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { parse, stringify } from 'yaml';

/**
 * End-to-end tests in Debian's Chromium (never a downloaded browser). The
 * console runs as users run it (`npm start`: build if needed, then serve),
 * on its own port with a fresh data folder and a real OIDC provider.
 */
const PORT = Number(process.env.E2E_PORT ?? 3999);
const OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? 4010);
const DM_REGISTRY_PORT = Number(process.env.E2E_DM_REGISTRY_PORT ?? 4011);
const APP_URL = `http://localhost:${PORT}`;
// Playwright loads this file in each worker too: create the folder once.
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'keelson-e2e-'));
/** A secret only Alice's deployments may read; e2e/secrets.spec.ts searches every response, log line and commit for it. */
const PLANTED_SECRET = (process.env.E2E_PLANTED_SECRET ??= 'PLANTED-E2E-SECRET-51c0de');
// The demo users, with that secret planted on Alice.
const USERS_FILE = join(process.env.E2E_DATA_DIR, 'users.yaml');
const demoUsers = parse(readFileSync('corpus/aptomi/examples/common/users.yaml', 'utf8')) as { name: string; secrets?: Record<string, string> }[];
for (const u of demoUsers) if (u.name === 'Alice') u.secrets = { ...u.secrets, token: PLANTED_SECRET };
writeFileSync(USERS_FILE, stringify(demoUsers));

export default defineConfig({
  testDir: './e2e',
  outputDir: './test-results',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Waits measure nothing: they only stop a test that would never pass.
  // Beside four busy processes on two cores (stress-ng --cpu 4) Monaco takes
  // 15–20 s to open where it takes 3 s on a quiet machine, so a 15 s wait
  // failed tests that were right. Speed is `npm run bench -- pages`'s to judge.
  timeout: 180_000,
  expect: { timeout: 45_000 },
  // The HTML report keeps every test's attachments (the page screenshots
  // e2e/narrow-a11y.spec.ts takes at 1440×900 and 390×844), not only failures'.
  // The third writes each test's file and time for the slowest files scripts/test.mjs prints at the end.
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }], ['./scripts/test-timing/playwright-reporter.ts']],
  use: {
    baseURL: APP_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'],
        },
      },
    },
  ],
  webServer: [
    {
      command: 'node e2e/oidc-provider.mjs',
      url: `http://127.0.0.1:${OIDC_PORT}/.well-known/openid-configuration`,
      env: { OIDC_PORT: String(OIDC_PORT), APP_URL },
      reuseExistingServer: false,
      stdout: 'ignore',
    },
    {
      command: 'node e2e/dm-registry.mjs',
      url: `http://127.0.0.1:${DM_REGISTRY_PORT}/kubernetes/application-dm-templates/master/README.md`,
      env: { DM_REGISTRY_PORT: String(DM_REGISTRY_PORT) },
      reuseExistingServer: false,
      stdout: 'ignore',
    },
    {
      command: 'node scripts/start.mjs',
      url: `${APP_URL}/signin`,
      timeout: 400_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      env: {
        PORT: String(PORT),
        KEELSON_DATA_DIR: process.env.E2E_DATA_DIR,
        NEXTAUTH_URL: APP_URL,
        KEELSON_OIDC_ISSUER: `http://127.0.0.1:${OIDC_PORT}`,
        KEELSON_OIDC_CLIENT_ID: 'keelson-console',
        KEELSON_OIDC_CLIENT_SECRET: 'keelson-console-secret',
        KEELSON_OIDC_NAME: 'Test SSO',
        // Free namespaces the access spec's tenant takes without a domain admin.
        KEELSON_FREE_NAMESPACES: 'alice-*',
        KEELSON_USERS_FILE: USERS_FILE,
        KEELSON_LOG_FILE: join(process.env.E2E_DATA_DIR, 'server.log'),
        // The guestbook's registry types come from the loopback registry (e2e/dm-registry.mjs).
        KEELSON_DM_ALLOW_HOSTS: `127.0.0.1:${DM_REGISTRY_PORT}`,
        KEELSON_DM_REGISTRY: `http://127.0.0.1:${DM_REGISTRY_PORT}/{owner}/{repo}/master/`,
      },
    },
  ],
});
