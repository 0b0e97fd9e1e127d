import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { commitLog, readTrackedFiles } from '../server/apply/gitops/actuator';
import { validateFluxObject } from '../server/apply/gitops/flux-schema';
import { parseAllDocuments } from 'yaml';
import { editEditorText, signIn } from './fixtures';

const GITOPS = join(process.env.E2E_DATA_DIR!, 'gitops');

/** Accept every pending section of the newest revision (as Sam, a domain admin) and wait until the deployment is current. */
async function acceptNewest(page: Page) {
  await page.goto('/revisions');
  const first = page.getByTestId('revisions-table').getByRole('row').nth(1);
  await first.getByRole('link').first().click();
  await expect(page).toHaveURL(/\/revisions\/\d+$/);
  await expect(page.getByTestId('revision-status')).toBeVisible();
  if ((await page.getByTestId('revision-status').textContent()) === 'pending') {
    const accept = page.getByRole('button', { name: /^Accept / });
    await expect(accept.first()).toBeEnabled();
    for (const name of await accept.allTextContents()) {
      await page.getByRole('button', { name }).click();
      // An apply that finishes before this look turns the message into "All sections accepted: the revision is applied."
      await expect(page.getByTestId('decision-status')).toContainText(/Accepted section|queued for apply|All sections accepted/);
    }
  }
  // A no-op revision (policy already deployed) is as good as applied; a
  // rejected or failed newest revision means the deployment lags the policy
  // and the diffs below would not be ours alone.
  await expect(page.getByTestId('revision-status')).toHaveText(/^(applied|no-op)$/, { timeout: 60_000 });
  // Once applied, no banner still says it is waiting.
  if ((await page.getByTestId('decision-status').count()) > 0) await expect(page.getByTestId('decision-status')).not.toContainText('queued for apply');
}

/** Set the prod claim's image tag label to `to`, whatever it is now. */
async function editProdClaim(page: Page, to: string) {
  await page.goto('/objects/claim/social/prod');
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).toContainText('tsvisimage: demo');
  await editEditorText(page, (t) => t.replace(/tsvisimage: \S+/, `tsvisimage: ${to}`));
  await expect(editor.locator('.view-lines')).toContainText(`tsvisimage: ${to}`);
}

test.describe.configure({ mode: 'serial' });

test('change a claim in the editor: preview, save, pending revision with diff and cost, accept, applied, committed to GitOps', async ({ page }) => {
  await signIn(page, 'sam');
  // Start from a deployed demo.
  await acceptNewest(page);
  const before = (await commitLog(GITOPS)).length;

  await editProdClaim(page, 'demo21');
  await expect(page.getByTestId('preview-summary')).toHaveText(/a revision with 2 update; cost \+?€0\.00 per month/);
  await expect(page.getByTestId('preview-claims')).toContainText('social/prod');
  await page.keyboard.press('ControlOrMeta+s');
  await expect(page.getByTestId('save-status')).toContainText('Saved as generation');
  await page.getByTestId('revision-link').click();
  await expect(page.getByTestId('revision-status')).toHaveText('pending');
  await expect(page.getByTestId('revision-counts')).toHaveText('2 update');
  await expect(page.getByTestId('cost-delta')).toHaveText('€0.00');
  await expect(page.getByTestId('cost-table')).toContainText('k8s-example / east');
  // The parameter diff of the changed instance.
  await page.getByRole('button', { name: /twitter_stats · realtime · tweeviz/ }).first().click();
  await expect(page.getByTestId('diff-editor')).toContainText('v1.2.0-demo21');

  await page.getByRole('button', { name: 'Accept social' }).click();
  await expect(page.getByTestId('decision-status')).toContainText(/queued for apply|All sections accepted: the revision is applied/);
  await expect(page.getByTestId('revision-status')).toHaveText('applied', { timeout: 60_000 });
  await expect(page.getByTestId('apply-events')).toContainText('Applied');

  const log = await commitLog(GITOPS);
  expect(log.length).toBe(before + 1);
  const id = page.url().split('/').pop();
  expect(log[0]!.message).toContain(`Apply revision ${id} `);
  expect(log[0]!.message).toContain('Accepted by: Sam');
  const files = await readTrackedFiles(GITOPS);
  const release = Object.entries(files).find(([p, c]) => p.includes('/east/') && c.includes('tag: v1.2.0-demo21'));
  expect(release, 'the HelmRelease carries the new image tag').toBeTruthy();
  for (const doc of parseAllDocuments(release![1])) {
    const obj = doc.toJS() as { kind: string };
    expect(validateFluxObject(obj), `${obj.kind} is a valid Flux object`).toEqual([]);
  }
  expect(release![1]).toMatch(/kind: HelmRelease/);
  expect(release![1]).toMatch(/chart: tweeviz/);
});

test('a service consumer sees why Accept is disabled; a rejection rejects the revision', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, 'john');
  await editProdClaim(page, 'demo22');
  await page.keyboard.press('ControlOrMeta+s');
  await page.getByTestId('revision-link').click();
  await expect(page).toHaveURL(/\/revisions\/\d+$/);
  const url = page.url();

  const alice = await (await browser.newContext()).newPage();
  await signIn(alice, 'alice');
  await alice.goto(url);
  await expect(alice.getByRole('button', { name: 'Accept social' })).toBeDisabled();
  await expect(alice.getByTestId('why-disabled-social')).toContainText('needs the namespace-admin role in social or domain-admin; you are service-consumer there');

  // Reject asks for confirmation and a reason (prefilled from the comment box); nothing happens on Cancel.
  await page.getByRole('textbox', { name: 'Comment on section social' }).fill('wrong tag');
  const started = Date.now();
  await page.getByRole('button', { name: 'Reject' }).click();
  const dialog = page.getByRole('dialog', { name: /Reject section social of revision/ });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel(/Reason/)).toHaveValue('wrong tag');
  await dialog.getByLabel(/Reason/).fill('');
  await expect(dialog.getByRole('button', { name: 'Reject revision' })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('revision-status')).toHaveText('pending');
  await page.getByRole('button', { name: 'Reject' }).click();
  await dialog.getByLabel(/Reason/).fill('wrong tag');
  await dialog.getByRole('button', { name: 'Reject revision' }).click();
  await expect(page.getByTestId('revision-status')).toHaveText('rejected');
  await expect(page.getByTestId('section-social')).toContainText('rejected by John');
  await expect(page.getByTestId('section-social')).toContainText('wrong tag');

  // The page says the rejected change is still the policy, and offers to revert it.
  await expect(page.getByTestId('rejected-banner')).toContainText('Its change is still the current policy');
  await expect(page.getByTestId('revert-button')).toBeVisible();
  const ms = Date.now() - started;
  test.info().annotations.push({ type: 'reject-to-revert-offer-ms', description: String(ms) });
  console.log(`figure e2e.reject_to_revert_offer_ms ${ms}`);
  await page.getByTestId('revert-button').click();
  await expect(page).not.toHaveURL(url);
  await expect(page.getByTestId('revision-status')).toHaveText(/pending|no-op/);
});

test('accepting a revision that a newer change superseded is refused with a clear message', async ({ browser }) => {
  const a = await (await browser.newContext()).newPage();
  await signIn(a, 'sam');
  await editProdClaim(a, 'demo23');
  await a.keyboard.press('ControlOrMeta+s');
  await a.getByTestId('revision-link').click();
  await expect(a).toHaveURL(/\/revisions\/\d+$/);
  await expect(a.getByTestId('revision-status')).toHaveText('pending');

  const b = await (await browser.newContext()).newPage();
  await signIn(b, 'frank');
  await editProdClaim(b, 'demo24');
  await b.keyboard.press('ControlOrMeta+s');
  await expect(b.getByTestId('revision-link')).toBeVisible();

  await a.getByRole('button', { name: 'Accept social' }).click();
  await expect(a.getByTestId('decision-status')).toHaveText(/Cannot accept this revision: a newer policy change superseded it/);
  await expect(a.getByTestId('revision-status')).toHaveText('superseded');
});

test('rollback round trip: roll back to an applied revision, accept the new revision, the old tag is deployed again', async ({ page }) => {
  await signIn(page, 'sam');
  // Deploy the newest change (demo24), then roll back to the demo21 revision.
  await acceptNewest(page);
  await page.goto('/revisions');
  const row = page.getByTestId('revisions-table').getByRole('row').filter({ has: page.getByTestId('revision-status').getByText('applied', { exact: true }) }).nth(1);
  await row.getByRole('link').first().click();
  await expect(page).toHaveURL(/\/revisions\/\d+$/);
  await page.getByRole('button', { name: 'Roll back to this' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Roll back' }).click();
  await expect(page.getByTestId('revision-status')).toHaveText('pending');
  await expect(page.getByText(/rolls back to #\d+/)).toBeVisible();
  await page.getByRole('button', { name: 'Accept social' }).click();
  await expect(page.getByTestId('revision-status')).toHaveText('applied', { timeout: 60_000 });
  const files = await readTrackedFiles(GITOPS);
  expect(Object.values(files).some((c) => c.includes('tag: v1.2.0-demo21'))).toBe(true);
  expect(Object.values(files).some((c) => c.includes('tag: v1.2.0-demo24'))).toBe(false);
});
