'use client';
import { useEffect, type RefObject } from 'react';
import type { useStoreApi } from '@xyflow/react';
import type { FlowEdge, FlowNode } from './types';

/** The view counts as moving until it has rested this long (see useMotionLayer). */
const MOTION_REST_MS = 200;

/**
 * While the view moves, React Flow's viewport is a compositor layer of its
 * own (will-change: transform): a pan or zoom frame then moves and scales
 * pixels already drawn instead of repainting and rasterising every node and
 * edge at the new scale (software raster on two cores, 2,000-node graph:
 * ~24 ms of raster a frame without, ~3.5 ms with). Once the view rests the
 * hint goes, so the text is rasterised again, sharp, at the final zoom; a
 * permanent will-change would leave it blurred after zooming in.
 */
export function useMotionLayer(wrapper: RefObject<HTMLDivElement | null>, store: ReturnType<typeof useStoreApi<FlowNode, FlowEdge>>) {
  useEffect(() => {
    let last = store.getState().transform;
    let layer: HTMLElement | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const rest = () => {
      if (layer) layer.style.willChange = '';
      layer = null;
    };
    const unsubscribe = store.subscribe((s) => {
      if (s.transform === last) return;
      last = s.transform;
      if (!layer) {
        layer = wrapper.current?.querySelector<HTMLElement>('.react-flow__viewport') ?? null;
        if (layer) layer.style.willChange = 'transform';
      }
      clearTimeout(timer);
      timer = setTimeout(rest, MOTION_REST_MS);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
      rest();
    };
  }, [wrapper, store]);
}
