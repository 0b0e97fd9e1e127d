/**
 * Issue 37, item 1: the demo shows the product. A newcomer (Sam) opens each
 * source's page of a freshly started console and finds its example there
 * at first sight — Aptomi's claims, the Capact Hub with its Global policy
 * ("Try it" answers), a Landscaper data flow, a DM deployment from a Jinja
 * template, an Axebow tenant with its environments and services — and the
 * demo's first revision applied. server/seed/demo.test.ts checks the same
 * demo without a browser.
 *
 * Named to run first (files run in name order on one shared console): the
 * other specs add claims, some failing on purpose, and this one reads the
 * console as the seed left it, changing nothing.
 */
import { expect, test } from '@playwright/test';
import { demoRevisionId, signIn } from './fixtures';

test('a newcomer sees an example of each of the five sources, and the demo deployed', async ({ page }) => {
  await signIn(page, 'sam');

  // Aptomi, and the tenant's services (claims of its namespace acme) beside its claims.
  await page.goto('/claims');
  const claims = page.getByTestId('claims-table');
  await expect(claims).toContainText('social/prod');
  await expect(claims).toContainText('acme/api');
  await expect(claims).toContainText('acme/web');
  await expect(page.getByTestId('claims-error')).toHaveText('0');

  // Capact: the Global policy's page, where "Try it" answers from the Hub's two Implementations.
  await page.goto('/objects/policy/system/global');
  const tryIt = page.getByTestId('capact-try-it');
  await tryIt.getByTestId('try-interface').selectOption('cap.interface.database.postgresql.install');
  await expect(tryIt.getByTestId('try-summary')).toHaveText(/resolves to cap\.implementation\.bitnami\.postgresql\.install:0\.1\.0/);
  await expect(tryIt.getByTestId('try-candidates')).toContainText('cap.implementation.gcp.cloudsql.postgresql.install:0.1.0');

  // Landscaper: two installations, webui importing what database exports.
  await page.goto('/installations');
  const graph = page.getByTestId('scope-graph');
  await expect(graph.getByTestId('installation-database')).toBeVisible();
  await graph.getByTestId('installation-webui').click();
  const panel = page.getByTestId('scope-panel');
  await expect(panel.getByTestId('scope-imports-database')).toContainText('postgres://db.garden/shop');
  await expect(panel.getByTestId('scope-phases')).toContainText('Succeeded');

  // DM: the deployment's layout, its Jinja template holding the primitives it expanded to.
  await page.goto('/deployments/web/hello');
  const layout = page.getByTestId('dm-layout');
  await expect(layout.getByTestId('layout-frontend')).toContainText('frontend.jinja');
  await expect(layout.getByTestId('layout-frontend-service')).toContainText('Service');
  await expect(layout.getByTestId('layout-frontend-rc')).toContainText('ReplicationController');

  // Axebow: tenant acme, its account's environments on the demo cluster, and the link between its services.
  await page.goto('/tenants');
  await expect(page.getByTestId('tenants-table')).toContainText('acme');
  await page.goto('/tenants/acme');
  await expect(page.getByTestId('environments-table').getByTestId('environment-main-prod')).toBeVisible();
  await expect(page.getByTestId('environments-table').getByTestId('environment-main-dev')).toBeVisible();
  await expect(page.getByTestId('tenant-links')).toHaveText('service web, client channel out → service api, server channel in');

  // The demo starts deployed: its revision carries all of it and is applied.
  await page.goto(`/revisions/${await demoRevisionId(page)}`);
  await expect(page.getByTestId('revision-status')).toHaveText('applied', { timeout: 60_000 });
});
