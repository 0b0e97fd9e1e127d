import { expect, test } from '@playwright/test';
import { signIn } from './fixtures';

test('console pages need a signed-in user', async ({ page }) => {
  await page.goto('/objects');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fobjects/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

test('wrong password is refused with a clear message', async ({ page }) => {
  await page.goto('/signin');
  await page.getByLabel('User name').fill('alice');
  await page.getByLabel('Password').fill('wrong');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.locator('.alert-error')).toHaveText('Wrong user name or password.');
});

test('local sign-in shows the user and their labels on the profile page', async ({ page }) => {
  await signIn(page, 'alice');
  await expect(page.getByTestId('current-user')).toHaveText('Alice');
  await page.getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByTestId('profile-name')).toHaveText('Alice');
  const labels = page.getByTestId('labels-table');
  await expect(labels.getByRole('row', { name: /org\s+dev/ })).toBeVisible();
  await expect(labels.getByRole('row', { name: /short-description\s+Dev/ })).toBeVisible();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
});

test('OpenID Connect sign-in through a real provider', async ({ page }) => {
  await page.goto('/signin');
  await page.getByRole('button', { name: 'Continue with Test SSO' }).click();
  // The provider's own login and consent pages.
  await page.locator('input[name=login]').fill('dana');
  await page.locator('input[name=password]').fill('any');
  await page.locator('button[type=submit]').click();
  await page.getByRole('button', { name: /continue/i }).click();
  await expect(page.getByTestId('current-user')).toHaveText('Dana Oidc');
  await page.getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByText('OpenID Connect')).toBeVisible();
  await expect(page.getByTestId('labels-table').getByRole('row', { name: /groups\s+ops,platform/ })).toBeVisible();
  await expect(page.getByTestId('labels-table').getByRole('row', { name: /email\s+dana@example\.test/ })).toBeVisible();
  // A verified address is her name in policy.
  await expect(page.getByTestId('profile-name')).toHaveText('dana@example.test');
});

test('an OIDC user who calls herself Sam gets nothing of the local Sam: identity is the account, not its name', async ({ page }) => {
  await page.goto('/signin');
  await page.getByRole('button', { name: 'Continue with Test SSO' }).click();
  await page.locator('input[name=login]').fill('impostor');
  await page.locator('input[name=password]').fill('any');
  await page.locator('button[type=submit]').click();
  await page.getByRole('button', { name: /continue/i }).click();
  // Shown as she calls herself…
  await expect(page.getByTestId('current-user')).toHaveText('Sam');
  await page.getByRole('link', { name: 'Profile' }).click();
  // …but policy knows her by her account (her e-mail is unverified, so not by it), and she has no role of Sam's.
  await expect(page.getByTestId('profile-name')).toHaveText(`impostor@127.0.0.1:${process.env.E2E_OIDC_PORT ?? 4010}`);
  await expect(page.getByText('No roles: you may view everything and change nothing.')).toBeVisible();
  await expect(page.getByTestId('labels-table').getByRole('row', { name: /email/ })).toHaveCount(0);
});

test('signing out ends the session on the server: a copy of the old cookie answers 401', async ({ page, context, playwright, baseURL }) => {
  await signIn(page, 'sam');
  const saved = await context.cookies();
  // Somewhere else (another tool, or someone who copied it), the same cookie.
  const elsewhere = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { cookie: saved.map((c) => `${c.name}=${c.value}`).join('; ') } });
  const me = await elsewhere.get('/api/1.0-beta/user/info');
  expect(me.status()).toBe(200);
  expect(((await me.json()) as { data: { name: string } }).data.name).toBe('Sam');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  expect((await elsewhere.get('/api/1.0-beta/user/info')).status()).toBe(401);
  await elsewhere.dispose();
  // Put back in the browser, the old cookie opens no page either.
  await context.addCookies(saved);
  await page.goto('/objects');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fobjects/);
});

test('a domain admin ends a user’s sessions from the Users page: their open browser is signed out', async ({ browser }) => {
  const bob = await (await browser.newContext()).newPage();
  await signIn(bob, 'bob');
  const sam = await (await browser.newContext()).newPage();
  await signIn(sam, 'sam');
  await sam.goto('/users');
  await sam.getByRole('button', { name: 'End sessions of Bob' }).click();
  await expect(sam.getByTestId('sessions-status')).toContainText(/Bob is signed out everywhere \(\d+ sessions? ended\)/);
  await bob.goto('/objects');
  await expect(bob).toHaveURL(/\/signin\?callbackUrl=%2Fobjects/);
});
