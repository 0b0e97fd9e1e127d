import { expect, test, type Page } from '@playwright/test';
import { signIn } from './fixtures';

/*
 * Earlier specs (editor, cli…) change the policy, so counts are checked at
 * generation 1 (time travel): Aptomi's twitter-analytics demo, 29 instances,
 * Carol's claim rejected. The revision overlay reads whatever is newest.
 */

const nodes = (page: Page, selector = '') => page.locator(`.react-flow__node${selector}`);

/** Distance from a node's centre to the canvas's centre, in screen pixels. */
async function offCentre(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const n = document.querySelector(sel)!.getBoundingClientRect();
    const c = document.querySelector('.react-flow')!.getBoundingClientRect();
    return Math.hypot(n.x + n.width / 2 - (c.x + c.width / 2), n.y + n.height / 2 - (c.y + c.height / 2));
  }, selector);
}

test('desired state of generation 1: its 29 instances, a namespace filter, search that centres, keyboard moves and the panel', async ({ page }) => {
  await signIn(page, 'sam');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Graphs' }).click();
  await expect(page.getByRole('heading', { name: 'Graphs' })).toBeVisible();
  await page.goto('/graphs?view=desired&generation=1');
  await expect(page.locator('.graph-canvas')).toHaveAttribute('data-layout', /^(quick|elk)$/);
  await expect(nodes(page, '[data-kind=instance]')).toHaveCount(29);
  await expect(page.getByTestId('graph-summary')).toContainText('29 instances · generation 1');
  // Shared instances say how many claims use them.
  await expect(nodes(page, '[data-id="instance:system#k8s-example#east#platform#zookeeper#platform#zookeeper"]')).toContainText('3 claims');

  await page.getByLabel('Namespace', { exact: true }).selectOption('platform');
  await expect(nodes(page, '[data-namespace=social]')).toHaveCount(0);
  await expect(nodes(page, '[data-kind=instance]')).toHaveCount(14);
  await page.getByLabel('Namespace', { exact: true }).selectOption('');
  await expect(nodes(page, '[data-kind=instance]')).toHaveCount(29);

  // Search selects the best match and centres it; Enter again goes to the next one.
  const search = page.getByRole('searchbox', { name: 'Search nodes' });
  await search.fill('zookeeper');
  await search.press('Enter');
  await expect(nodes(page, '.selected')).toHaveCount(1);
  await expect(nodes(page, '.selected')).toContainText('zookeeper');
  await expect(page.getByTestId('graph-search-status')).toHaveText(/^1 of [2-9]$/);
  await expect.poll(() => offCentre(page, '.react-flow__node.selected')).toBeLessThan(30);
  const first = await nodes(page, '.selected').getAttribute('data-id');
  await search.press('Enter');
  await expect(page.getByTestId('graph-search-status')).toHaveText(/^2 of /);
  await expect(nodes(page, '.selected')).not.toHaveAttribute('data-id', first!);
  await expect.poll(() => offCentre(page, '.react-flow__node.selected')).toBeLessThan(30);

  // Keyboard: focus a bundle root, arrow to one of its components, Enter opens it, Escape closes it.
  const root = 'instance:system#k8s-example#east#social#twitter_stats#realtime#root';
  await nodes(page, `[data-id="${root}"]`).focus();
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-id'))).toMatch(/#realtime#(tweeviz|tweepub|tweetics|analytics_pipeline)$/);
  const focused = (await page.evaluate(() => document.activeElement?.getAttribute('data-id')))!;
  await expect(nodes(page, '.selected')).toHaveAttribute('data-id', focused);
  await page.keyboard.press('Enter');
  const panel = page.getByTestId('graph-panel');
  // Named as the plan and the apply events name it: namespace · service · context · component.
  await expect(panel.getByRole('heading', { level: 2 })).toHaveText(`social · twitter_stats · realtime · ${focused.split('#').pop()!}`);
  await expect(panel).toContainText('Used by 1 claim');
  await expect(panel.getByRole('button', { name: 'social/prod' })).toBeVisible();
  // Its rendered parameters, in a read-only editor.
  await expect(panel.getByTestId('yaml-editor').locator('.view-lines')).toContainText('type: helm');
  // Its apply history (whether earlier specs deployed it depends on the run's order).
  const key = focused.slice('instance:'.length);
  const name = `social · twitter_stats · realtime · ${key.split('#').pop()!}`;
  await expect(panel.getByRole('region', { name: 'Apply events' })).toContainText(new RegExp(`Created ${name}|No apply step has touched this instance yet`));
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-id'))).toBe(focused);
});

test("policy graph of generation 1: Carol's claim is marked rejected and its trace names the rule", async ({ page }) => {
  await signIn(page, 'sam');
  await page.goto('/graphs?view=policy&generation=1');
  const carol = nodes(page, '[data-id="claim:social/carol_dev"]');
  await expect(carol).toHaveAttribute('data-status', 'rejected');
  await expect(carol).toContainText('rejected');
  await expect(nodes(page, '[data-kind=claim][data-status=rejected]')).toHaveCount(1);
  await expect(nodes(page, '[data-kind=user]')).toHaveCount(4);

  await carol.click();
  const panel = page.getByTestId('graph-panel');
  await expect(panel.getByTestId('panel-claim-error')).toContainText("rule 'system/no_access_for_mobile_dev_users'");
  await expect(panel.getByTestId('panel-trace')).toContainText('rule system/no_access_for_mobile_dev_users (weight 1000) matched');
  // Selecting a claim highlights what it uses; the other users are dimmed.
  await expect(nodes(page, '[data-id="user:carol"]')).toHaveClass(/is-hl/);
  await expect(nodes(page, '[data-id="user:alice"]')).toHaveClass(/is-dim/);

  // An object's YAML, read-only, with the way to the editor.
  await page.getByRole('searchbox', { name: 'Search nodes' }).fill('analytics_pipeline');
  await page.getByRole('searchbox', { name: 'Search nodes' }).press('Enter');
  await expect.poll(() => offCentre(page, '.react-flow__node.selected')).toBeLessThan(30);
  await nodes(page, '.selected').click();
  await expect(panel.getByTestId('yaml-editor').locator('.view-lines')).toContainText('analytics_pipeline');
  await expect(panel.getByRole('link', { name: 'Open in editor' })).toHaveAttribute('href', /^\/objects\/(service|bundle)\/platform\/analytics_pipeline$/);

  // Time travel: generation 2 compared with 1 adds the guestbook.
  await page.goto('/graphs?view=policy&generation=2&compare=1');
  await expect(nodes(page, '[data-overlay=added]').filter({ hasText: 'guestbook' }).first()).toBeVisible();
  await expect(nodes(page, '[data-id="claim:social/carol_dev"]')).toHaveAttribute('data-overlay', 'unchanged');
});

test('a revision shows its impact: the newest one what it changes, the first one (from nothing) everything added', async ({ page }) => {
  await signIn(page, 'sam');
  await page.goto('/revisions');
  await page.getByTestId('revisions-table').getByRole('row').nth(1).getByRole('link').first().click();
  await expect(page).toHaveURL(/\/revisions\/\d+$/);
  const counts = (await page.getByTestId('revision-counts').textContent()) ?? '';
  await page.getByRole('link', { name: 'Impact graph' }).click();
  await expect(page).toHaveURL(/\/graphs\?view=desired&revision=\d+/);
  await expect(page.locator('.graph-canvas')).toHaveAttribute('data-layout', /^(quick|elk)$/);
  // Each kind of change the plan counts shows as its overlay.
  for (const [action, overlay] of [['create', 'added'], ['update', 'updated'], ['delete', 'removed']] as const) {
    if (new RegExp(`\\d+ ${action}\\b`).test(counts)) await expect(nodes(page, `[data-overlay=${overlay}]`).first()).toContainText(overlay);
  }
  await page.getByLabel('Only changes', { exact: true }).check();
  await expect(nodes(page, '[data-overlay=unchanged]')).toHaveCount(0);

  // Revision 1 was computed at boot, before anything was accepted: against nothing, everything is added.
  await page.goto('/graphs?view=desired&revision=1');
  await expect(page.getByText('against an empty deployment')).toBeVisible();
  const added = nodes(page, '[data-overlay=added]');
  await expect(added.first()).toBeVisible();
  expect(await added.count()).toBeGreaterThan(20);
  expect(await added.count()).toBe(await nodes(page, '[data-kind=instance]').count());
  await expect(page.locator('.graph-page')).toHaveClass(/graph-show-overlay/);
  const search = page.getByRole('searchbox', { name: 'Search nodes' });
  await search.fill('tweeviz');
  await search.press('Enter');
  await expect.poll(() => offCentre(page, '.react-flow__node.selected')).toBeLessThan(30);
  await nodes(page, '.selected').click();
  await expect(page.getByTestId('panel-overlay')).toHaveText('Added by revision #1');
});
