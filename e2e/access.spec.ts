import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { editEditorText, editorText, signIn } from './fixtures';

test.describe.configure({ mode: 'serial' });

test('a service consumer sees a bundle read-only, with the reason, before typing anything — but can create a claim', async ({ page }) => {
  await signIn(page, 'alice');
  await page.goto('/objects/bundle/social/twitter_stats');
  const editor = page.getByTestId('yaml-editor');
  await expect(editor.locator('.view-lines')).toContainText('kind: bundle');
  await expect(page.getByTestId('read-only')).toContainText(
    'Read-only: You may not change bundle social/twitter_stats: managing bundles in namespace social needs the namespace-admin or domain-admin role there (you are service-consumer there)',
  );
  await expect(page.getByRole('button', { name: /^Save/ })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();
  // Typing does nothing: the editor itself is read-only.
  await editor.locator('.view-lines').click();
  await page.keyboard.type('zzz');
  expect(await editorText(page)).not.toContain('zzz');

  await page.goto('/objects/new?kind=claim');
  // The template is already placed where Alice may save a claim, in her name.
  await expect(editor.locator('.view-lines')).toContainText('namespace: platform');
  await expect(editor.locator('.view-lines')).toContainText('user: Alice');
  await editEditorText(page, (t) => t.replace('namespace: platform', 'namespace: social').replace('my-service', 'twitter_stats'));
  // The text is valid: wait until the editor's own check agrees before creating.
  await expect(page.getByTestId('problem-count')).toHaveText('0');
  // The demo starts deployed (revision #1 applied): the preview compares with that, not with nothing.
  await expect(page.getByTestId('preview-summary')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('preview-from-empty')).toHaveCount(0);
  await page.getByRole('button', { name: /^Create/ }).click();
  await expect(page).toHaveURL(/\/objects\/claim\/social\/my-claim(\?saved=\d+)?$/);
  await expect(page.getByRole('heading', { name: /social\/my-claim/ })).toBeVisible();
});

test('an invitation round trip: Alice creates a tenant, invites Bob as admin, Bob accepts', async ({ browser }) => {
  const alice = await (await browser.newContext()).newPage();
  await signIn(alice, 'alice');
  await alice.getByRole('link', { name: 'Tenants' }).click();
  await alice.getByLabel('Name', { exact: true }).fill('alice-team');
  await alice.getByLabel('Namespaces (comma-separated)').fill('alice-ns');
  await alice.getByRole('button', { name: 'Create tenant' }).click();
  await expect(alice.getByTestId('tenant-status')).toContainText('Tenant alice-team created; you are its owner.');
  await alice.getByTestId('tenants-table').getByRole('link', { name: 'alice-team' }).click();
  await alice.getByLabel('Invite user').fill('bob');
  await alice.getByLabel('Role', { exact: true }).selectOption('admin');
  await alice.getByRole('button', { name: 'Invite' }).click();
  await expect(alice.getByTestId('tenant-status')).toContainText('Invited bob as admin; they must accept.');
  await expect(alice.getByTestId('pending-invitations')).toContainText('bob as admin');

  const bob = await (await browser.newContext()).newPage();
  await signIn(bob, 'bob');
  await bob.getByRole('link', { name: 'Tenants' }).click();
  await expect(bob.getByTestId('invitations')).toContainText('Alice invites you to tenant alice-team as admin');
  await bob.getByRole('button', { name: 'Accept invitation to alice-team' }).click();
  await expect(bob.getByTestId('tenants-table').getByRole('row', { name: /alice-team\s+admin/ })).toBeVisible();

  await alice.reload();
  await expect(alice.getByTestId('members-table').getByRole('row', { name: /bob/ }).getByRole('combobox')).toHaveValue('admin');
  await expect(alice.getByTestId('pending-invitations')).toHaveCount(0);
});

test('placement rules: a program that cannot run is refused by name, and the draft survives a reload until saved', async ({ page }) => {
  await signIn(page, 'alice');
  await page.goto('/tenants/alice-team');
  const rules = page.getByTestId('rules-text');
  await expect(rules).toHaveValue('{}');
  await page.getByRole('button', { name: 'Start from an example' }).click();
  // One operator too many: the stack underflows, which the server finds when saving.
  const broken = JSON.stringify({ validateEnvironmentUser: [{ reason: 'owners', sel: ['$.user.role', '::eq'] }] }, null, 2);
  await rules.fill(broken);
  await page.getByRole('button', { name: 'Save rules' }).click();
  await expect(page.getByTestId('rules-status')).toContainText('rules.validateEnvironmentUser[0].sel');
  // Nothing typed is lost: a reload brings the draft back.
  await page.reload();
  await expect(page.getByTestId('rules-text')).toHaveValue(broken);
  const fixed = JSON.stringify({ validateEnvironmentUser: [{ reason: 'owners', sel: ['$.user.role', 'owner', '::eq'] }] }, null, 2);
  await page.getByTestId('rules-text').fill(fixed);
  await page.getByRole('button', { name: 'Save rules' }).click();
  await expect(page.getByTestId('rules-status')).toContainText('Rules saved');
  await page.reload();
  await expect(page.getByTestId('rules-text')).toHaveValue(fixed);
  await expect(page.getByRole('button', { name: 'Save rules' })).toBeDisabled();
});

function keelson(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KEELSON_USER: 'sam', KEELSON_PASSWORD: 'sam', KEELSON_SERVER: test.info().project.use.baseURL },
  });
}

test('a namespace admin accepts only their section of a two-namespace revision', async ({ page }) => {
  // Deploy what is pending, so the next revision is only this change.
  for (const r of JSON.parse(keelson(['revisions', 'list', '--format', 'json']).stdout) as { id: number; status: string }[]) {
    if (r.status !== 'pending') continue;
    expect(keelson(['revisions', 'accept', String(r.id)]).status).toBe(0);
    expect(keelson(['revisions', 'wait', String(r.id), '--until', 'applied', '--timeout', '60']).status).toBe(0);
  }
  // Sam saves one change touching social and Alice's tenant namespace.
  const dir = mkdtempSync(join(tmpdir(), 'keelson-access-'));
  const file = join(dir, 'two.yaml');
  writeFileSync(
    file,
    `- {kind: bundle, metadata: {namespace: alice-ns, name: notes}, components: [{name: web, code: {type: helm, params: {chartRepo: https://charts.example.com, chartName: notes}}}]}
- {kind: service, metadata: {namespace: alice-ns, name: notes}, contexts: [{name: only, allocation: {bundle: notes}}]}
- {kind: claim, metadata: {namespace: alice-ns, name: notes}, user: Alice, service: notes, labels: {target: k8s-example.west}}
- {kind: claim, metadata: {namespace: social, name: sam_guestbook}, user: Sam, service: guestbook, labels: {target: k8s-example.west}}
`,
  );
  const r = keelson(['apply', file, '--format', 'json']);
  rmSync(dir, { recursive: true, force: true });
  expect(r.status, r.stderr).toBe(0);
  const rev = JSON.parse(r.stdout).revision as { id: number; sections: { namespace: string }[] };
  expect(rev.sections.map((s) => s.namespace)).toEqual(['alice-ns', 'social']);

  await signIn(page, 'alice');
  await page.goto(`/revisions/${rev.id}`);
  await expect(page.getByRole('button', { name: 'Accept social' })).toBeDisabled();
  await expect(page.getByTestId('why-disabled-social')).toContainText('needs the namespace-admin role in social or domain-admin; you are service-consumer there');
  await page.getByRole('button', { name: 'Accept alice-ns' }).click();
  await expect(page.getByTestId('decision-status')).toHaveText('Accepted section alice-ns.');
  await expect(page.getByTestId('section-alice-ns')).toContainText('accepted by Alice');
  await expect(page.getByTestId('section-social')).toContainText('pending');
  await expect(page.getByTestId('revision-status')).toHaveText('pending');
});
