/**
 * Deployment Manager's guestbook example, as a user would bring it: its
 * configuration typed into the editor as a deployment. Its types are
 * registry names; the server fetches them (from the loopback registry,
 * e2e/dm-registry.mjs, the only host it is allowed) at save — redis, and
 * replicatedservice, a Python template, found by expanding redis — and the
 * resolver runs the Python in its sandbox. The layout tree shows the three
 * levels; the revision is accepted and applied; the ReplicationControllers
 * are in the GitOps repository.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { readTrackedFiles } from '../server/apply/gitops/actuator';
import { setEditorText, signIn } from './fixtures';

const GITOPS = join(process.env.E2E_DATA_DIR!, 'gitops');
const GUESTBOOK = readFileSync(join(process.cwd(), 'corpus/dm/deployment-manager/examples/guestbook/guestbook.yaml'), 'utf8');

test('the guestbook example: registry templates fetched, Python expanded, layout tree, revision accepted, manifests in GitOps', async ({ page }) => {
  // Pyodide starts in the resolver's sandbox the first time: seconds, more on a loaded runner.
  test.setTimeout(300_000);
  await signIn(page, 'sam');
  await page.goto('/objects/new?kind=deployment');
  const text = [
    'kind: deployment',
    'metadata:',
    '  namespace: shop',
    '  name: guestbook',
    'target: k8s-example',
    "# The shipped replicatedservice schema calls env an object; redis passes a list. DM ran without validation.",
    'validateSchema: false',
    'configuration:',
    ...GUESTBOOK.trimEnd().split('\n').map((l) => `  ${l}`),
  ].join('\n');
  await setEditorText(page, text);
  await page.getByRole('button', { name: /^Create/ }).click();
  await expect(page).toHaveURL(/\/objects\/deployment\/shop\/guestbook/, { timeout: 120_000 });

  // The layout: guestbook's two registry templates, redis's two replicated services, their primitives.
  await page.goto('/claims/shop/guestbook');
  const layout = page.getByTestId('dm-layout');
  await expect(layout.getByTestId('layout-frontend')).toContainText('replicatedservice:v1', { timeout: 120_000 });
  await expect(layout.getByTestId('layout-frontend-rc')).toContainText('ReplicationController');
  await expect(layout.getByTestId('layout-redis')).toContainText('redis:v1');
  await expect(layout.getByTestId('layout-redis-slave-rc')).toContainText('ReplicationController');
  await expect(layout.getByTestId('layout-redis-master-rc')).toContainText('ReplicationController');

  // Its revision: accepted, applied.
  await page.goto('/revisions');
  await page.getByTestId('revisions-table').getByRole('row').nth(1).getByRole('link').first().click();
  await expect(page).toHaveURL(/\/revisions\/\d+$/);
  await expect(page.getByTestId('revision-status')).toHaveText(/pending|applied/, { timeout: 60_000 });
  if ((await page.getByTestId('revision-status').textContent()) === 'pending') {
    for (const name of await page.getByRole('button', { name: /^Accept / }).allTextContents()) {
      await page.getByRole('button', { name }).click();
      await expect(page.getByTestId('decision-status')).toContainText(/Accepted section|queued for apply|All sections accepted/);
    }
  }
  await expect(page.getByTestId('revision-status')).toHaveText('applied', { timeout: 120_000 });

  const files = Object.values(await readTrackedFiles(GITOPS));
  const rc = (name: string) => files.find((c) => c.includes('kind: ReplicationController') && c.includes(`name: ${name}\n`));
  expect(rc('frontend-rc'), 'frontend-rc is in the repository').toBeTruthy();
  expect(rc('frontend-rc')).toContain('replicas: 3');
  expect(rc('frontend-rc')).toContain('image: gcr.io/google_containers/example-guestbook-php-redis:v3');
  expect(rc('redis-slave-rc')).toContain('replicas: 2');
  expect(rc('redis-master-rc')).toContain('image: redis');
  expect(files.some((c) => c.includes('kind: Service') && c.includes('name: frontend-service\n'))).toBe(true);
});
