import { expect, type Page } from '@playwright/test';

/** Sign in through the local form, as a person would. */
export async function signIn(page: Page, user = 'alice', password = user) {
  await page.goto('/signin');
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('current-user')).toBeVisible();
}

type ModelHost = HTMLElement & { keelsonModel?: { getValue(): string; setValue(v: string): void } };

/** The editor's text, read from its model (rendered lines are virtualised and may be partial). */
export async function editorText(page: Page): Promise<string> {
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).not.toBeEmpty();
  return editor.evaluate((el) => (el as ModelHost).keelsonModel!.getValue());
}

/**
 * Replace the editor's text through its model — the path typing takes
 * (the page sees a content change), without depending on where rendered
 * words happen to be or on keystroke timing — and wait until the page holds it.
 */
export async function setEditorText(page: Page, text: string): Promise<void> {
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).not.toBeEmpty();
  await editor.evaluate((el, t) => (el as ModelHost).keelsonModel!.setValue(t), text);
  await expect.poll(() => editor.evaluate((el) => (el as ModelHost).keelsonModel!.getValue())).toBe(text);
}

/** Edit the editor's text with a function of the current text. */
export async function editEditorText(page: Page, edit: (text: string) => string): Promise<string> {
  const next = edit(await editorText(page));
  await setEditorText(page, next);
  return next;
}

/**
 * The demo's deployed revision: the first one accepted. The seed accepts the
 * revision of its newest generation before the console serves; it is #1
 * when the demo tenant's two services were committed together (group commit,
 * server/services/group-commit.ts), #2 when a busy machine committed them
 * one after the other (then #1, of the first alone, was superseded).
 * Accepted revisions stay accepted, applying or applied, and later ones have
 * higher numbers, so this holds whatever other specs did before. `origin`:
 * a console other than the configured one.
 */
export async function demoRevisionId(page: Page, origin = ''): Promise<number> {
  for (let id = 1; id <= 20; id++) {
    const res = await page.request.get(`${origin}/api/trpc/revisions.get?input=${encodeURIComponent(JSON.stringify({ json: { id } }))}`);
    if (!res.ok()) continue;
    const status = ((await res.json()) as { result: { data: { json: { revision: { status: string } } } } }).result.data.json.revision.status;
    if (['accepted', 'applying', 'applied'].includes(status)) return id;
  }
  throw new Error('the demo has no accepted revision among its first 20');
}
