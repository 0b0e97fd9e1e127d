'use client';
/**
 * The graph drawing: budget → layout → React Flow, with an overview map,
 * zoom controls, a statement of what the budget left out, layout progress
 * and keyboard navigation. It knows nothing of tRPC or Next, so the
 * benchmark page renders this very component with generated models.
 *
 * Layout: a linear-time layered layout gives the first frame at once on
 * big graphs; ELK's layered layout runs in a worker and replaces it when
 * done (a newer request cancels an older one). Small graphs wait briefly
 * for ELK so they do not visibly jump.
 */
import '@xyflow/react/dist/style.css';
import { Background, Controls, Panel, ReactFlow, ReactFlowProvider, useReactFlow, useStore, useStoreApi, type NodeMouseHandler, type OnMoveStart } from '@xyflow/react';
import { useCallback, useEffect, useImperativeHandle, useMemo, useRef, useState, type KeyboardEvent, type Ref, type RefObject } from 'react';
import { Spinner } from '../ui/spinner';
import { BudgetNote } from './budget-note';
import { applyBudget, DEFAULT_BUDGET } from './budget';
import { toFlow, toLayoutRequest, type FlowGraph } from './flow';
import { foldGroups, foldId } from './fold';
import { LayoutCancelled, LayoutClient } from './layout-client';
import { quickLayout } from './layout-core';
import { adjacency } from './model';
import { OverviewMap } from './overview-map';
import { GraphActionsContext, nodeTypes, type GraphActions } from './nodes';
import { DIRS, focusNodeElement, step } from './keyboard';
import { useMotionLayer } from './motion-layer';
import { COLLAPSE_FROM, firstView, initialCollapsed, lodFor, refitAfterResize, relevantNodes, type Rect } from './readable';
import type { FlowEdge, FlowNode, GraphModel, LayoutRequest, LayoutResult, ServerModel } from './types';

/** Up to this many nodes, the first frame waits (briefly) for ELK rather than showing the quick layout. */
const WAIT_FOR_ELK_MAX = 400;
const ELK_WAIT_MS = 1200;
/** Above this, only nodes on screen are in the DOM (reference/stack.md §7: ~2× faster first render at 1–2k nodes). */
const VISIBLE_ONLY_FROM = 400;
/** Up to this many nodes a late ELK layout refits the first view; beyond, the view stays where it is. */
const FIT_MAX = 600;
/** Relevant nodes the first view considers (readable.ts firstView). */
const FOCUS_MAX = 200;
/** Before a big graph's first layout: the top left, at a readable zoom. */
const BIG_START = { x: 24, y: 24, zoom: 0.8 } as const;
/**
 * Above this many nodes the dotted background is left out: its SVG pattern
 * covers the whole pane and is repainted on every pan/zoom frame, a cost
 * that decoration does not earn when thousands of nodes are being moved.
 */
const BACKGROUND_MAX = 400;

export interface GraphCanvasApi {
  /** Select a node and centre on it; a node folded into a bucket is taken out of it first. Returns false when the node is not in the model. */
  reveal(id: string, opts?: { select?: boolean; focus?: boolean }): boolean;
  fit(): void;
  /** Pan (not zoom) so the node is on screen, if it is not. */
  ensureVisible(id: string): void;
  /** Programmatic pan and zoom (restoring a view; the benchmark's pan frames). */
  setViewport(v: { x: number; y: number; zoom: number }): void;
  getViewport(): { x: number; y: number; zoom: number };
}

export interface GraphCanvasProps {
  model: GraphModel;
  budget?: number;
  selectedId?: string | null;
  /** Model node ids to emphasise (a claim's subtree); the rest is dimmed. */
  highlight?: ReadonlySet<string> | null;
  onSelect?: (id: string | null) => void;
  /** Click or Enter on a node. */
  onOpen?: (id: string) => void;
  /** Escape on a node. */
  onClose?: () => void;
  apiRef?: Ref<GraphCanvasApi>;
  ariaLabel?: string;
  /** Shown instead of the canvas when the model has no node. */
  emptyText?: string;
  /** A bucket the server counted was clicked: fetch it and pass a model with it opened. */
  onOpenRemote?: (bucketId: string) => void;
  /** Namespaces with more nodes than this start folded (readable.ts initialCollapsed); the benchmark draws them all. */
  foldFrom?: number;
}

/** Models made from one server view (its buckets opened, filters) are the same graph: the viewport stays. */
const graphOf = (m: GraphModel) => (m as ServerModel).origin ?? m;

export function GraphCanvas(props: GraphCanvasProps) {
  // Nodes reach the canvas through one stable object (no node re-renders); the canvas fills in what it does.
  const handlers = useRef<GraphActions | null>(null);
  const actions = useMemo<GraphActions>(() => ({ toggleGroup: (group) => handlers.current?.toggleGroup(group) }), []);
  return (
    <ReactFlowProvider>
      <GraphActionsContext.Provider value={actions}>
        <Canvas {...props} handlers={handlers} />
      </GraphActionsContext.Provider>
    </ReactFlowProvider>
  );
}

type Progress = { req: LayoutRequest; state: 'running' | 'done' | 'failed'; done: number; total: number; error?: string };
const EMPTY: ReadonlySet<string> = new Set();
const NO_NODES: FlowNode[] = [];

function Canvas({ model, budget = DEFAULT_BUDGET, selectedId = null, highlight = null, onSelect, onOpen, onClose, apiRef, ariaLabel, emptyText, onOpenRemote, foldFrom = COLLAPSE_FROM, handlers }: GraphCanvasProps & { handlers: RefObject<GraphActions | null> }) {
  const rf = useReactFlow<FlowNode, FlowEdge>();
  const store = useStoreApi<FlowNode, FlowEdge>();
  const wrapper = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(EMPTY);
  const [pinned, setPinned] = useState<ReadonlySet<string>>(EMPTY);
  // Namespaces folded into one summary node: the big ones, at first (readable.ts initialCollapsed).
  const [shut, setShut] = useState<ReadonlySet<string>>(() => initialCollapsed(model, selectedId, foldFrom));
  // A new model (other filters, generation) starts folded again.
  const [foldedFor, setFoldedFor] = useState(model);
  if (foldedFor !== model) {
    setFoldedFor(model);
    setExpanded(EMPTY);
    setPinned(EMPTY);
    setShut(graphOf(foldedFor) === graphOf(model) ? shut : initialCollapsed(model, selectedId, foldFrom));
  }

  const budgeted = useMemo(() => foldGroups(applyBudget(model, { budget, pinned, expanded }), shut), [model, budget, pinned, expanded, shut]);
  const budgetedRef = useRef(budgeted);
  budgetedRef.current = budgeted;
  const req = useMemo(() => toLayoutRequest(budgeted), [budgeted]);
  const quick = useMemo(() => quickLayout(req), [req]);
  const [elk, setElk] = useState<{ req: LayoutRequest; result: LayoutResult } | null>(null);
  const [quickAllowed, setQuickAllowed] = useState<LayoutRequest | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const client = useRef<LayoutClient | null>(null);
  // The worker starts during the first render, so elkjs loads while the quick layout is drawn (ELK's layout
  // arrives ~0.3 s sooner); the effect below, after the first paint, only posts the request to it.
  if (client.current === null && typeof window !== 'undefined' && req.nodes.length > 0) {
    client.current = new LayoutClient();
    client.current.warm();
  }

  useEffect(() => {
    if (req.nodes.length === 0) return;
    const c = (client.current ??= new LayoutClient());
    let live = true;
    setProgress({ req, state: 'running', done: 0, total: req.nodes.length });
    const timer = req.nodes.length <= WAIT_FOR_ELK_MAX ? setTimeout(() => live && setQuickAllowed(req), ELK_WAIT_MS) : undefined;
    c.run(req, (done, total) => live && setProgress({ req, state: 'running', done, total })).then(
      (result) => {
        if (!live) return;
        setElk({ req, result });
        setProgress({ req, state: 'done', done: req.nodes.length, total: req.nodes.length });
      },
      (e: unknown) => {
        if (!live || e instanceof LayoutCancelled) return;
        // The quick layout stays: a worse picture beats none.
        setProgress({ req, state: 'failed', done: 0, total: req.nodes.length, error: e instanceof Error ? e.message : String(e) });
        setQuickAllowed(req);
      },
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [req]);
  useEffect(() => () => client.current?.dispose(), []);

  const layout = elk?.req === req ? elk.result : req.nodes.length > WAIT_FOR_ELK_MAX || quickAllowed === req ? quick : null;
  const flow = useMemo(() => (layout ? toFlow(budgeted, req, layout) : null), [budgeted, req, layout]);

  // ---- highlight and selection decorate the nodes without rebuilding them
  const shownHighlight = useMemo(() => {
    if (!highlight) return null;
    const shown = new Set<string>();
    for (const id of highlight) {
      const b = budgeted.bucketOf.get(id);
      shown.add(b ?? id);
    }
    return shown;
  }, [highlight, budgeted]);
  const decor = useRef({ selectedId, shownHighlight });
  decor.current = { selectedId, shownHighlight };

  // Nodes come with their sizes and handles (flow.ts), so React Flow never sends dimension changes to apply:
  // the nodes are derived, there from the very first render (no empty pass), and a selection copies only the
  // one or two nodes it changes; React Flow keeps the others (same objects) as they are.
  const nodes = useMemo(() => (flow ? decorate(flow.nodes, selectedId, shownHighlight) : NO_NODES), [flow, selectedId, shownHighlight]);
  const edges = useMemo(() => {
    if (!flow) return [];
    if (!shownHighlight) return flow.edges;
    return flow.edges.map((e) => (shownHighlight.has(e.source) && shownHighlight.has(e.target) ? { ...e, className: `${e.className} is-hl` } : { ...e, className: `${e.className} is-dim` }));
  }, [flow, shownHighlight]);

  // ---- viewport: fit new models, keep the user's view otherwise
  const fittedFor = useRef<{ model: GraphModel; engine: LayoutResult['engine'] } | null>(null);
  const userMoved = useRef(false);
  const pending = useRef<{ id: string; select: boolean; focus: boolean } | null>(null);
  const flowRef = useRef<FlowGraph | null>(null);
  flowRef.current = flow;

  /** Whether a point of the graph is inside the visible pane (with a margin). */
  const onScreen = useCallback(
    (c: { x: number; y: number }) => {
      const { transform, width, height } = store.getState();
      const sx = c.x * transform[2] + transform[0];
      const sy = c.y * transform[2] + transform[1];
      return sx > 80 && sy > 40 && sx < width - 80 && sy < height - 40;
    },
    [store],
  );

  const centre = useCallback(
    (id: string, select: boolean, focus: boolean) => {
      const c = flowRef.current?.centres.get(id);
      if (!c) return false;
      if (select) onSelect?.(id);
      // Someone asked for this node: a late refit (ELK replacing the quick layout) must not take it away.
      userMoved.current = true;
      void rf.setCenter(c.x, c.y, { zoom: Math.max(rf.getZoom(), 0.9), duration: 200 }).then(() => focus && focusNodeElement(wrapper.current, id));
      return true;
    },
    [rf, onSelect],
  );

  /** Where a shown node (or the node standing for it) is, as a box in graph units. */
  const rectOf = useCallback(
    (id: string): Rect | null => {
      const f = flowRef.current;
      const shownId = f?.centres.has(id) ? id : budgeted.bucketOf.get(id);
      const c = shownId ? f?.centres.get(shownId) : undefined;
      const size = shownId ? req.nodes.find((n) => n.id === shownId) : undefined;
      return c && size ? { x: c.x - size.width / 2, y: c.y - size.height / 2, width: size.width, height: size.height } : null;
    },
    [budgeted, req],
  );

  /**
   * The first view (readable.ts firstView): the whole graph if it fits with
   * labels of 12 px or more; else the selected node, the changes or the
   * problems, else the first namespace, at a readable zoom. "Fit all" and
   * zooming out show the rest.
   */
  const fitReadable = useCallback(
    (l: LayoutResult) => {
      const { width, height } = store.getState();
      if (!width || !height || l.groups.length === 0) return void rf.fitView({ padding: 0.08, maxZoom: 1.1 });
      const kinds = new Map(budgeted.groups.map((g) => [g.id, g.kind]));
      const focus: Rect[] = [];
      // The first view shows the few that fit together: a revision that changes thousands needs no more boxes than that.
      for (const id of relevantNodes(budgeted.nodes, decor.current.selectedId).slice(0, FOCUS_MAX)) {
        const r = rectOf(id);
        if (r) focus.push(r);
      }
      const v = firstView({ pane: { width, height }, groups: l.groups.map((g) => ({ ...g, kind: kinds.get(g.id) })), focus });
      void rf.setViewport({ x: v.x, y: v.y, zoom: v.zoom });
    },
    [rf, store, budgeted, rectOf],
  );

  useEffect(() => {
    if (!flow || !layout) return;
    const f = fittedFor.current;
    const newModel = !f || graphOf(f.model) !== graphOf(model);
    // A small graph first drawn with the quick layout is refitted when ELK's arrives, unless the user moved meanwhile.
    const refit = !newModel && f?.engine === 'quick' && layout.engine === 'elk' && flow.nodes.length <= FIT_MAX && !userMoved.current;
    if (newModel || refit) {
      fittedFor.current = { model, engine: layout.engine };
      userMoved.current = false;
      fitReadable(layout);
    } else if (f) {
      f.engine = layout.engine;
    }
    const p = pending.current;
    if (p && (flow.centres.has(p.id) || budgeted.bucketOf.has(p.id))) {
      pending.current = null;
      centre(flow.centres.has(p.id) ? p.id : budgeted.bucketOf.get(p.id)!, p.select, p.focus);
    } else if (!p && layout.engine === 'elk' && decor.current.selectedId && !newModel && !refit) {
      // Positions moved under the selection: keep it in view.
      const c = flow.centres.get(decor.current.selectedId);
      if (c) void rf.setCenter(c.x, c.y, { zoom: rf.getZoom() });
    }
  }, [flow, layout, model, rf, budgeted, centre, fitReadable]);

  const onMoveStart: OnMoveStart = useCallback((event) => {
    if (event) userMoved.current = true;
  }, []);

  useImperativeHandle(
    apiRef,
    () => ({
      reveal(id, opts) {
        const select = opts?.select ?? true;
        const focus = opts?.focus ?? true;
        const node = model.nodes.find((n) => n.id === id);
        if (!node) return false;
        if (shut.has(node.group)) {
          setShut((prev) => without(prev, node.group));
          pending.current = { id, select, focus };
          if (select) onSelect?.(id);
          return true;
        }
        if (budgeted.bucketOf.has(id)) {
          setPinned((prev) => new Set(prev).add(id));
          pending.current = { id, select, focus };
          if (select) onSelect?.(id);
          return true;
        }
        if (!centre(id, select, focus)) pending.current = { id, select, focus };
        return true;
      },
      fit() {
        void rf.fitView({ padding: 0.08, maxZoom: 1.1, duration: 200 });
      },
      ensureVisible(id) {
        const c = flowRef.current?.centres.get(id);
        if (c && !onScreen(c)) void rf.setCenter(c.x, c.y, { zoom: rf.getZoom(), duration: 150 });
      },
      setViewport(v) {
        void rf.setViewport(v);
      },
      getViewport() {
        return rf.getViewport();
      },
    }),
    [model, budgeted, centre, rf, onSelect, onScreen, shut],
  );

  // ---- interaction
  const expand = useCallback(
    (bucketId: string) => {
      const b = budgeted.buckets.find((x) => x.id === bucketId);
      if (b?.summary) {
        setShut((prev) => without(prev, b.group));
        // Keep the eye on the namespace that opened.
        if (b.members[0]) pending.current = { id: b.members[0], select: false, focus: false };
        return;
      }
      if (b?.remote) return onOpenRemote?.(bucketId);
      setExpanded((prev) => new Set(prev).add(bucketId));
      // Keep the eye on what opened: its first member, wherever the new layout puts it.
      if (b?.members[0]) pending.current = { id: b.members[0], select: false, focus: false };
    },
    [budgeted, onOpenRemote],
  );

  const onNodeClick: NodeMouseHandler<FlowNode> = useCallback(
    (_e, node) => {
      if (node.type === 'scope') return;
      if (node.type === 'bucket') return expand(node.id);
      onSelect?.(node.id);
      onOpen?.(node.id);
    },
    [expand, onSelect, onOpen],
  );
  const onPaneClick = useCallback(() => onSelect?.(null), [onSelect]);

  const bucketTurn = useRef(0);
  const neighbours = useMemo(() => adjacency(budgeted.edges), [budgeted]);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      const el = (e.target as HTMLElement).closest<HTMLElement>('.react-flow__node');
      const id = el?.dataset.id;
      if (!id || !flowRef.current) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        if (id.startsWith('bucket:')) expand(id);
        else {
          onSelect?.(id);
          onOpen?.(id);
        }
      } else if (e.key === 'Escape') {
        onClose?.();
      } else if (DIRS[e.key]) {
        const next = step(flowRef.current, neighbours, id, DIRS[e.key]!);
        if (!next) return;
        e.preventDefault();
        if (!next.startsWith('bucket:')) onSelect?.(next);
        const c = flowRef.current.centres.get(next)!;
        if (!onScreen(c)) void rf.setCenter(c.x, c.y, { zoom: rf.getZoom() }).then(() => focusNodeElement(wrapper.current, next));
        else focusNodeElement(wrapper.current, next);
      }
    },
    [expand, neighbours, onClose, onOpen, onSelect, rf, onScreen],
  );

  useImperativeHandle(
    handlers,
    () => ({
      toggleGroup(group) {
        const g = budgetedRef.current;
        const summary = g.buckets.find((b) => b.id === foldId(group));
        setShut((prev) => (prev.has(group) ? without(prev, group) : new Set(prev).add(group)));
        // Keep the eye on the namespace: its summary node, or its first node, wherever the new layout puts them.
        const next = summary ? summary.members[0] : foldId(group);
        if (next) pending.current = { id: next, select: false, focus: false };
      },
    }),
    [],
  );

  // ---- the side panel (or a window resize) changes the canvas's size: what was on screen is fitted into the new size
  const paneWidth = useStore((s) => s.width);
  const paneHeight = useStore((s) => s.height);
  const paneBefore = useRef<{ width: number; height: number } | null>(null);
  useEffect(() => {
    const before = paneBefore.current;
    paneBefore.current = { width: paneWidth, height: paneHeight };
    if (!before || !before.width || !before.height || !paneWidth || !paneHeight || !flowRef.current) return;
    if (before.width === paneWidth && before.height === paneHeight) return;
    const sel = decor.current.selectedId;
    const v = refitAfterResize(rf.getViewport(), before, { width: paneWidth, height: paneHeight }, sel ? rectOf(sel) : null);
    // At once: the panel's own "keep the opened node in view" (graph-explorer) then starts from the new view, not from a half-run animation.
    void rf.setViewport(v);
  }, [paneWidth, paneHeight, rf, rectOf]);

  // Level of detail: below the zoom where a full label is under 12 px, nodes show their short names, larger.
  const far = useStore((s) => lodFor(s.transform[2]) === 'short');
  useMotionLayer(wrapper, store);

  if (model.nodes.length === 0) {
    return (
      <div className="graph-canvas graph-canvas-empty" data-layout="empty">
        <p className="state-title">{emptyText ?? 'Nothing to draw.'}</p>
      </div>
    );
  }
  const running = progress?.req === req && progress.state === 'running';
  const failed = progress?.req === req && progress.state === 'failed' ? progress.error : undefined;
  return (
    <div
      ref={wrapper}
      className={`graph-canvas${far ? ' graph-far' : ''}`}
      onKeyDown={onKeyDown}
      data-layout={layout ? layout.engine : 'pending'}
      data-nodes={budgeted.nodes.length}
      data-hidden={budgeted.hidden}
    >
      <ReactFlow<FlowNode, FlowEdge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodeClick={onNodeClick}
        onPaneClick={onPaneClick}
        onMoveStart={onMoveStart}
        onlyRenderVisibleElements={nodes.length > VISIBLE_ONLY_FROM}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        elevateNodesOnSelect={false}
        deleteKeyCode={null}
        defaultViewport={nodes.length > FIT_MAX ? BIG_START : undefined}
        minZoom={0.05}
        maxZoom={2}
        aria-label={ariaLabel ?? 'Graph'}
        ariaLabelConfig={ARIA}
      >
        {nodes.length <= BACKGROUND_MAX && <Background gap={24} size={1} color="#dfe3e8" />}
        <Controls showInteractive={false} position="bottom-left" />
        {flow && <OverviewMap nodes={flow.nodes} />}
        {budgeted.hidden > 0 && (
          <Panel position="top-center" className="graph-banner" data-testid="graph-budget">
            <BudgetNote
              g={budgeted}
              budget={budget}
              onShow={() => {
                // Buckets sit at the top left of their groups, maybe off screen: visit them in turn.
                const b = budgeted.buckets[bucketTurn.current++ % budgeted.buckets.length];
                if (b) centre(b.id, false, true);
              }}
              onFold={expanded.size + pinned.size > 0 ? () => (setExpanded(EMPTY), setPinned(EMPTY)) : undefined}
            />
          </Panel>
        )}
        {(running || failed || !layout) && (
          <Panel position="top-right" className="graph-layout-status" data-testid="graph-layout-status">
            {failed ? (
              <span className="sev-warning" title={failed}>
                Simple layout: the ELK layout failed ({failed})
              </span>
            ) : (
              <Spinner
                label={
                  !layout
                    ? `Laying out ${req.nodes.length.toLocaleString('en-US')} nodes…`
                    : `Refining the layout… ${progress && progress.total ? Math.round((100 * progress.done) / progress.total) : 0}%`
                }
              />
            )}
          </Panel>
        )}
      </ReactFlow>
    </div>
  );
}

function without(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  const next = new Set(set);
  next.delete(id);
  return next;
}

const ARIA = {
  'node.a11yDescription.default': 'Press Enter to open its details, arrow keys to move to a connected node, Escape to close the details.',
} as const;

function decorate(nodes: FlowNode[], selectedId: string | null, hl: ReadonlySet<string> | null): FlowNode[] {
  let changed = false;
  const out = nodes.map((n) => {
    const selected = n.id === selectedId;
    const className = hl && n.type !== 'scope' ? (hl.has(n.id) ? 'is-hl' : 'is-dim') : undefined;
    if (!!n.selected === selected && n.className === className) return n;
    changed = true;
    return { ...n, selected, className } as FlowNode;
  });
  return changed ? out : nodes;
}
