import { expect as baseExpect, test, type Page, type TestInfo } from '@playwright/test';
import { signIn } from './fixtures';

/*
 * Graphs readable at first sight, on the demo at 1440×900: every label on
 * screen is 12 px or more (font size × zoom), no namespace or cluster
 * title is cut, a namespace folds into one summary node and opens again
 * (mouse and keyboard), the side panel refits the view, a node links to
 * its object's YAML, and the scope graph has no empty band and no label
 * under a node. Screenshots of each graph are attached.
 */

test.use({ viewport: { width: 1440, height: 900 } });
// Laying out waits on a machine others share: the steps wait longer, nothing is timed.
test.describe.configure({ timeout: 180_000 });
const expect = baseExpect.configure({ timeout: 45_000 });

/** The smallest rendered label on screen (CSS px): font size × the canvas's zoom, over labels inside the canvas. */
async function smallestLabel(page: Page, canvas: string, labels: string) {
  return page.evaluate(
    ({ canvas, labels }) => {
      const root = document.querySelector(canvas)!;
      const viewport = root.querySelector<HTMLElement>('.react-flow__viewport')!;
      const zoom = new DOMMatrix(getComputedStyle(viewport).transform).a;
      const frame = root.getBoundingClientRect();
      let min = Infinity;
      let seen = 0;
      for (const el of root.querySelectorAll<HTMLElement>(labels)) {
        const r = el.getBoundingClientRect();
        // Only what is on screen and drawn (labels hidden at this level of detail have no box).
        if (r.width === 0 || r.right < frame.left || r.left > frame.right || r.bottom < frame.top || r.top > frame.bottom) continue;
        seen++;
        min = Math.min(min, parseFloat(getComputedStyle(el).fontSize) * zoom);
      }
      return { min, seen, zoom };
    },
    { canvas, labels },
  );
}

/** Titles whose text is wider than their box (cut). */
async function cutTitles(page: Page, selector: string) {
  return page.locator(selector).evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent));
}

async function attach(page: Page, info: TestInfo, name: string) {
  const path = info.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await info.attach(name, { path, contentType: 'image/png' });
}

const inside = (a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) =>
  a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.width <= b.x + b.width + 1 && a.y + a.height <= b.y + b.height + 1;

for (const view of ['policy', 'desired'] as const) {
  test(`the ${view} graph opens readable: labels of 12 px or more on screen, no title cut`, async ({ page }, info) => {
    await signIn(page, 'sam');
    await page.goto(`/graphs?view=${view}`);
    await expect(page.locator('.graph-canvas')).toHaveAttribute('data-layout', /^(quick|elk)$/);
    await expect(page.locator('.gscope-head').first()).toBeVisible();
    await expect
      .poll(async () => {
        const m = await smallestLabel(page, '.graph-canvas', '.gnode-label, .gscope-head strong');
        return m.seen > 0 ? m.min : 0;
      })
      .toBeGreaterThanOrEqual(12);
    expect(await cutTitles(page, '.gscope-head')).toEqual([]);
    await attach(page, info, `${view}-graph`);
  });
}

test('a namespace folds into one summary node and opens again, by click and by keyboard', async ({ page }) => {
  await signIn(page, 'sam');
  await page.goto('/graphs?view=desired');
  await expect(page.locator('.graph-canvas')).toHaveAttribute('data-layout', /^(quick|elk)$/);
  await expect(page.locator('.gscope-fold').first()).toBeVisible();
  // A namespace whose title is on screen.
  const foldLabel = await page.evaluate(() => {
    const frame = document.querySelector('.react-flow')!.getBoundingClientRect();
    const b = [...document.querySelectorAll<HTMLElement>('.gscope-fold[aria-expanded=true]')].find((el) => {
      const r = el.getBoundingClientRect();
      return r.left >= frame.left && r.right <= frame.right && r.top >= frame.top && r.bottom <= frame.bottom;
    });
    return b?.getAttribute('aria-label') ?? null;
  });
  expect(foldLabel, 'a namespace title on screen').not.toBeNull();
  const fold = page.getByRole('button', { name: foldLabel!, exact: true });
  const label = foldLabel!.replace(/^Fold /, '');
  const name = label.replace(/^(cluster \/ namespace|namespace) /, '');
  const summary = page.locator('.react-flow__node[data-kind=bucket]', { hasText: 'folded' });
  const unfold = page.getByRole('button', { name: `Unfold ${label}`, exact: true });

  await fold.click();
  await expect(summary).toHaveCount(1);
  await expect(summary).toHaveAttribute('aria-label', new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} folded: \\d+ nodes`));
  await expect(summary).toContainText(/\d+ nodes/);
  await expect(unfold).toBeVisible();
  // Click the summary: the namespace opens.
  await summary.click();
  await expect(summary).toHaveCount(0);
  await expect(page.getByRole('button', { name: `Fold ${label}`, exact: true })).toBeVisible();

  // Keyboard: Enter, then Space, on the focused summary node.
  for (const key of ['Enter', ' ']) {
    await page.getByRole('button', { name: `Fold ${label}`, exact: true }).click();
    await expect(summary).toHaveCount(1);
    await summary.focus();
    await page.keyboard.press(key);
    await expect(summary).toHaveCount(0);
  }
});

test('opening the side panel refits the view into the width left; a node links to its YAML in the editor', async ({ page }, info) => {
  await signIn(page, 'sam');
  await page.goto('/graphs?view=policy');
  await expect(page.locator('.graph-canvas')).toHaveAttribute('data-layout', /^(quick|elk)$/);
  const search = page.getByRole('searchbox', { name: 'Search nodes' });
  await search.fill('analytics_pipeline');
  await search.press('Enter');
  const selected = page.locator('.react-flow__node.selected');
  await expect(selected).toHaveCount(1);
  await selected.click();
  const panel = page.getByTestId('graph-panel');
  await expect(panel).toBeVisible();
  // The canvas ends where the panel begins, and the selected node is inside it, readable.
  await expect
    .poll(async () => {
      const canvas = (await page.locator('.react-flow').boundingBox())!;
      const p = (await panel.boundingBox())!;
      const n = (await selected.boundingBox())!;
      return canvas.x + canvas.width <= p.x && inside(n, canvas);
    })
    .toBe(true);
  await expect.poll(async () => (await smallestLabel(page, '.graph-canvas', '.gnode-label')).min).toBeGreaterThanOrEqual(12);
  await attach(page, info, 'policy-graph-with-panel');

  // Near enough for full labels, a node shows its YAML link: it opens the object's editor.
  const link = selected.locator('.gnode-yaml');
  await expect(async () => {
    await page.locator('.react-flow__controls-zoomin').click();
    await baseExpect(link).toBeVisible({ timeout: 3_000 });
  }).toPass();
  await expect(link).toHaveAttribute('href', /^\/objects\/(service|bundle)\/platform\/analytics_pipeline$/);
  await link.click();
  await expect(page).toHaveURL(/\/objects\/(service|bundle)\/platform\/analytics_pipeline$/);
  await expect(page.getByTestId('yaml-editor').locator('.view-lines')).toContainText('analytics_pipeline');
});

test('the scope graph opens readable: labels and edge labels of 12 px or more, no label under a node, no empty band; the panel refits it', async ({ page }, info) => {
  await signIn(page, 'sam');
  await page.goto('/installations');
  const graph = page.getByTestId('scope-graph');
  await expect(graph.locator('.react-flow__node').first()).toBeVisible({ timeout: 60_000 });
  await expect
    .poll(async () => {
      const m = await smallestLabel(page, '[data-testid=scope-graph]', '.gnode-label, .lscope-title strong, .react-flow__edge-text');
      return m.seen > 0 ? m.min : 0;
    })
    .toBeGreaterThanOrEqual(12);
  expect(await cutTitles(page, '.lscope-title')).toEqual([]);

  const geometry = () =>
    page.evaluate(() => {
      const root = document.querySelector('[data-testid=scope-graph]')!;
      const frame = root.getBoundingClientRect();
      const nodes = [...root.querySelectorAll('.react-flow__node')].map((n) => n.getBoundingClientRect());
      // Installations and objects (not the boxes that hold them), which a label must not cover.
      const leaves = [...root.querySelectorAll('.react-flow__node-object, .react-flow__node-installation:not(:has(.lscope))')].map((n) => n.getBoundingClientRect());
      const labels = [...root.querySelectorAll('.react-flow__edge-text')].map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }));
      const overlap = (a: DOMRect, b: DOMRect) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
      const top = Math.min(...nodes.map((r) => r.top));
      const bottom = Math.max(...nodes.map((r) => r.bottom));
      return {
        covered: labels.filter((l) => leaves.some((n) => overlap(l.r, n))).map((l) => l.text),
        topGap: top - frame.top,
        bottomGap: frame.bottom - bottom,
      };
    });
  const g = await geometry();
  expect(g.covered, 'edge labels drawn over a node').toEqual([]);
  // Fitted to its content: no empty band above it, and below it only if the content runs past the bottom.
  expect(g.topGap).toBeLessThanOrEqual(48);
  expect(g.bottomGap).toBeLessThanOrEqual(48);
  await attach(page, info, 'scope-graph');

  // The side panel: the graph is refitted into the width left.
  const first = graph.locator('.react-flow__node-installation').first();
  await first.click();
  const panel = page.getByTestId('scope-panel');
  await expect(panel).toBeVisible();
  await expect
    .poll(async () => {
      const canvas = (await graph.boundingBox())!;
      const p = (await panel.boundingBox())!;
      const n = (await graph.locator('.react-flow__node.selected').boundingBox())!;
      return canvas.x + canvas.width <= p.x && inside(n, canvas);
    })
    .toBe(true);
  await attach(page, info, 'scope-graph-with-panel');
});
