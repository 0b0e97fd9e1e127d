/**
 * The console's pages in a browser, as a newcomer meets them (issue 37,
 * item 8): the production build (`next build` + `next start`, through
 * scripts/start.mjs as `npm start` runs it: it builds only when the sources
 * changed), PGlite in a fresh temporary data folder, the seeded demo, a free
 * loopback port; Debian's Chromium driven by Playwright (never a downloaded
 * browser), signed in as the demo's domain admin, Sam.
 *
 * Each page (bench/pages.ts lists them with what "ready" means) is opened
 * 1 + RUNS times by full navigation in the same tab: the first is cold
 * (`page.<name>.cold_ms`: the page's scripts and the server's code paths met
 * for the first time), the median of the rest is `page.<name>.ready_ms`.
 * Times run from the navigation's start (the document's time origin) to the
 * animation frame in which the page's main content is on screen. The
 * editor is ready when its Monaco model exists and a keystroke typed into it
 * has landed in the model. `page.preview.answer_ms`: on the editor's page,
 * from an edit of the demo's bundle (a new parameter of its first chart,
 * through the model as typing goes) to the revision preview's answer.
 *
 * Targets: every page ≤ 1,000 ms, the editor ≤ 1,500 ms, graph layout ≤
 * 2,000 ms, the preview ≤ 500 ms; the table says which are met.
 *
 * Opt-in (`npm run bench -- pages`): the first run builds the console, which
 * takes minutes. PAGES_BENCH_URL=http://host:port measures a console that is
 * already running the demo instead (nothing is built or started);
 * PAGES_BENCH_RUNS sets the warm navigations per page (default 5).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGES, PREVIEW_TARGET_MS, pageFigures, pagesTable, summarize, type PageSpec, type PageTimings } from './pages';
import { registerBenchmark, type MeasureResult } from './registry';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'];
/** Building the console on a busy machine takes minutes. */
const START_TIMEOUT_MS = 20 * 60_000;
const READY_TIMEOUT_MS = 120_000;

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/** The console as `npm start` runs it, on its own port and data folder; resolves once /signin answers. */
async function startConsole(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'keelson-pages-'));
  // Only what start.mjs needs: an operator's own KEELSON_* or DATABASE_URL must not point the bench elsewhere.
  const inherited: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(KEELSON_|DATABASE_URL$|NEXTAUTH_|PORT$)/.test(k)) inherited[k] = v;
  const env = { ...inherited, PORT: String(port), NEXTAUTH_URL: url, KEELSON_DATA_DIR: dataDir, NODE_ENV: 'production' as const };
  // Its own process group, so stopping it stops `next start` too.
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  const exited = new Promise<never>((_, fail) => child.once('exit', (code, signal) => fail(new Error(`the console exited (${signal ?? code}) before answering`))));
  exited.catch(() => {});
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      const up = await Promise.race([
        fetch(`${url}/signin`).then(
          (r) => r.ok,
          () => false,
        ),
        exited,
      ]);
      if (up) return { url, stop };
      if (Date.now() > deadline) throw new Error(`the console did not answer on ${url} within ${START_TIMEOUT_MS / 60_000} min`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * An expression for the page: `performance.now()` (ms since the navigation
 * started) once each selector matches an element with a box, else false.
 * A string, not a function: what tsx compiles would carry its helpers along.
 */
function readyExpression(spec: PageSpec): string {
  return `(() => { for (const s of ${JSON.stringify(spec.selectors)}) { const el = document.querySelector(s); if (!el || el.getClientRects().length === 0) return false; } return performance.now(); })()`;
}

type ModelHost = HTMLElement & { keelsonModel?: { getValue(): string; setValue(v: string): void } };

/** ms from navigation start to `spec` ready in this page (for the editor: to a keystroke in its model). */
async function openPage(page: import('@playwright/test').Page, base: string, spec: PageSpec): Promise<number> {
  await page.goto(base + spec.path, { waitUntil: 'commit' });
  const ready = await page.waitForFunction(readyExpression(spec), undefined, { polling: 'raf', timeout: READY_TIMEOUT_MS });
  const at = (await ready.jsonValue()) as number;
  if (spec.name !== 'editor') return at;
  // Typeable: the first key typed at the end of the text lands in its model. One key, as a user's first:
  // typing a longer mark through the debugging protocol added ~30 ms of round trip per key to the figure.
  // '#' keeps the YAML valid (a comment on an empty last line, or part of the last scalar).
  await page.locator('[data-testid="yaml-editor"] .view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('#');
  const landed = await page.waitForFunction(
    () => ((document.querySelector('[data-testid="yaml-editor"]') as ModelHost | null)?.keelsonModel?.getValue().trimEnd().endsWith('#') ?? false) && performance.now(),
    undefined,
    { polling: 'raf', timeout: READY_TIMEOUT_MS },
  );
  return (await landed.jsonValue()) as number;
}

/**
 * On the editor's page (not yet edited), ms from an edit that changes what
 * the demo deploys (a parameter of the bundle's first chart) to the
 * preview's answer. The preview is not shown before the first edit, so the
 * first answer seen is this edit's.
 */
async function previewAnswer(page: import('@playwright/test').Page, base: string, spec: PageSpec, nonce: string): Promise<number> {
  await page.goto(base + spec.path, { waitUntil: 'commit' });
  await page.waitForFunction(readyExpression(spec), undefined, { polling: 'raf', timeout: READY_TIMEOUT_MS });
  const started = await page.evaluate((n) => {
    const model = (document.querySelector('[data-testid="yaml-editor"]') as ModelHost).keelsonModel!;
    const text = model.getValue();
    // A new parameter of the first component's chart: its instance changes, so the revision does.
    const edited = text.replace(/^(\s*)chartVersion: .*$/m, (line: string, indent: string) => `${line}\n${indent}benchMark: "${n}"`);
    if (edited === text) throw new Error('the demo bundle has no chart parameters to change');
    model.setValue(edited);
    return performance.now();
  }, nonce);
  const answered = await page.waitForFunction(
    () => {
      const p = document.querySelector('[data-testid="preview"]');
      if (!p || p.querySelector('[role="status"]')) return false;
      return (p.querySelector('[data-testid="preview-summary"]') || p.querySelector('.sev-error, .muted')) && performance.now();
    },
    undefined,
    { polling: 'raf', timeout: READY_TIMEOUT_MS },
  );
  const text = await page.locator('[data-testid="preview"]').innerText();
  if (!/a revision with|no change/.test(text)) throw new Error(`the preview did not answer with a revision: ${text}`);
  return ((await answered.jsonValue()) as number) - started;
}

registerBenchmark({
  name: 'pages',
  description: "the console's pages in Chromium on the seeded demo: ms to each page's main content (production build, PGlite)",
  optIn: true,
  measures: {
    async run(args) {
      const runs = Number(args.runs);
      const given = typeof args.url === 'string' && args.url ? { url: args.url.replace(/\/$/, ''), stop: async () => {} } : undefined;
      const server = given ?? (await startConsole());
      const { chromium } = await import('@playwright/test');
      const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
      try {
        const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
        // Each navigation starts from the page as saved: an edit left by the previous turn is not offered back.
        await context.addInitScript(() => {
          for (const k of Object.keys(localStorage)) if (k.startsWith('keelson:draft:')) localStorage.removeItem(k);
        });
        const page = await context.newPage();
        // Leaving the edited editor asks "leave the page?": yes.
        page.on('dialog', (d) => void d.accept());
        await page.goto(`${server.url}/signin`);
        await page.getByLabel('User name').fill('sam');
        await page.getByLabel('Password').fill('sam');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByTestId('current-user').waitFor({ timeout: READY_TIMEOUT_MS });
        const result: MeasureResult = {};
        for (const spec of PAGES) {
          const samples: number[] = [];
          for (let i = 0; i <= runs; i++) samples.push(await openPage(page, server.url, spec));
          result[spec.name] = samples.join(',');
        }
        const editor = PAGES.find((p) => p.name === 'editor')!;
        const nonce = Date.now().toString(36);
        const answers: number[] = [];
        for (let i = 0; i <= runs; i++) answers.push(await previewAnswer(page, server.url, editor, `${nonce}-${i}`));
        result.preview = answers.join(',');
        return result;
      } finally {
        await browser.close();
        await server.stop();
      }
    },
  },
  async run(ctx) {
    const runs = Number(process.env.PAGES_BENCH_RUNS ?? 5);
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`PAGES_BENCH_RUNS must be a whole number ≥ 1, got ${process.env.PAGES_BENCH_RUNS}`);
    const url = process.env.PAGES_BENCH_URL ?? '';
    ctx.note(`  ${url ? `the console at ${url}` : 'a fresh console (npm start: production build, PGlite, seeded demo)'}; Chromium 1440×900 as sam; 1 cold + ${runs} warm navigations per page`);
    const { result } = await ctx.inChild('run', { runs, url });
    const timings: PageTimings[] = [
      ...PAGES.map((p) => ({ name: p.name, target: p.target, samples: String(result[p.name]).split(',').map(Number) })),
      { name: 'preview', target: PREVIEW_TARGET_MS, samples: String(result.preview).split(',').map(Number) },
    ];
    const summaries = timings.map(summarize);
    ctx.table(pagesTable(summaries));
    for (const p of PAGES) ctx.note(`  ${p.name}: ${p.path} — ready = ${p.ready}`);
    ctx.note('  preview: an edit of the bundle (a new chart parameter) → the preview\'s answer');
    return pageFigures(summaries);
  },
});
