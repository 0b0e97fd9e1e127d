import { expect, type Page } from '@playwright/test';

/** Sign in through the local form, as a person would. */
export async function signIn(page: Page, user = 'alice', password = user) {
  await page.goto('/signin');
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('current-user')).toBeVisible();
}
