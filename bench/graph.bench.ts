/**
 * Graph views in headless Chromium (Debian's, never a downloaded browser):
 * the console's GraphCanvas on desired-state graphs from the benchmark
 * generator, bundled with esbuild into a static page served from here.
 *
 * Inputs (seed 239, Aptomi's shape, see generator.ts; every claim resolves,
 * all instances land on one cluster/namespace):
 * - 2000: 270 bundles, 2,000 claims → 2,025 instances, cut to the first
 *   2,000 in key order (edges between kept instances kept): all drawn, the
 *   budget is 2,000;
 * - 20000: 2,700 bundles, 20,000 claims → 20,220 instances, cut to 20,000;
 *   25 of them (every 800th) marked as failed in the actual state, so the
 *   budget's "problems first" ranking has something to rank: 2,000 nodes
 *   drawn (problems and their neighbours first), the rest counted in
 *   buckets;
 * - 20000_policy: the policy graph of that same 20,000-claim policy
 *   (users, claims, services, contexts, bundles, components: ~51,000
 *   nodes), through the same budget.
 *
 * Figures:
 * - graph.2000.first_frame_ms, graph.20000.first_frame_ms,
 *   graph.20000_policy.first_frame_ms: median of 3 fresh page loads, from
 *   navigation start (page and model JSON loading included) to the frame
 *   that painted the first nodes;
 * - graph.2000.pan_frame_ms, graph.20000.pan_frame_ms: median frame time
 *   of 150 programmatic pan/zoom steps (one setViewport per animation
 *   frame, rAF timestamp deltas; 16.7 ms = every frame made), measured after
 *   ELK's layout replaced the first one;
 * - graph.2000.elk_ms: navigation start → ELK's layout on screen (the
 *   worker, cold, in a fresh page);
 * - graph.2000.quick_layout_ms: the quick layout (the one drawn before
 *   ELK's) of the 2000 input, budgeted as the console does, median of 5 runs
 *   in Node (target 500; components/graph/graph.test.ts checks its result);
 * - graph.20000.bytes: what the console's `graphs.desiredView` sends for
 *   the 20000 input (superjson's JSON, as on the wire before compression):
 *   budgeted on the server (server/engine/graph/view.ts), ≤ 2,000,000.
 *   The table also shows the unbudgeted `graphs.desired` answer.
 *
 * `GRAPH_BENCH_SHOTS=DIR npm run bench -- graph` also saves a screenshot of
 * each graph once ELK's layout is on screen; `generate`, `bundle` and
 * `serve` are exported to drive the page by hand (tsx script + Playwright).
 */
import { createServer, type Server } from 'node:http';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import superjson from 'superjson';
import { desiredGraph, policyGraph, type GraphModel } from '../server/engine/graph';
import { budgetView } from '../server/engine/graph/view';
import { applyBudget } from '../components/graph/budget';
import { toLayoutRequest } from '../components/graph/flow';
import { quickLayout } from '../components/graph/layout-core';
import { resolvePolicy } from '../server/engine/resolve';
import { describeInput, generatePolicy, toPolicyInput } from './generator';
import type { BenchState } from './graph-page';
import { figure, median, registerBenchmark, round, type Figure, type MeasureResult } from './registry';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const LOADS = 3;
const PAN_FRAMES = 150;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'];

export type Sizes = { key: string; bundles: number; claims: number; keep: number; failEvery?: number; policy?: boolean };
const INPUTS: Sizes[] = [
  { key: '2000', bundles: 270, claims: 2000, keep: 2000 },
  { key: '20000', bundles: 2700, claims: 20_000, keep: 20_000, failEvery: 800 },
  { key: '20000_policy', bundles: 2700, claims: 20_000, keep: 0, policy: true },
];

export function generate(s: Sizes): { model: GraphModel; input: string } {
  const g = generatePolicy('large', { bundles: s.bundles, claims: s.claims, users: 2000 });
  const input = toPolicyInput(g);
  const objects = input.objects;
  const state = resolvePolicy(input, { trace: false });
  if (s.policy) return { model: policyGraph(objects, state), input: describeInput(g) };
  const full = desiredGraph(state);
  const nodes = full.nodes.slice(0, s.keep).map((n, i) =>
    s.failEvery && n.kind === 'instance' && i % s.failEvery === s.failEvery - 1 ? { ...n, actual: 'failed' as const, problem: true } : n,
  );
  const ids = new Set(nodes.map((n) => n.id));
  const groups = new Set(nodes.map((n) => n.group));
  return {
    model: { nodes, edges: full.edges.filter((e) => ids.has(e.source) && ids.has(e.target)), groups: full.groups.filter((x) => groups.has(x.id)) },
    input: `${describeInput(g)}; ${full.nodes.length.toLocaleString('en-US')} instances, first ${s.keep.toLocaleString('en-US')} kept`,
  };
}

/** The page and its worker, bundled as the console bundles them (minified, production React). */
export async function bundle(): Promise<Record<string, Buffer>> {
  const esbuild = await import('esbuild');
  const common = {
    bundle: true,
    minify: true,
    write: false,
    target: 'es2022',
    jsx: 'automatic' as const,
    define: { 'process.env.NODE_ENV': '"production"' },
    absWorkingDir: ROOT,
    logLevel: 'error' as const,
  };
  const page = await esbuild.build({ ...common, entryPoints: { page: 'bench/graph-page.tsx' }, format: 'esm', outdir: '/page', loader: { '.ttf': 'empty' } });
  const worker = await esbuild.build({ ...common, entryPoints: { 'layout.worker': 'components/graph/layout.worker.ts' }, format: 'iife', outdir: '/page' });
  const files: Record<string, Buffer> = {};
  for (const f of [...(page.outputFiles ?? []), ...(worker.outputFiles ?? [])]) files[f.path.replace('/page/', '/')] = Buffer.from(f.contents);
  files['/index.html'] = Buffer.from(
    '<!doctype html><html><head><meta charset="utf-8"><title>graph bench</title><link rel="stylesheet" href="/page.css"></head>' +
      '<body style="margin:0"><div id="root"></div><script type="module" src="/page.js"></script></body></html>',
  );
  return files;
}

export function serve(files: Record<string, Buffer>): Promise<{ server: Server; url: string }> {
  const types: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css', json: 'application/json' };
  const server = createServer((req, res) => {
    const asked = new URL(req.url ?? '/', 'http://x').pathname;
    const path = asked === '/' ? '/index.html' : asked;
    const body = files[path];
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': types[path.split('.').pop() ?? ''] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(body);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}


registerBenchmark({
  name: 'graph',
  description: 'graph views in headless Chromium: first frame of 2,000- and 20,000-instance desired-state graphs (and the 20,000-claim policy graph), pan/zoom frame time',
  measures: {
    /** Bytes of the tRPC answers for the 20000 input: the budgeted view the console asks for, and the whole graph. */
    bytes(): MeasureResult {
      const { model, input } = generate(INPUTS.find((s) => s.key === '20000')!);
      const wire = (v: unknown) => Buffer.byteLength(JSON.stringify(superjson.serialize(v)));
      const started = performance.now();
      const view = { generation: 1, ...budgetView(model) };
      const ms = performance.now() - started;
      return { input, nodes: model.nodes.length, sent: view.sent, buckets: view.graph.b.length, ms, budgeted: wire(view), whole: wire({ generation: 1, ...model }) };
    },
    /** The quick layout of the 2000 input, as the console computes it before ELK's. */
    quick(): MeasureResult {
      const { model, input } = generate(INPUTS.find((s) => s.key === '2000')!);
      const req = toLayoutRequest(applyBudget(model, { budget: 2000 }));
      const times: number[] = [];
      for (let i = 0; i < 6; i++) times.push(quickLayout(req).ms);
      return { input, nodes: req.nodes.length, ms: median(times.slice(1)) };
    },
    async browser(): Promise<MeasureResult> {
      const { chromium } = await import('@playwright/test');
      const files = await bundle();
      const inputs: Record<string, string> = {};
      const sizes: Record<string, number> = {};
      for (const s of INPUTS) {
        const { model, input } = generate(s);
        files[`/model-${s.key}.json`] = Buffer.from(JSON.stringify(model));
        inputs[s.key] = input;
        sizes[s.key] = model.nodes.length;
      }
      const { server, url } = await serve(files);
      const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
      const out: MeasureResult = { chromium: browser.version(), cpus: cpus().length };
      try {
        for (const s of INPUTS) {
          const first: number[] = [];
          const mount: number[] = [];
          const elk: number[] = [];
          let pan: number[] = [];
          let state: BenchState = {};
          for (let load = 0; load < LOADS; load++) {
            const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
            const page = await context.newPage();
            await page.goto(`${url}/?model=${s.key}`);
            await page.waitForFunction(() => (window as unknown as { __graph: BenchState }).__graph.firstFrameMs !== undefined || !!(window as unknown as { __graph: BenchState }).__graph.error, null, { timeout: 120_000 });
            state = await page.evaluate(() => (window as unknown as { __graph: BenchState }).__graph);
            if (state.error) throw new Error(`graph page failed: ${state.error}`);
            first.push(state.firstFrameMs!);
            mount.push(state.mountToFirstFrameMs!);
            // Pan once ELK's layout is on screen (on the last load): the steady state people pan in.
            await page.waitForFunction(() => (window as unknown as { __graph: BenchState }).__graph.elkMs !== undefined, null, { timeout: 180_000 });
            elk.push((await page.evaluate(() => (window as unknown as { __graph: BenchState }).__graph.elkMs))!);
            // GRAPH_BENCH_SHOTS=DIR: see what was measured.
            if (load === LOADS - 1 && process.env.GRAPH_BENCH_SHOTS) await page.screenshot({ path: join(process.env.GRAPH_BENCH_SHOTS, `graph-${s.key}.png`) });
            if (load === LOADS - 1 && !s.policy) {
              await page.waitForTimeout(300);
              pan = await page.evaluate((n) => (window as unknown as { __pan: (f: number) => Promise<number[]> }).__pan(n), PAN_FRAMES);
            }
            await context.close();
          }
          out[`${s.key}.first`] = median(first);
          out[`${s.key}.mount`] = median(mount);
          out[`${s.key}.elk`] = median(elk);
          out[`${s.key}.nodes`] = sizes[s.key]!;
          out[`${s.key}.shown`] = state.shown ?? 0;
          out[`${s.key}.hidden`] = state.hidden ?? 0;
          out[`${s.key}.input`] = inputs[s.key]!;
          if (pan.length) {
            out[`${s.key}.pan`] = median(pan);
            out[`${s.key}.pan_p95`] = [...pan].sort((a, b) => a - b)[Math.floor(pan.length * 0.95)]!;
          }
        }
      } finally {
        await browser.close();
        server.close();
      }
      return out;
    },
  },
  async run(ctx) {
    const quick = (await ctx.inChild('quick')).result;
    ctx.note(`quick layout of the 2000 input (${quick.nodes} nodes): ${round(Number(quick.ms), 1)} ms`);
    const b = (await ctx.inChild('bytes')).result;
    ctx.table([
      ['graph', 'nodes', 'sent in full', 'buckets', 'budgeted bytes', 'whole graph bytes', 'budgeting ms', 'input'],
      ['20000', Number(b.nodes), Number(b.sent), Number(b.buckets), Number(b.budgeted), Number(b.whole), round(Number(b.ms), 0), String(b.input)],
    ]);
    const run = await ctx.inChild('browser');
    const r = run.result;
    const n = (k: string) => Number(r[k]);
    ctx.note(`headless Chromium ${r.chromium}, ${r.cpus} CPUs, viewport 1440×900; ${LOADS} page loads per graph, ${PAN_FRAMES} pan/zoom frames`);
    const rows: (string | number)[][] = [['graph', 'nodes', 'drawn', 'in buckets', 'first frame ms', 'mount→frame ms', 'ELK on screen ms', 'pan median ms', 'pan p95 ms', 'input']];
    for (const s of INPUTS) {
      rows.push([
        s.key,
        n(`${s.key}.nodes`),
        n(`${s.key}.shown`),
        n(`${s.key}.hidden`),
        round(n(`${s.key}.first`), 0),
        round(n(`${s.key}.mount`), 0),
        round(n(`${s.key}.elk`), 0),
        r[`${s.key}.pan`] !== undefined ? round(n(`${s.key}.pan`), 1) : '—',
        r[`${s.key}.pan_p95`] !== undefined ? round(n(`${s.key}.pan_p95`), 1) : '—',
        String(r[`${s.key}.input`]),
      ]);
    }
    ctx.table(rows);
    const figures: Figure[] = [
      figure('graph.2000.first_frame_ms', round(n('2000.first'), 0)),
      figure('graph.2000.pan_frame_ms', round(n('2000.pan'), 1)),
      figure('graph.20000.first_frame_ms', round(n('20000.first'), 0)),
      figure('graph.2000.elk_ms', round(n('2000.elk'), 0)),
      figure('graph.20000.pan_frame_ms', round(n('20000.pan'), 1)),
      figure('graph.20000_policy.first_frame_ms', round(n('20000_policy.first'), 0)),
      figure('graph.20000.bytes', Number(b.budgeted)),
      figure('graph.2000.quick_layout_ms', round(Number(quick.ms), 1)),
    ];
    return figures;
  },
});
