/**
 * Issue 37, items 9 and 10: every page of the demo console fits a phone and
 * passes axe. At 390×844 nothing scrolls the page sideways (wide tables
 * scroll inside their own focusable region, long ids wrap, selects shrink);
 * at 800×900 nothing spills out of a section card or panel; at 1440×900
 * axe-core finds no serious or critical violation. The screenshots the
 * issue asks for (1440×900 and 390×844) are attached to the report.
 *
 * Each page is loaded once, at 1440×900, and then narrowed to 800×900 and
 * 390×844 as a user's window or phone turns: a page must hold at every size
 * it is resized to, not only at the one it opened at (the editor and the
 * graphs lay themselves out again on resize). At every narrower size the
 * console's header is one line, with its links behind the Menu button.
 * The screenshots of the pages that have them are taken at all three sizes.
 * Reads the seeded demo and changes nothing (the editor's edit is never saved).
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { demoRevisionId, editEditorText, signIn } from './fixtures';

type Visit = {
  name: string;
  path: string;
  /** The page's main content; the checks wait for it. */
  ready: (page: Page) => Locator;
  /** Attach a screenshot of this page at each size. */
  shot?: boolean;
  /** Something a user does first (the editor: an edit, so its preview shows). */
  act?: (page: Page) => Promise<void>;
  /** Signed out (the sign-in page). */
  anonymous?: boolean;
  /** Served outside the console's frame (no header): the REST API's docs, the sign-in page. */
  bare?: boolean;
};

/** The demo's deployed revision, whose number is looked up when visited (fixtures.ts, demoRevisionId). */
const DEMO_REVISION = '/revisions/(the demo\'s)';
const editor = (page: Page) => page.getByTestId('yaml-editor').locator('.view-lines');
const byTestId = (id: string) => (page: Page) => page.getByTestId(id).first();
const graphNodes = (page: Page) => page.locator('.react-flow__node').first();

const VISITS: Visit[] = [
  { name: 'objects', path: '/objects', ready: byTestId('objects-table'), shot: true },
  // An object editor per source kind.
  {
    name: 'editor-aptomi-claim',
    path: '/objects/claim/social/prod',
    ready: editor,
    shot: true,
    act: async (page) => {
      await editEditorText(page, (t) => t.replace(/tsvisimage: \S+/, 'tsvisimage: screenshot'));
      await expect(page.getByTestId('preview-summary')).toBeVisible({ timeout: 60_000 });
    },
  },
  { name: 'editor-aptomi-bundle', path: '/objects/bundle/social/twitter_stats', ready: editor },
  { name: 'editor-capact-interface', path: '/objects/interface/system/cap.interface.database.postgresql.install:0.1.0', ready: editor },
  { name: 'capact-policy-try-it', path: '/objects/policy/system/global', ready: byTestId('capact-try-it'), shot: true },
  { name: 'editor-landscaper-installation', path: '/objects/installation/garden/webui', ready: editor },
  { name: 'editor-landscaper-blueprint', path: '/objects/blueprint/garden/database', ready: editor },
  { name: 'editor-dm-deployment', path: '/objects/deployment/web/hello', ready: editor },
  { name: 'editor-axebow-service', path: '/objects/service/acme/webapp', ready: editor },
  { name: 'new-object', path: '/objects/new', ready: editor },
  { name: 'revisions', path: '/revisions', ready: byTestId('revisions-table') },
  { name: 'revision', path: DEMO_REVISION, ready: byTestId('apply-events'), shot: true },
  { name: 'graph-policy', path: '/graphs?view=policy', ready: graphNodes, shot: true },
  { name: 'graph-desired', path: '/graphs?view=desired', ready: graphNodes, shot: true },
  { name: 'claims-aptomi', path: '/claims', ready: byTestId('claims-table'), shot: true },
  { name: 'claim', path: '/claims/social/prod', ready: (page) => page.getByRole('heading', { level: 1 }) },
  { name: 'installations-landscaper', path: '/installations', ready: (page) => page.getByTestId('scope-graph').getByTestId('installation-webui'), shot: true },
  { name: 'installation', path: '/installations/garden/webui', ready: (page) => page.getByRole('heading', { level: 1 }) },
  { name: 'deployment-dm', path: '/deployments/web/hello', ready: byTestId('dm-layout'), shot: true },
  { name: 'dm-types', path: '/types', ready: byTestId('dm-types-filter') },
  { name: 'tenants', path: '/tenants', ready: byTestId('tenants-table') },
  { name: 'tenant-axebow', path: '/tenants/acme', ready: byTestId('environments-table'), shot: true },
  { name: 'history', path: '/history', ready: byTestId('generations-table'), shot: true },
  { name: 'users', path: '/users', ready: byTestId('role-map') },
  { name: 'profile-tokens', path: '/profile', ready: byTestId('api-tokens') },
  { name: 'rest-docs', path: '/api/1.0-beta/docs', ready: (page) => page.locator('[data-tag] h2').first(), bare: true },
  { name: 'rest-docs-try', path: '/api/1.0-beta/docs/try', ready: (page) => page.locator('.swagger-ui .opblock-tag').first(), bare: true },
  { name: 'signin', path: '/signin', ready: (page) => page.getByLabel('User name'), anonymous: true, bare: true },
];

const VIEWPORTS = {
  desktop: { width: 1440, height: 900 },
  tablet: { width: 800, height: 900 },
  phone: { width: 390, height: 844 },
} as const;
type Size = keyof typeof VIEWPORTS;
const sizeName = (size: Size) => `${VIEWPORTS[size].width}×${VIEWPORTS[size].height}`;

async function visit(page: Page, v: Visit) {
  await page.goto(v.path === DEMO_REVISION ? `/revisions/${await demoRevisionId(page)}` : v.path);
  // Generous: monaco's first start on a loaded 2-core runner is slow, and speed is the benchmark's business.
  await expect(v.ready(page)).toBeVisible({ timeout: 60_000 });
  await v.act?.(page);
  // Loading states are gone: what is measured is the page as it settles.
  await expect(page.locator('.spinner, .editor-loading')).toHaveCount(0, { timeout: 60_000 });
}

async function shoot(page: Page, v: Visit, size: Size) {
  if (!v.shot) return;
  await test.info().attach(`${v.name}-${VIEWPORTS[size].width}x${VIEWPORTS[size].height}`, { body: await page.screenshot(), contentType: 'image/png' });
}

/** How much wider than the screen the page is, and the widest elements past its right edge that no scrolling or clipping box holds. */
function overflow(page: Page) {
  return page.evaluate(() => {
    const root = document.scrollingElement!;
    const held = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    const wide = [...document.querySelectorAll('body *')]
      .map((el) => ({ el, right: el.getBoundingClientRect().right }))
      .filter((x) => x.right > root.clientWidth + 1 && !held(x.el))
      .sort((a, b) => b.right - a.right)
      .slice(0, 3)
      .map((x) => `${x.el.tagName.toLowerCase()}${x.el.id ? `#${x.el.id}` : ''}${typeof x.el.className === 'string' && x.el.className ? `.${x.el.className.trim().split(/\s+/).join('.')}` : ''} (right edge ${Math.round(x.right)})`);
    const by = root.scrollWidth - root.clientWidth;
    return by > 0 ? `the page is ${root.scrollWidth}px wide on a ${root.clientWidth}px screen; widest: ${wide.join(', ')}` : '';
  });
}

/** The console's header at a narrow size: one line, its links behind the Menu button. */
async function narrowHeader(page: Page, v: Visit, size: Size) {
  const nav = page.getByRole('navigation', { name: 'Main' });
  if (v.bare) return void (await expect(nav).toHaveCount(0));
  await expect.poll(async () => (await nav.boundingBox())?.height ?? Infinity, { message: `${v.path} at ${sizeName(size)}: header height` }).toBeLessThanOrEqual(60);
  await expect(nav.getByRole('link', { name: 'Revisions' }), `${v.path} at ${sizeName(size)}: the links are in the menu`).toBeHidden();
}

const CHECKS: Record<Size, (page: Page, v: Visit) => Promise<void>> = {
  desktop: async (page, v) => {
    const r = await new AxeBuilder({ page }).analyze();
    const found = r.violations
      .filter((x) => x.impact === 'serious' || x.impact === 'critical')
      .map((x) => `${x.id} (${x.impact}) — ${x.help}: ${x.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(', ')}`);
    expect(found, `${v.path} at 1440×900`).toEqual([]);
  },
  tablet: async (page, v) => {
    // Polled: the editor and the graphs lay themselves out on the frames after a resize.
    await expect
      .poll(
        () =>
          page.evaluate(() =>
            [...document.querySelectorAll<HTMLElement>('.section-card, .panel, .preview, .graph-panel')]
              .filter((el) => el.scrollWidth > el.clientWidth + 1)
              .map((el) => `${el.className} (${el.getAttribute('aria-label') ?? el.querySelector('h2, h3')?.textContent ?? ''}): content ${el.scrollWidth}px in ${el.clientWidth}px`),
          ),
        { message: `${v.path} at 800×900: nothing spills out of a section card or panel` },
      )
      .toEqual([]);
    await expect.poll(() => overflow(page), { message: `${v.path} at 800×900` }).toBe('');
    await narrowHeader(page, v, 'tablet');
  },
  phone: async (page, v) => {
    await expect.poll(() => overflow(page), { message: `${v.path} at 390×844` }).toBe('');
    // Tables that scroll sideways here must be reachable without a mouse. Polled: the console marks them
    // on the frame after their content arrives.
    await expect
      .poll(
        async () => {
          const r = await new AxeBuilder({ page }).withRules(['scrollable-region-focusable']).analyze();
          return r.violations.flatMap((x) => x.nodes.map((n) => `${x.id}: ${n.target.join(' ')}`));
        },
        { message: `${v.path} at 390×844: what scrolls inside can be reached by keyboard` },
      )
      .toEqual([]);
    await narrowHeader(page, v, 'phone');
  },
};

test.describe('every page at 1440×900, 800×900 and 390×844', () => {
  let contexts: BrowserContext[] = [];
  let signedIn: Page;
  let signedOut: Page;
  test.beforeAll(async ({ browser }: { browser: Browser }) => {
    contexts = [await browser.newContext({ viewport: VIEWPORTS.desktop }), await browser.newContext({ viewport: VIEWPORTS.desktop })];
    signedIn = await contexts[0]!.newPage();
    // Sam (domain admin) sees every page.
    await signIn(signedIn, 'sam');
    signedOut = await contexts[1]!.newPage();
  });
  test.afterAll(async () => {
    for (const c of contexts) await c.close();
  });
  for (const v of VISITS) {
    test(`${v.name} (${v.path}): axe at 1440×900; narrowed to 800×900 and 390×844, it fits`, async () => {
      test.setTimeout(240_000);
      const page = v.anonymous ? signedOut : signedIn;
      await page.setViewportSize(VIEWPORTS.desktop);
      await visit(page, v);
      for (const size of Object.keys(VIEWPORTS) as Size[]) {
        if (size !== 'desktop') await page.setViewportSize(VIEWPORTS[size]);
        await CHECKS[size](page, v);
        await shoot(page, v, size);
      }
    });
  }
});
