/**
 * API tokens end to end: made on the profile page, used as a bearer
 * credential on the REST API, revoked on the page (and then refused) — and
 * the REST API's documentation page, which must load everything from the
 * console itself.
 */
import { expect, test } from '@playwright/test';
import { signIn } from './fixtures';

test('a token made on the profile page works as a bearer credential until revoked there', async ({ page, request }) => {
  await signIn(page, 'bob');
  await page.getByRole('link', { name: 'Profile' }).click();
  const section = page.getByTestId('api-tokens');
  await expect(section.getByRole('heading', { name: 'API tokens' })).toBeVisible();
  await expect(section.getByText('No API tokens yet').or(section.getByTestId('tokens-table'))).toBeVisible();

  // Keyboard only: type the name and the days, Enter submits.
  const name = `e2e-${Date.now()}`;
  await section.getByLabel('Token name').fill(name);
  await section.getByLabel('Expires after (days, optional)').fill('7');
  await section.getByLabel('Expires after (days, optional)').press('Enter');
  const created = section.getByTestId('new-token');
  await expect(created).toContainText('you will not see it again');
  const value = section.getByTestId('new-token-value');
  await expect(value).toBeFocused();
  const token = await value.inputValue();
  expect(token).toMatch(/^kst_[A-Za-z0-9_-]{43}$/);
  await expect(created.getByRole('button', { name: 'Copy' })).toBeVisible();

  const row = section.getByTestId('token-row').filter({ hasText: name });
  await expect(row).toContainText(`kst_${token.slice(4, 12)}…`);
  await expect(row).toContainText('active');
  await expect(row.getByRole('cell').nth(3)).toHaveText('never');

  // The REST API with the token alone (the request context has no cookies).
  const me = await request.get('/api/1.0-beta/user/info', { headers: { authorization: `Bearer ${token}` } });
  expect(me.status(), await me.text()).toBe(200);
  expect((await me.json()).data.name).toBe('Bob');

  // Done hides the value for good; the list now shows the token was used.
  await created.getByRole('button', { name: 'Done' }).click();
  await expect(section.getByTestId('new-token')).toHaveCount(0);
  await page.reload();
  await expect(row.getByRole('cell').nth(3)).toHaveText('just now');
  await expect(page.getByText(token)).toHaveCount(0);

  // Revoke, with a confirmation (Cancel first: nothing happens).
  await row.getByRole('button', { name: `Revoke token ${name}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke this token?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect((await request.get('/api/1.0-beta/user/info', { headers: { authorization: `Bearer ${token}` } })).status()).toBe(200);
  await row.getByRole('button', { name: `Revoke token ${name}` }).click();
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await expect(section.getByTestId('token-status')).toContainText('is revoked');
  await expect(row).toContainText('revoked');
  await expect(row.getByRole('button', { name: /Revoke/ })).toHaveCount(0);

  const after = await request.get('/api/1.0-beta/user/info', { headers: { authorization: `Bearer ${token}` } });
  expect(after.status()).toBe(401);
  expect((await after.json()).code).toBe('Unauthenticated');
});

test('the API docs (reference and Swagger UI) load from the console alone and list the operations', async ({ playwright }) => {
  const base = new URL(test.info().project.use.baseURL!);
  // Also under a name that is not loopback: Swagger UI treats localhost specially (its online validator).
  const alias = `keelson-docs.test:${base.port}`;
  const launchOptions = test.info().project.use.launchOptions ?? {};
  const browser = await playwright.chromium.launch({ ...launchOptions, args: [...(launchOptions.args ?? []), `--host-resolver-rules=MAP keelson-docs.test 127.0.0.1`] });
  try {
    for (const origin of [base.origin, `http://${alias}`]) {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      // Whatever tries to leave is recorded above and stopped here.
      await page.route((url) => url.origin !== origin, (route) => route.abort());
      // The reference: rendered on the server, every group and operation on the page.
      await page.goto(`${origin}/api/1.0-beta/docs`);
      await expect(page).toHaveTitle('Keelson API');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Keelson API');
      expect(await page.locator('section[data-tag] h2').count()).toBeGreaterThan(5);
      const platform = page.locator('section[data-tag="platform"] details[data-method="get"][data-path$="/platform"]');
      await platform.locator('summary').click();
      await expect(platform.locator('.op-body')).toContainText('Who may call it: anyone.');
      await expect(platform.getByRole('heading', { name: 'Responses' })).toBeVisible();
      // Swagger UI, for trying requests, one link away.
      await page.getByRole('link', { name: 'Try requests in Swagger UI' }).click();
      await expect(page).toHaveURL(`${origin}/api/1.0-beta/docs/try`);
      await expect(page.locator('.swagger-ui .info .title')).toContainText('Keelson API');
      // The page opens on its tags; a tag renders its operations when opened.
      await expect(page.locator('.opblock-tag[data-tag="platform"]')).toBeVisible();
      expect(await page.locator('.opblock-tag').count()).toBeGreaterThan(5);
      await page.locator('.opblock-tag[data-tag="platform"]').click();
      await expect(page.locator('.opblock-summary-path[data-path$="/platform"]').first()).toBeVisible();
      // Let late requests (images, badges) start before checking.
      await page.waitForLoadState('networkidle');
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin), `requests from ${origin} that left it`).toEqual([]);
      await page.close();
    }
  } finally {
    await browser.close();
  }
});
