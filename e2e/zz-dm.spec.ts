/**
 * Deployment Manager in the console: a deployment written in the editor
 * (a Jinja template expanding into a Service and a ReplicationController),
 * its layout tree on its page, its revision accepted, its manifests in the
 * GitOps repository, and its types on the types page.
 *
 * Named to run after the other specs (zz-): it adds a deployment to the
 * console they share.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { readTrackedFiles } from '../server/apply/gitops/actuator';
import { DM } from '../server/engine/model/sources/dm';
import { setEditorText, signIn } from './fixtures';

const GITOPS = join(process.env.E2E_DATA_DIR!, 'gitops');

test('a deployment: written in the editor, its layout tree, its revision accepted, its manifests in GitOps', async ({ page }) => {
  await signIn(page, 'sam');
  await page.goto('/objects/new?kind=deployment');
  await setEditorText(page, DM.kinds.deployment.example.replace('namespace: main', 'namespace: shop').replace('name: my-deployment', 'name: storefront'));
  await page.getByRole('button', { name: /^Create/ }).click();
  await expect(page).toHaveURL(/\/objects\/deployment\/shop\/storefront/);

  // Its page: the layout tree, the template holding the primitives it expanded to.
  await page.goto('/deployments/shop/storefront');
  const layout = page.getByTestId('dm-layout');
  await expect(layout.getByTestId('layout-frontend')).toContainText('frontend.jinja');
  await expect(layout.getByTestId('layout-frontend-service')).toContainText('Service');
  await expect(layout.getByTestId('layout-frontend-rc')).toContainText('ReplicationController');
  await expect(layout).toContainText('Created');

  // Its revision (the newest): accepted, applied; the manifests are in the repository.
  await page.goto('/revisions');
  await page.getByTestId('revisions-table').getByRole('row').nth(1).getByRole('link').first().click();
  await expect(page).toHaveURL(/\/revisions\/\d+$/);
  await expect(page.getByTestId('revision-status')).toHaveText(/pending|applied/);
  if ((await page.getByTestId('revision-status').textContent()) === 'pending') {
    for (const name of await page.getByRole('button', { name: /^Accept / }).allTextContents()) {
      await page.getByRole('button', { name }).click();
      await expect(page.getByTestId('decision-status')).toContainText(/Accepted section|queued for apply|All sections accepted/);
    }
  }
  await expect(page.getByTestId('revision-status')).toHaveText('applied', { timeout: 60_000 });
  const files = await readTrackedFiles(GITOPS);
  const rc = Object.entries(files).find(([, c]) => c.includes('kind: ReplicationController') && c.includes('name: frontend'));
  expect(rc, 'the ReplicationController is in the repository').toBeTruthy();
  expect(rc![1]).toContain('replicas: 2');
  expect(Object.values(files).some((c) => c.includes('kind: Service') && c.includes('name: frontend'))).toBe(true);

  // Its page now says it is deployed (an old /claims link leads to it); the types page lists where its types are used.
  await page.goto('/claims/shop/storefront');
  await expect(page.getByTestId('dm-layout')).toContainText('Deployed');
  await page.getByRole('link', { name: 'Types' }).click();
  await expect(page.getByTestId('dm-type-ReplicationController')).toContainText('shop/storefront');
  await expect(page.getByTestId('dm-type-ReplicationController')).toContainText('$.resources[0].resources[1]');
});
