/**
 * The benchmark page of `graph.bench.ts`: the console's own GraphCanvas
 * (same budget, layout, worker and nodes) on a generated model, bundled by
 * esbuild and opened in headless Chromium. It records, on `window.__graph`:
 * - firstFrameMs: navigation start → the frame that painted the first nodes
 *   (detected in a rAF; the next rAF's timestamp is after that paint);
 * - mountToFirstFrameMs: the same from just before React renders;
 * - elkMs: navigation start → ELK's layout on screen;
 * and `window.__pan(frames)` runs programmatic pan/zoom steps, one per
 * animation frame, and returns the frame times (rAF timestamp deltas).
 */
import { createRoot } from 'react-dom/client';
import { createRef } from 'react';
import '../app/globals.css';
import { GraphCanvas, type GraphCanvasApi } from '../components/graph/graph-canvas';
import { setLayoutWorkerFactory } from '../components/graph/layout-client';
import type { GraphModel } from '../components/graph/types';

/** What the page reports to the bench runner on `window.__graph`. */
export interface BenchState {
  firstFrameMs?: number;
  mountToFirstFrameMs?: number;
  elkMs?: number;
  shown?: number;
  hidden?: number;
  error?: string;
}
const w = window as unknown as { __graph: BenchState; __pan: (frames: number) => Promise<number[]> };
w.__graph = {};

// esbuild builds the worker as its own file; Next does it from the `new URL(…)` in layout-client.ts.
setLayoutWorkerFactory(() => new Worker('/layout.worker.js'));

const api = createRef<GraphCanvasApi>();

async function main() {
  const name = new URLSearchParams(location.search).get('model') ?? '2000';
  const model = (await (await fetch(`/model-${name}.json`)).json()) as GraphModel;
  const mount = performance.now();
  const root = document.getElementById('root')!;
  createRoot(root).render(
    <div style={{ height: '100vh' }} className="graph-show-actual">
      {/* Every namespace open: the figures measure drawing the whole budget, as before namespaces folded. */}
      <GraphCanvas model={model} apiRef={api} ariaLabel="Benchmark graph" foldFrom={Infinity} />
    </div>,
  );
  const firstFrame = () => {
    const canvas = root.querySelector<HTMLElement>('.graph-canvas');
    const nodes = root.querySelectorAll('.react-flow__node-instance, .react-flow__node-claim, .react-flow__node-object');
    if (canvas && nodes.length > 0) {
      requestAnimationFrame(() => {
        const t = performance.now();
        w.__graph.firstFrameMs = t;
        w.__graph.mountToFirstFrameMs = t - mount;
        w.__graph.shown = Number(canvas.dataset.nodes);
        w.__graph.hidden = Number(canvas.dataset.hidden);
      });
      return;
    }
    requestAnimationFrame(firstFrame);
  };
  requestAnimationFrame(firstFrame);
  const elk = () => {
    if (root.querySelector('.graph-canvas')?.getAttribute('data-layout') === 'elk') w.__graph.elkMs = performance.now();
    else setTimeout(elk, 20);
  };
  elk();
}

w.__pan = (frames: number) =>
  new Promise((resolve) => {
    const start = api.current!.getViewport();
    const times: number[] = [];
    let last: number | undefined;
    let i = 0;
    const step = (ts: number) => {
      if (last !== undefined) times.push(ts - last);
      last = ts;
      if (i >= frames) return resolve(times);
      i++;
      // Pan right and down while zooming in and out a little: nodes keep entering and leaving the screen.
      api.current!.setViewport({ x: start.x - i * 14, y: start.y - i * 5, zoom: start.zoom * (1 + 0.15 * Math.sin(i / 12)) });
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });

main().catch((e: unknown) => {
  w.__graph.error = e instanceof Error ? e.stack ?? e.message : String(e);
});
