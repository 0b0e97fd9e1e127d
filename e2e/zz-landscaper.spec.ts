/**
 * Landscaper in the console: the seed's `application` blueprint installed
 * twice in one namespace (through the CLI, as a pipeline would), seen as two
 * separate scopes in the scope graph, an import value one click away, a
 * scope folded and opened again, a declared DataObject's YAML one link away —
 * and a cycle between installations
 * reported with its path.
 *
 * Named to run last (after zz-capact): it adds installations to the
 * console the other specs share, as new generations.
 */
import { spawnSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { signIn } from './fixtures';

function keelson(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KEELSON_USER: 'sam', KEELSON_PASSWORD: 'sam', KEELSON_SERVER: test.info().project.use.baseURL },
  });
}

test('installations: one blueprint twice makes two scopes; an import value is one click away; a cycle is reported', async ({ page }) => {
  const r = keelson(['apply', 'server/testing/landscaper-application.yaml']);
  expect(r.status, r.stderr).toBe(0);

  await signIn(page, 'sam');
  await page.getByRole('link', { name: 'Installations' }).click();
  await page.getByTestId('scope-namespace').selectOption('landscape');
  await expect(page).toHaveURL(/namespace=landscape/);
  const graph = page.getByTestId('scope-graph');
  // Two scopes, each holding the same local names.
  await expect(graph.getByTestId('scope-box-application')).toBeVisible();
  await expect(graph.getByTestId('scope-box-application2')).toBeVisible();
  for (const path of ['application/database', 'application/webui', 'application2/database', 'application2/webui']) {
    await expect(graph.getByTestId(`installation-${path}`)).toBeVisible();
  }
  await expect(graph.getByTestId('object-obj:scope:landscape/application2:data:databaseaccess')).toBeVisible();

  // Click through to an import value: application2's webui reads application2's database, not application's.
  await graph.getByTestId('installation-application2/webui').click();
  const panel = page.getByTestId('scope-panel');
  await expect(panel.getByTestId('scope-panel-title')).toHaveText('application2/webui');
  await expect(panel.getByTestId('scope-imports-in')).toContainText('postgres://db.cluster2/blog');
  await expect(panel.getByTestId('scope-phases')).toContainText('Succeeded');
  await expect(page).toHaveURL(/node=landscape%2Fapplication2%2Fwebui/);

  // A scope folds shut (its contents counted) and opens again — from the keyboard: the
  // graph opens on the selected installation at a readable zoom, so application's
  // title may be off screen.
  await graph.getByRole('button', { name: 'Fold the scope of application', exact: true }).press('Enter');
  await expect(graph.getByTestId('installation-application/webui')).toHaveCount(0);
  await expect(graph.getByTestId('installation-application')).toContainText('6 inside');
  await graph.getByRole('button', { name: 'Open the scope of application', exact: true }).press('Enter');
  await expect(graph.getByTestId('installation-application/webui')).toBeVisible();

  // The run order is there for the keyboard too.
  await page.getByText('Installations in run order').click();
  await page.getByTestId('scope-order').getByRole('button', { name: 'application/database', exact: true }).click();
  await expect(panel.getByTestId('scope-panel-title')).toHaveText('application/database');
  await expect(panel.getByTestId('scope-exports-databaseaccess')).toContainText('postgres://db.cluster/shop');

  // A DataObject declared in the namespace is an object of its own: its panel links to its YAML.
  // (Dispatched: the view may be centred elsewhere, and a canvas node cannot be scrolled to.)
  await graph.getByTestId('object-obj:ns:landscape:data:config2').dispatchEvent('click');
  const objectPanel = page.getByRole('complementary', { name: 'Object config2' });
  await expect(objectPanel).toContainText('DataObject · declared');
  await objectPanel.getByRole('link', { name: 'Open its YAML' }).click();
  await expect(page).toHaveURL(/\/objects\/dataobject\/landscape\/config2$/);
  await expect(page.getByTestId('yaml-editor').locator('.view-lines')).toContainText('config2', { timeout: 60_000 });

  // Two installations importing each other's exports: the cycle, with its path.
  const c = keelson(['apply', 'server/testing/landscaper-cycle.yaml']);
  expect(c.status, c.stderr).toBe(0);
  await page.goto('/installations?namespace=landscape');
  await expect(page.getByTestId('scope-errors')).toContainText(/cycle/i);
  await expect(page.getByTestId('scope-cycle')).toHaveText(/^(ping → pong → ping|pong → ping → pong)$/);
  await expect(page.getByTestId('scope-errors').getByRole('alert')).toHaveCount(1);
  await expect(graph.getByTestId('installation-ping')).toContainText('Failed');
  await expect(graph.getByTestId('installation-application2/webui')).toContainText('Succeeded');
});
