'use client';
/**
 * The overview map in the corner: every drawn node as a coloured box on one
 * <canvas>, drawn once per layout, and the visible part of the graph as a
 * frame moved by a store subscription, without React.
 *
 * React Flow's own <MiniMap> renders one SVG rect per node, each subscribed
 * to the store, and re-bounds all nodes on every viewport change: at 2,000
 * nodes that is most of a pan frame (measured in bench/graph.bench.ts:
 * 50–80 ms frames with it, 33 ms hidden). Here a pan frame costs one style
 * change. Drag or click to move the view there; the wheel zooms about the
 * view's centre, as the MiniMap's `pannable zoomable` did.
 */
import { Panel, useStoreApi } from '@xyflow/react';
import { memo, useCallback, useEffect, useRef, type PointerEvent, type WheelEvent } from 'react';
import { minimapColor } from './nodes';
import type { FlowEdge, FlowNode } from './types';

const WIDTH = 200;
const HEIGHT = 150;
const PAD = 6;
const MIN_ZOOM = 0.05;
const MAX_ZOOM = 2;

/** Flow coordinates → map pixels: px = (x - x0) * scale + ox. */
type Frame = { x0: number; y0: number; scale: number; ox: number; oy: number };

export const OverviewMap = memo(function OverviewMap({ nodes }: { nodes: readonly FlowNode[] }) {
  const store = useStoreApi<FlowNode, FlowEdge>();
  const canvas = useRef<HTMLCanvasElement>(null);
  const view = useRef<HTMLDivElement>(null);
  const frame = useRef<Frame | null>(null);

  const placeView = useCallback(() => {
    const f = frame.current;
    const el = view.current;
    if (!f || !el) return;
    const { transform, width, height } = store.getState();
    const [tx, ty, zoom] = transform;
    const x = (-tx / zoom - f.x0) * f.scale + f.ox;
    const y = (-ty / zoom - f.y0) * f.scale + f.oy;
    el.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)`;
    el.style.width = `${((width / zoom) * f.scale).toFixed(1)}px`;
    el.style.height = `${((height / zoom) * f.scale).toFixed(1)}px`;
  }, [store]);

  // Draw the nodes: once per layout (the nodes array changes with the layout, selection and highlight).
  useEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    const parents = new Map<string, { x: number; y: number }>();
    for (const n of nodes) if (!n.parentId) parents.set(n.id, n.position);
    const boxes: { x: number; y: number; w: number; h: number; color: string }[] = [];
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const n of nodes) {
      const p = n.parentId ? parents.get(n.parentId) : undefined;
      const x = n.position.x + (p?.x ?? 0);
      const y = n.position.y + (p?.y ?? 0);
      const w = n.width ?? 0;
      const h = n.height ?? 0;
      boxes.push({ x, y, w, h, color: minimapColor(n) });
      minX = Math.min(minX, x);
      minY = Math.min(minY, y);
      maxX = Math.max(maxX, x + w);
      maxY = Math.max(maxY, y + h);
    }
    const dpr = window.devicePixelRatio || 1;
    c.width = WIDTH * dpr;
    c.height = HEIGHT * dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, WIDTH, HEIGHT);
    if (boxes.length === 0) {
      frame.current = null;
      return;
    }
    const scale = Math.min((WIDTH - 2 * PAD) / Math.max(1, maxX - minX), (HEIGHT - 2 * PAD) / Math.max(1, maxY - minY));
    const f: Frame = { x0: minX, y0: minY, scale, ox: (WIDTH - (maxX - minX) * scale) / 2, oy: (HEIGHT - (maxY - minY) * scale) / 2 };
    frame.current = f;
    for (const b of boxes) {
      ctx.fillStyle = b.color;
      // At least a pixel, so a node of a big graph does not vanish.
      ctx.fillRect((b.x - f.x0) * scale + f.ox, (b.y - f.y0) * scale + f.oy, Math.max(1, b.w * scale), Math.max(1, b.h * scale));
    }
    placeView();
  }, [nodes, placeView]);

  // Follow the viewport: a style change per pan frame, no render.
  useEffect(() => {
    let last = store.getState();
    placeView();
    return store.subscribe((s) => {
      if (s.transform === last.transform && s.width === last.width && s.height === last.height) return;
      last = s;
      placeView();
    });
  }, [store, placeView]);

  /** Centre the view on the flow point under the pointer. */
  const moveTo = useCallback(
    (e: PointerEvent<HTMLDivElement>) => {
      const f = frame.current;
      if (!f) return;
      const r = e.currentTarget.getBoundingClientRect();
      const fx = (e.clientX - r.left - f.ox) / f.scale + f.x0;
      const fy = (e.clientY - r.top - f.oy) / f.scale + f.y0;
      const { transform, width, height, panZoom } = store.getState();
      void panZoom?.setViewport({ x: width / 2 - fx * transform[2], y: height / 2 - fy * transform[2], zoom: transform[2] });
    },
    [store],
  );
  const onPointerDown = useCallback(
    (e: PointerEvent<HTMLDivElement>) => {
      if (e.button !== 0) return;
      e.currentTarget.setPointerCapture(e.pointerId);
      moveTo(e);
    },
    [moveTo],
  );
  const onPointerMove = useCallback((e: PointerEvent<HTMLDivElement>) => e.currentTarget.hasPointerCapture(e.pointerId) && moveTo(e), [moveTo]);
  const onWheel = useCallback(
    (e: WheelEvent<HTMLDivElement>) => {
      const { transform, width, height, panZoom } = store.getState();
      const [tx, ty, zoom] = transform;
      const next = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom * Math.pow(2, -e.deltaY / 500)));
      // Keep the point at the centre of the view where it is.
      const cx = (width / 2 - tx) / zoom;
      const cy = (height / 2 - ty) / zoom;
      void panZoom?.setViewport({ x: width / 2 - cx * next, y: height / 2 - cy * next, zoom: next });
    },
    [store],
  );

  return (
    <Panel position="bottom-right" className="react-flow__minimap graph-overview">
      <div className="graph-overview-body" style={{ width: WIDTH, height: HEIGHT }} onPointerDown={onPointerDown} onPointerMove={onPointerMove} onWheel={onWheel}>
        <canvas ref={canvas} style={{ width: WIDTH, height: HEIGHT }} role="img" aria-label="Overview map" />
        <div ref={view} className="graph-overview-view" />
      </div>
    </Panel>
  );
});
