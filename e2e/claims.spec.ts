import { expect, test } from '@playwright/test';
import { signIn } from './fixtures';

test("claims of the demo policy: Carol's is rejected and its trace names the rule", async ({ page }) => {
  await signIn(page, 'sam');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Claims' }).click();
  await expect(page.getByTestId('claims-rejected')).toHaveText('1');
  const row = page.getByTestId('claims-table').getByRole('row', { name: /social\/carol_dev/ });
  await expect(row.getByTestId('claim-status')).toHaveText('rejected');
  await row.getByRole('link', { name: 'social/carol_dev' }).click();
  await expect(page.getByTestId('claim-error')).toContainText("rule 'system/no_access_for_mobile_dev_users'");
  await expect(page.getByTestId('trace')).toContainText("context dev: matched (require-all `org == 'dev'` was true)");
  await expect(page.getByTestId('trace')).toContainText('rule system/no_access_for_mobile_dev_users (weight 1000) matched');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Claims' }).click();
  await page.getByRole('link', { name: 'social/prod' }).click();
  // The list has a status badge per row: wait for the claim's own page.
  await expect(page).toHaveURL(/\/claims\/social\/prod(\?|$)/);
  await expect(page.getByTestId('claim-status')).toHaveText('resolved');
  await expect(page.getByTestId('trace')).toContainText('target: cluster system/k8s-example, namespace east');
  await expect(page.getByTestId('claim-instances').getByRole('row')).toHaveCount(20); // its own 5 instances + the 14 shared platform ones + header
});
