/**
 * ELK layered layout off the main thread. One request at a time: the
 * client (layout-client.ts) terminates this worker when a newer request
 * supersedes a running one, because ELK cannot be interrupted mid-layout.
 *
 * elkjs's bundled build runs ELK in-process when given no worker URL, which
 * is what we want inside a worker. Loaded in a worker, that bundle also
 * installs its own `self.onmessage` (it thinks it is ELK's worker), so ours
 * is assigned after the import, replacing it.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import { assemble, elkGroupGraph, groupSizes, readElkGroup, splitByGroup, type ElkInput, type GroupContent } from './layout-core';
import type { LayoutRequest, LayoutResult } from './types';

export interface WorkerRequest {
  id: number;
  request: LayoutRequest;
}

export type WorkerReply =
  | { id: number; type: 'progress'; done: number; total: number }
  | { id: number; type: 'result'; result: LayoutResult }
  | { id: number; type: 'error'; message: string };

/** The worker global, typed narrowly (the project's TS lib is the DOM's, not the worker's). */
const scope = self as unknown as {
  postMessage(message: WorkerReply, transfer?: Transferable[]): void;
  onmessage: ((ev: MessageEvent<WorkerRequest>) => void) | null;
};
const elk = new ELK();

async function layout(id: number, req: LayoutRequest): Promise<LayoutResult> {
  const started = performance.now();
  const split = splitByGroup(req);
  const contents: GroupContent[] = [];
  const total = req.nodes.length;
  let done = 0;
  for (let g = 0; g < split.members.length; g++) {
    const members = split.members[g]!;
    const { widths, heights } = groupSizes(req, members);
    const out = (await elk.layout(elkGroupGraph(widths, heights, split.intra[g]!) as never)) as unknown as ElkInput;
    contents.push(readElkGroup(out));
    done += members.length;
    scope.postMessage({ id, type: 'progress', done, total } satisfies WorkerReply);
  }
  return assemble(req, split, contents, 'elk', performance.now() - started);
}

scope.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  const { id, request } = ev.data;
  layout(id, request).then(
    (result) => scope.postMessage({ id, type: 'result', result } satisfies WorkerReply, [result.positions.buffer]),
    (e: unknown) => scope.postMessage({ id, type: 'error', message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply),
  );
};
