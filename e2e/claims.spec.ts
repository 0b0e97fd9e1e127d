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

test("a template that fails while resolving points at its line: the claim's error opens the editor there", async ({ page }) => {
  await signIn(page, 'sam');
  const head = (await (await page.request.get('/api/trpc/policy.head')).json()) as { result: { data: { json: number } } };
  const policy = `
- kind: rule
  metadata: {namespace: diag, name: place}
  weight: 10
  actions: {change-labels: {set: {target: k8s-example}}}
- kind: service
  metadata: {namespace: diag, name: web}
  contexts: [{name: only, allocation: {bundle: web}}]
- kind: bundle
  metadata: {namespace: diag, name: web}
  components:
    - name: app
      code:
        type: helm
        params:
          chartName: nginx
          image:
            tag: |
              v1
              {{ .Discovery.db.url }}
- kind: claim
  metadata: {namespace: diag, name: broken}
  user: Sam
  service: web
`;
  const saved = await page.request.post('/api/trpc/policy.applyText', {
    data: { json: { text: policy, baseGeneration: head.result.data.json, message: 'a template that cannot render' } },
  });
  expect(saved.status()).toBe(200);

  await page.goto('/claims/diag/broken');
  await expect(page.getByTestId('claim-status')).toHaveText('error');
  await expect(page.getByTestId('claim-error')).toContainText('<.Discovery.db.url> has no value');
  const site = page.getByTestId('claim-error-site');
  // The bundle as stored: line 1 is "kind: bundle"; the template's second line is line 12.
  await expect(site).toHaveText('bundle diag/web, components[0].code.params.image.tag, line 12');
  await site.click();
  await expect(page).toHaveURL(/\/objects\/bundle\/diag\/web\?line=12&column=\d+$/);
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).toContainText('.Discovery.db.url');
  await expect(editor.locator('.line-numbers.active-line-number')).toHaveText('12');
});
