import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';
import { editorText, setEditorText, signIn } from './fixtures';

/**
 * The README says a file may hold many objects; the new-object editor takes
 * the same: `---` documents of different kinds, created as one generation,
 * and one bad object among them is named and nothing is saved.
 */

// Unique per run: the e2e data folder is shared by every spec.
const suffix = Date.now().toString(36);
const bundle = `multi-${suffix}`;
// Monaco's first load is the heaviest chunk the console serves; on a busy machine it outlasts the default wait.
const EDITOR_LOAD = 60_000;

const twoKinds = (field = 'allocation') => `kind: bundle
metadata:
  namespace: platform
  name: ${bundle}
components:
  - name: app
    code:
      type: helm
      params: {chartName: ${bundle}}
---
kind: service
metadata:
  namespace: platform
  name: ${bundle}
contexts:
  - name: platform
    ${field}:
      bundle: ${bundle}
`;

test('a paste with one bad object shows that object’s error and saves nothing', async ({ page }) => {
  // Frank is a namespace admin of platform.
  await signIn(page, 'frank');
  await page.goto('/objects/new?kind=bundle');
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).toContainText('kind: bundle', { timeout: EDITOR_LOAD });
  const head = (await page.getByText(/Editing on top of generation \d+/).textContent())!;
  await setEditorText(page, twoKinds('alocation'));
  // The service's misspelt field, on its line (17), in the second document; the bundle above is fine.
  await expect(page.getByTestId('problems')).toContainText('17:');
  await expect(page.getByTestId('problems')).toContainText('alocation');
  await expect(page.getByTestId('problems')).not.toContainText('Expected');
  await page.getByRole('button', { name: /^Create/ }).click();
  await expect(page.getByTestId('save-status')).toContainText('Save refused');
  // The first problem is the service's (the context lacks `allocation`, line 16, or has `alocation`, 17), named by its object.
  await expect(page.getByTestId('save-status')).toContainText(new RegExp(`line 1[67] \\(service platform/${bundle}\\)`));
  await expect(page).toHaveURL(/\/objects\/new/);
  // Nothing was saved: neither object exists, the policy did not move.
  await page.goto(`/objects?search=${bundle}`);
  await expect(page.getByText('Nothing matches these filters').or(page.getByTestId('objects-table'))).toBeVisible();
  await expect(page.locator(`a[href^="/objects/bundle/platform/${bundle}"], a[href^="/objects/service/platform/${bundle}"]`)).toHaveCount(0);
  await page.goto('/objects/new?kind=bundle');
  await expect(page.getByText(/Editing on top of generation \d+/)).toHaveText(head);
});

test('paste two objects of different kinds as --- documents; Create makes both in one generation', async ({ page }) => {
  await signIn(page, 'frank');
  await page.goto('/objects/new?kind=bundle');
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).toContainText('kind: bundle', { timeout: EDITOR_LOAD });
  await setEditorText(page, twoKinds());
  // Each document is checked against its own kind's schema: neither is "expected" to be a bundle.
  await expect(page.getByTestId('problem-count')).toHaveText('0');
  await page.getByRole('button', { name: /^Create/ }).click();
  const status = page.getByTestId('save-status');
  await expect(status).toContainText(/Saved as generation \d+\./);
  const generation = Number(/Saved as generation (\d+)/.exec((await status.textContent())!)![1]);
  await expect(page.getByTestId('created-objects')).toContainText(`bundle platform/${bundle}`);
  await expect(page.getByTestId('created-objects')).toContainText(`service platform/${bundle}`);

  // History shows one generation that made both.
  await page.goto(`/history?to=${generation}`);
  await expect(page.getByTestId('generations-table')).toBeVisible();
  await page.goto(`/objects/service/platform/${bundle}`);
  await expect(editor.locator('.view-lines')).toContainText(`bundle: ${bundle}`);
  await expect(page.getByText(`last changed in generation ${generation}`)).toBeVisible();
  await page.goto(`/objects/bundle/platform/${bundle}`);
  await expect(editor.locator('.view-lines')).toContainText(`chartName: ${bundle}`);
  await expect(page.getByText(`last changed in generation ${generation}`)).toBeVisible();
});

test('Import files loads several .yaml files into the editor; Create makes every object in one generation', async ({ page }) => {
  await signIn(page, 'frank');
  await page.goto('/objects/new?kind=bundle');
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).toContainText('kind: bundle', { timeout: EDITOR_LOAD });
  const name = `imported-${suffix}`;
  const [bundleDoc, serviceDoc] = twoKinds().replaceAll(bundle, name).split('---\n');
  await page.getByLabel(/Import files/).setInputFiles([
    { name: 'bundle.yaml', mimeType: 'application/yaml', buffer: Buffer.from(bundleDoc!) },
    { name: 'service.yml', mimeType: 'application/yaml', buffer: Buffer.from(serviceDoc!) },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not policy') },
  ]);
  await expect(page.getByTestId('save-status')).toContainText('Imported bundle.yaml, service.yml');
  await expect(page.getByTestId('save-status')).toContainText('Not taken (only .yaml and .yml files, and blueprint folders): notes.txt');
  await expect(editor.locator('.view-lines')).toContainText(`name: ${name}`);
  await expect(page.getByTestId('problem-count')).toHaveText('0');
  await page.getByRole('button', { name: /^Create/ }).click();
  await expect(page.getByTestId('save-status')).toContainText(/Saved as generation \d+\./);
  await expect(page.getByTestId('created-objects')).toContainText(`bundle platform/${name}`);
  await expect(page.getByTestId('created-objects')).toContainText(`service platform/${name}`);
});

/** A Landscaper blueprint from the corpus: blueprint.yaml and the two execution templates it names. */
const CORPUS_BLUEPRINT = 'corpus/landscaper/test/integration/testdata/import-export/v0.1.0/blueprint';

test('Import folder takes a Landscaper blueprint folder as one Blueprint (its templates its files) beside the folder\'s objects; Import files opens a zip the same way', async ({ page }) => {
  // Frank, a namespace admin of platform: his revisions wait for acceptance, so the demo's applied revision stays the newest applied one.
  await signIn(page, 'frank');
  await page.goto('/objects/new?kind=blueprint');
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).toContainText('kind: Blueprint', { timeout: EDITOR_LOAD });
  await page.locator('#namespace-select').selectOption('platform');

  // landscape/app-<suffix>/{blueprint.yaml, deploy-execution.yaml, export-execution.yaml} and landscape/config.yaml.
  const top = join(mkdtempSync(join(tmpdir(), 'keelson-import-')), `landscape-${suffix}`);
  cpSync(CORPUS_BLUEPRINT, join(top, `app-${suffix}`), { recursive: true });
  writeFileSync(join(top, 'config.yaml'), `apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: DataObject\nmetadata: {name: cfg-${suffix}, namespace: platform}\ndata: imported\n`);
  mkdirSync(join(top, 'docs'));
  writeFileSync(join(top, 'docs', 'README.md'), '# not policy');
  await page.getByLabel(/Import folder/).setInputFiles(top);
  const status = page.getByTestId('save-status');
  await expect(status).toContainText(`Imported landscape-${suffix}/config.yaml, landscape-${suffix}/app-${suffix}/ (blueprint app-${suffix}, 2 files)`);
  await expect(status).toContainText(`Not taken (only .yaml and .yml files, and blueprint folders): landscape-${suffix}/docs/README.md`);
  // The blueprint's files, below what is drawn on screen: read from the editor's model.
  expect(await editorText(page)).toContain('deploy-execution.yaml:');
  await expect(page.getByTestId('problem-count')).toHaveText('0');
  await page.getByRole('button', { name: /^Create/ }).click();
  await expect(status).toContainText(/Saved as generation \d+\./);
  await expect(page.getByTestId('created-objects')).toContainText(`blueprint platform/app-${suffix}`);
  await expect(page.getByTestId('created-objects')).toContainText(`dataobject platform/cfg-${suffix}`);

  // The same blueprint's files zipped at the top: the blueprint is named after the zip.
  await page.goto('/objects/new?kind=blueprint');
  await expect(editor.locator('.view-lines')).toContainText('kind: Blueprint', { timeout: EDITOR_LOAD });
  await page.locator('#namespace-select').selectOption('platform');
  const zip = zipSync(Object.fromEntries(readdirSync(CORPUS_BLUEPRINT).map((f) => [f, strToU8(readFileSync(join(CORPUS_BLUEPRINT, f), 'utf8'))])));
  await page.getByLabel(/Import files/).setInputFiles({ name: `zipped-${suffix}.zip`, mimeType: 'application/zip', buffer: Buffer.from(zip) });
  await expect(status).toContainText(`Imported zipped-${suffix}/ (blueprint zipped-${suffix}, 2 files)`);
  await expect(page.getByTestId('problem-count')).toHaveText('0');
  await page.getByRole('button', { name: /^Create/ }).click();
  // One object: Create opens it, with its saved banner.
  await expect(page).toHaveURL(new RegExp(`/objects/blueprint/platform/zipped-${suffix}\\?saved=\\d+$`));
  await expect(page.getByTestId('save-status')).toContainText(/Saved as generation \d+/);
});
