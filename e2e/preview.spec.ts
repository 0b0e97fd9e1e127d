/**
 * Issue 37, item 3: the preview shows what changes. On the seeded demo
 * (revision #1 applied), John edits his claim and, before saving, the
 * editor's preview lists the changed instance, its parameter change and who
 * must accept its section; a typed change that breaks the claim shows its
 * outcome before → after. server/services/revisions-preview.test.ts checks
 * the same answers (and their redaction) without a browser.
 *
 * Saves nothing: the specs after it find the demo as seeded.
 */
import { expect, test } from '@playwright/test';
import { editEditorText, editorText, signIn } from './fixtures';

test.setTimeout(180_000);

test('editing a claim shows the changed instance, its parameter change and its acceptors before saving', async ({ page }, testInfo) => {
  await signIn(page, 'john');
  await page.goto('/objects/claim/social/prod');
  const editor = page.getByTestId('yaml-editor');
  // The first editor of a freshly started console loads Monaco: wait for it as long as a cold server needs.
  await expect(editor.locator('.view-lines')).toContainText('tsvisimage:', { timeout: 60_000 });
  // The tag as it is now (specs before this one may have changed the demo's), and a new one.
  const current = /tsvisimage: (\S+)/.exec(await editorText(page))![1]!;
  const next = current === 'demo21' ? 'demo22' : 'demo21';
  await editEditorText(page, (t) => t.replace(`tsvisimage: ${current}`, `tsvisimage: ${next}`));

  const preview = page.getByTestId('preview');
  await expect(preview.getByTestId('preview-summary')).toHaveText(/a revision with .*\d+ update/, { timeout: 60_000 });
  // Compared with what is deployed (the demo starts deployed), so only the change is listed.
  await expect(preview.getByTestId('preview-from-empty')).toHaveCount(0);
  const changed = preview.getByTestId('preview-instances').getByTestId('preview-instance').filter({ hasText: 'tweeviz' });
  await expect(changed).toContainText('update');
  await expect(changed).toContainText('params changed');
  // Its parameter diff, as the revision page shows it: the old tag beside the new.
  await changed.getByRole('button', { name: /twitter_stats · realtime · tweeviz/ }).click();
  await expect(changed.getByTestId('diff-editor')).toContainText(`v1.2.0-${next}`);
  // Before: the deployed tag (the demo's accepted revision), which is not the saved text's when a spec left a change unaccepted.
  // (Monaco draws spaces as no-break spaces, which a regular expression's \s matches and a plain space does not.)
  await expect(changed.getByTestId('diff-editor')).toContainText(/tag:\s+v1\.2\.0-\S+[\s\S]*tag:\s+v1\.2\.0-/);
  await expect(preview.getByTestId('preview-acceptors-social')).toHaveText('a namespace admin of social, or a domain admin');
  await expect(preview.getByTestId('preview-section-social')).toContainText('you may accept it');
  await testInfo.attach('editor-with-preview-1440x900', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  // Typing on: a claim of a service that does not exist would fail — resolved before, error after.
  await editEditorText(page, (t) => t.replace('service: twitter_stats', 'service: no_such_service'));
  const outcomes = preview.getByTestId('preview-outcomes');
  await expect(outcomes).toContainText('social/prod', { timeout: 60_000 });
  await expect(outcomes).toContainText(/resolved\s*social · twitter_stats · .*→\s*error/);

  // All of it before saving: nothing was saved.
  await expect(page.getByTestId('save-status')).toHaveCount(0);
});
