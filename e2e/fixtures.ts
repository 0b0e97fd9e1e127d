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
