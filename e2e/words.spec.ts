/**
 * Issue 37, item 7: words and places, on the demo console. The save banner
 * survives Create and says once what a generation and a revision are; Try it
 * sits beside the editor; DM deployments and Landscaper installations are
 * listed apart from claims and DM's page is "DM types"; the REST docs are a
 * link away, with a way back; an instance has one name in the plan, the apply
 * events and the graph; a revision says whose changes it carries.
 *
 * The objects it creates are bundles no service uses: their revisions change
 * nothing deployed (no-op), so the specs after it find the demo as it was.
 */
import { expect, test, type Page } from '@playwright/test';
import { demoRevisionId, setEditorText, signIn } from './fixtures';

test.use({ viewport: { width: 1440, height: 900 } });
// Two sign-ins, the editor's first load and a save each: more than the default minute on a busy machine.
test.describe.configure({ timeout: 180_000 });

// Unique per run: the e2e data folder is shared by every spec.
const suffix = Date.now().toString(36);
// Monaco's first load is the heaviest chunk the console serves; on a busy machine it outlasts the default wait.
const EDITOR_LOAD = 60_000;

const unusedBundle = (name: string) => `kind: bundle
metadata:
  namespace: social
  name: ${name}
components:
  - name: app
    code:
      type: helm
      params: {chartName: ${name}}
`;

/** Create one bundle in the new-object editor; answers the generation the banner names. */
async function createBundle(page: Page, name: string): Promise<number> {
  await page.goto('/objects/new?kind=bundle');
  await expect(page.getByTestId('yaml-editor').locator('.view-lines')).toContainText('kind: bundle', { timeout: EDITOR_LOAD });
  await setEditorText(page, unusedBundle(name));
  await expect(page.getByTestId('problem-count')).toHaveText('0');
  await page.getByRole('button', { name: /^Create/ }).click();
  // The page moves to the created object, and the banner comes along.
  await expect(page).toHaveURL(new RegExp(`/objects/bundle/social/${name}\\?saved=\\d+$`));
  const status = page.getByTestId('save-status');
  await expect(status).toContainText(/Saved as generation \d+\./);
  return Number(/Saved as generation (\d+)/.exec((await status.textContent())!)![1]);
}

test('the save banner survives Create, explains generation and revision once, and is dismissed', async ({ page }) => {
  await signIn(page, 'john');
  const generation = await createBundle(page, `words-john-${suffix}`);
  const status = page.getByTestId('save-status');
  await expect(page.getByRole('heading', { level: 1 })).toContainText(`social/words-john-${suffix}`);
  await expect(status.getByTestId('revision-link')).toHaveText(/^Revision #\d+ \(/, { timeout: 60_000 });
  // Where a newcomer first meets both words, they are explained (in the banner, not a modal).
  await expect(status.getByTestId('generations-explained')).toContainText('generation is one saved version of the whole policy');
  await expect(status.getByTestId('generations-explained')).toContainText('revision');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // A reload keeps it (the flag is in the address); Dismiss removes it and the flag.
  await page.reload();
  await expect(page.getByTestId('save-status')).toContainText(`Saved as generation ${generation}.`);
  await page.getByTestId('dismiss-status').click();
  await expect(page.getByTestId('save-status')).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/objects/bundle/social/words-john-${suffix}$`));
});

test("a revision says whose changes it carries: Sam's revision holds John's unaccepted change too", async ({ page }) => {
  // John's change (the test above) has a no-op revision, never accepted: Sam's next revision carries it.
  await signIn(page, 'sam');
  const generation = await createBundle(page, `words-sam-${suffix}`);
  const link = page.getByTestId('save-status').getByTestId('revision-link');
  await expect(link).toBeVisible({ timeout: 60_000 });
  await link.click();
  await expect(page).toHaveURL(/\/revisions\/\d+$/);
  const id = Number(/\/revisions\/(\d+)$/.exec(page.url())![1]);
  const carries = page.getByTestId('revision-carries');
  await expect(carries).toContainText(new RegExp(`Sam \\(generation ${generation}\\)`, 'i'));
  await expect(carries).toContainText(new RegExp(`John \\(generations? [\\d, ]*${generation - 1}\\b`, 'i'));
  // The list says the same on the revision's row.
  await page.goto('/revisions');
  const row = page.getByTestId('revisions-table').getByRole('row').filter({ has: page.getByRole('link', { name: `#${id}`, exact: true }) });
  await expect(row.getByTestId('revision-carries')).toContainText(/John \(generation/i);
  await expect(row.getByTestId('revision-carries')).toContainText(/Sam \(generation/i);
});

test("Try it sits beside a Capact policy's editor, not below it", async ({ page }) => {
  await signIn(page, 'sam');
  await page.goto('/objects/policy/system/global');
  const editor = page.getByTestId('yaml-editor');
  // Monaco's first load on a busy machine: up to twice the usual wait.
  await expect(editor.locator('.view-lines')).not.toBeEmpty({ timeout: 2 * EDITOR_LOAD });
  const tryIt = page.getByTestId('editor-side').getByTestId('capact-try-it');
  await expect(tryIt).toBeVisible();
  const e = (await editor.boundingBox())!;
  const t = (await tryIt.boundingBox())!;
  // Side by side: Try it starts right of the editor and level with its top, in the first screen.
  expect(t.x).toBeGreaterThanOrEqual(e.x + e.width - 1);
  expect(Math.abs(t.y - e.y)).toBeLessThan(40);
  expect(t.y).toBeLessThan(900);
});

test('claims, DM deployments and Landscaper installations are listed apart; DM types is named so', async ({ page }) => {
  await signIn(page, 'sam');
  await page.goto('/claims');
  await expect(page.getByRole('heading', { name: /^Claims/, level: 2 })).toBeVisible();
  await expect(page.getByTestId('claims-table')).toContainText('social/prod');
  // The demo's DM deployment is not among the claims, but under its own heading.
  await expect(page.getByTestId('claims-table')).not.toContainText('web/hello');
  await expect(page.getByRole('heading', { name: /^DM deployments/, level: 2 })).toBeVisible();
  await expect(page.getByTestId('deployments-table')).toContainText('web/hello');
  await expect(page.getByRole('heading', { name: /^Landscaper installations/, level: 2 })).toBeVisible();
  await expect(page.getByTestId('installations-table')).toContainText('database');

  // DM's types page: "DM types" in the navigation, the heading and the title (Capact has a Type of its own).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'DM types', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'DM types', level: 1 })).toBeVisible();
  await expect(page).toHaveTitle(/DM types/);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Types', exact: true })).toHaveCount(0);
});

test('the REST API docs are linked from the console, with a way back', async ({ page }) => {
  await signIn(page, 'alice');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'REST API docs' }).click();
  await expect(page).toHaveURL(/\/api\/1\.0-beta\/docs$/);
  await expect(page.getByRole('heading', { name: 'Keelson API', level: 1 })).toBeVisible();
  // Swagger UI, for trying requests, has the same ways back: to the reference and to the console.
  await page.getByRole('link', { name: 'Try requests in Swagger UI' }).click();
  await expect(page.locator('#swagger-ui')).toContainText('Keelson', { timeout: 60_000 });
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(/\/api\/1\.0-beta\/docs$/);
  await page.getByRole('link', { name: /Back to the Keelson console/ }).click();
  await expect(page).toHaveURL(/\/objects$/);
  await expect(page.getByTestId('current-user')).toBeVisible();
});

test('an instance has one name in the revision plan, the apply events and the graph', async ({ page }) => {
  await signIn(page, 'sam');
  const key = 'system#k8s-example#east#platform#zookeeper#platform#zookeeper';
  const name = 'platform · zookeeper · platform · zookeeper';
  // The demo's first revision created it.
  await page.goto(`/revisions/${await demoRevisionId(page)}`);
  await expect(page.getByTestId('revision-status')).toHaveText('applied', { timeout: 60_000 });
  await page.getByRole('searchbox', { name: 'Filter by instance key or claim' }).fill('zookeeper');
  await expect(page.getByTestId('plan-pages').getByRole('button', { name, exact: true }).first()).toBeVisible();
  await expect(page.getByTestId('apply-events')).toContainText(`Created ${name}`);
  await expect(page.getByTestId('apply-events')).not.toContainText(key);
  // The graph's node for it.
  await page.goto('/graphs?view=desired&generation=1');
  const node = page.locator(`.react-flow__node[data-id="instance:${key}"]`);
  await expect(node).toContainText(name, { timeout: 60_000 });
});
