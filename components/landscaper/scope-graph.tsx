'use client';
/**
 * Landscaper installations as a scope graph: a namespace box holds its root
 * installations and the DataObjects and Targets they share; an installation
 * with subinstallations is a box holding its own scope. Export → import
 * edges show the data flow, colours the phase. Clicking an installation (or
 * choosing it in the list, by keyboard) shows its resolved imports and
 * exports, its phases and deploy items; a scope box folds shut and opens
 * again. Cycles and other errors are listed above the graph with their path.
 */
import '@xyflow/react/dist/style.css';
import { useQuery } from '@tanstack/react-query';
import { Background, Controls, Handle, MarkerType, Position, ReactFlow, ReactFlowProvider, useReactFlow, useStore, type Edge, type Node, type NodeProps, type NodeTypes, type OnMoveStart } from '@xyflow/react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { memo, useCallback, useEffect, useId, useMemo, useRef, useState, type MouseEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import type { ScopeGraphView } from '@/server/services/landscaper.types';
import { firstView, lodFor, MIN_FIRST_ZOOM, refitAfterResize, union, type Rect } from '../graph/readable';
import { objectHref } from '../objects/links';
import { Alert, EmptyState, ErrorState, LoadingState } from '../ui/states';
import { cyclePath, declaredObjectHref, placedNodes, scopeLayoutInput, type ElkNode, type PlacedNode, type ScopeItem } from './scope-layout';

type NamespaceFlowNode = Node<{ label: string }, 'namespace'>;
type InstallationFlowNode = Node<{ item: Extract<ScopeItem, { type: 'installation' }>; onToggle: (id: string) => void }, 'installation'>;
type ObjectFlowNode = Node<{ item: Extract<ScopeItem, { type: 'object' }> }, 'object'>;
type ScopeFlowNode = NamespaceFlowNode | InstallationFlowNode | ObjectFlowNode;

function Ports() {
  return (
    <>
      <Handle type="target" position={Position.Left} className="gnode-port" isConnectable={false} />
      <Handle type="source" position={Position.Right} className="gnode-port" isConnectable={false} />
    </>
  );
}

const NamespaceNode = memo(function NamespaceNode({ data }: NodeProps<NamespaceFlowNode>) {
  return (
    <div className="lscope lscope-ns" data-testid={`scope-ns-${data.label}`}>
      <div className="lscope-title">namespace {data.label} · root scope</div>
    </div>
  );
});

const stop = (e: MouseEvent) => e.stopPropagation();

/** The Installation object a node comes from: a subinstallation is instantiated by its root installation's blueprint. */
function InstallationYaml({ i }: { i: Extract<ScopeItem, { type: 'installation' }>['installation'] }) {
  const root = i.path.split('/')[0]!;
  return (
    <a className="gnode-yaml nodrag nopan" href={objectHref({ kind: 'installation', namespace: i.namespace, name: root })} onClick={stop} tabIndex={-1} aria-label={`YAML of installation ${i.namespace}/${root}`}>
      YAML
    </a>
  );
}

const InstallationNode = memo(function InstallationNode({ data }: NodeProps<InstallationFlowNode>) {
  const { item, onToggle } = data;
  const i = item.installation;
  const toggle = i.opens ? (
    <button
      type="button"
      className="lscope-toggle nodrag"
      aria-expanded={!item.collapsed}
      aria-label={`${item.collapsed ? 'Open' : 'Fold'} the scope of ${i.path}`}
      onClick={(e) => {
        e.stopPropagation();
        onToggle(i.id);
      }}
    >
      {item.collapsed ? '▸' : '▾'}
    </button>
  ) : null;
  if (item.box) {
    return (
      <div className={`lscope lscope-inst phase-${i.phase}`} data-testid={`scope-box-${i.path}`}>
        <Ports />
        <div className="lscope-title">
          {toggle} <span className="lscope-kind">installation</span> <strong>{i.name}</strong> <span className={`lphase phase-${i.phase}`}>{i.phase}</span>
          <InstallationYaml i={i} />
        </div>
      </div>
    );
  }
  return (
    <div className={`gnode lnode phase-${i.phase}${i.removed ? ' lnode-removed' : ''}`} data-testid={`installation-${i.path}`} title={[...i.errors.map((e) => e.message), ...(i.removed ? [i.phases.at(-1)?.reason ?? ''] : [])].join('\n') || undefined}>
      <Ports />
      <div className="gnode-kind">
        installation{item.collapsed ? <span className="gnode-owner"> · {item.hidden} inside</span> : null}
        {i.removed ? <span className="gnode-owner"> · removed</span> : null}
        <InstallationYaml i={i} />
      </div>
      {/* The toggle sits with the name, not the kind line: far out only the name shows, and a folded scope must still open. */}
      <div className="gnode-label">
        {toggle} {i.name}
      </div>
      <div className="gnode-sub">
        <span className={`lphase phase-${i.phase}`}>{i.phase}</span>
      </div>
    </div>
  );
});

const OBJECT_KIND = { data: 'DataObject', target: 'Target', secret: 'Secret', configmap: 'ConfigMap' } as const;

const ObjectNode = memo(function ObjectNode({ data }: NodeProps<ObjectFlowNode>) {
  const o = data.item.object;
  const kind = OBJECT_KIND[o.kind];
  const href = declaredObjectHref(o);
  return (
    <div className={`gnode lobj lobj-${o.kind}${o.origin === 'missing' ? ' lobj-missing' : ''}`} data-testid={`object-${o.id}`}>
      <Ports />
      <div className="gnode-kind">
        {kind} <span className="gnode-owner">· {o.origin}</span>
        {href ? (
          <a className="gnode-yaml nodrag nopan" href={href} onClick={stop} tabIndex={-1} aria-label={`YAML of ${kind} ${o.key}`}>
            YAML
          </a>
        ) : null}
      </div>
      <div className="gnode-label">{o.key}</div>
    </div>
  );
});

const nodeTypes: NodeTypes = { namespace: NamespaceNode, installation: InstallationNode, object: ObjectNode };

let elk: Promise<{ layout(g: unknown): Promise<unknown> }> | undefined;
/** ELK, loaded on first use: scope graphs are small, so it runs in the page. */
function loadElk() {
  return (elk ??= import('elkjs/lib/elk.bundled.js').then((m) => new m.default()));
}

function toFlow(placed: PlacedNode[], onToggle: (id: string) => void): ScopeFlowNode[] {
  return placed.map((p): ScopeFlowNode => {
    const base = { id: p.id, position: p.position, ...(p.parentId ? { parentId: p.parentId } : {}), style: { width: p.width, height: p.height }, width: p.width, height: p.height };
    if (p.item.type === 'namespace') return { ...base, type: 'namespace', data: { label: p.item.label }, selectable: false, zIndex: -2 };
    if (p.item.type === 'installation') return { ...base, type: 'installation', data: { item: p.item, onToggle }, ...(p.item.box ? { zIndex: -1 } : {}) };
    return { ...base, type: 'object', data: { item: p.item } };
  });
}

/** Pixels around the content in the first view. */
const PAD = 24;

function Canvas({ g, selected, onSelect }: { g: ScopeGraphView; selected: string | null; onSelect: (id: string | null) => void }) {
  const rf = useReactFlow<ScopeFlowNode, Edge>();
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [laid, setLaid] = useState<{ nodes: ScopeFlowNode[]; edges: Edge[] } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const toggle = useCallback((id: string) => setCollapsed((c) => (c.has(id) ? new Set([...c].filter((x) => x !== id)) : new Set([...c, id]))), []);
  const input = useMemo(() => scopeLayoutInput(g, collapsed), [g, collapsed]);
  useEffect(() => {
    let live = true;
    loadElk()
      .then((e) => e.layout(input.root))
      .then((out) => {
        if (!live) return;
        const nodes = toFlow(placedNodes(out as ElkNode, input.items), toggle);
        const edges: Edge[] = input.edges.map((e) => ({
          id: e.id,
          source: e.source,
          target: e.target,
          label: e.label,
          className: `ledge ledge-${e.kind}`,
          labelBgPadding: [6, 3] as [number, number],
          markerEnd: { type: MarkerType.ArrowClosed },
        }));
        setLaid({ nodes, edges });
        setFailed(null);
      })
      .catch((e: unknown) => live && setFailed(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [input, toggle]);
  const nodes = useMemo(() => laid?.nodes.map((n) => (n.type === 'namespace' ? n : { ...n, selected: n.id === selected })) ?? [], [laid, selected]);

  // ---- the view: readable labels, the canvas no taller than its content, refitted when the side panel narrows it
  const paneWidth = useStore((s) => s.width);
  const paneHeight = useStore((s) => s.height);
  const far = useStore((s) => lodFor(s.transform[2]) === 'short');
  const content = useMemo(() => (laid ? union(laid.nodes.filter((n) => !n.parentId).map((n) => ({ x: n.position.x, y: n.position.y, width: n.width ?? 0, height: n.height ?? 0 }))) : null), [laid]);
  // At the zoom that fits the width, the content needs this much height: the canvas is no taller (no empty band).
  const contentHeight = content && paneWidth ? Math.ceil(content.height * Math.min(1.1, Math.max(MIN_FIRST_ZOOM, (paneWidth - 2 * PAD) / content.width)) + 2 * PAD) : undefined;
  const userMoved = useRef(false);
  const paneBefore = useRef<{ width: number; height: number } | null>(null);
  useEffect(() => {
    if (!laid || !content || !paneWidth || !paneHeight) return;
    const before = paneBefore.current;
    paneBefore.current = { width: paneWidth, height: paneHeight };
    const abs = (id: string): Rect | null => {
      const n = rf.getInternalNode(id);
      return n ? { ...n.internals.positionAbsolute, width: n.width ?? 0, height: n.height ?? 0 } : null;
    };
    const keep = selected ? abs(selected) : null;
    if (userMoved.current && before) {
      if (before.width !== paneWidth || before.height !== paneHeight) void rf.setViewport(refitAfterResize(rf.getViewport(), before, { width: paneWidth, height: paneHeight }, keep));
      return;
    }
    const tops = laid.nodes.filter((n) => !n.parentId).map((n) => ({ x: n.position.x, y: n.position.y, width: n.width ?? 0, height: n.height ?? 0 }));
    const v = firstView({ pane: { width: paneWidth, height: paneHeight }, groups: tops, focus: keep ? [keep] : [], padding: PAD });
    void rf.setViewport({ x: v.x, y: v.y, zoom: v.zoom });
  }, [laid, content, paneWidth, paneHeight, selected, rf]);
  const onMoveStart: OnMoveStart = useCallback((event) => {
    if (event) userMoved.current = true;
  }, []);

  if (failed) return <Alert kind="error">The graph could not be laid out: {failed}</Alert>;
  if (!laid) return <LoadingState label="Laying out the scopes…" />;
  return (
    <div className={`graph-canvas${far ? ' graph-far' : ''}`} data-testid="scope-graph" data-nodes={nodes.length} style={contentHeight ? { maxHeight: contentHeight } : undefined}>
      <ReactFlow<ScopeFlowNode, Edge>
        nodes={nodes}
        edges={laid.edges}
        nodeTypes={nodeTypes}
        onNodeClick={(_, n) => n.type !== 'namespace' && onSelect(n.id)}
        onPaneClick={() => onSelect(null)}
        onMoveStart={onMoveStart}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        minZoom={0.1}
        maxZoom={2}
        aria-label="Scope graph"
      >
        <Background gap={24} size={1} color="#dfe3e8" />
        <Controls showInteractive={false} position="bottom-left" />
      </ReactFlow>
    </div>
  );
}

function Value({ value }: { value: unknown }) {
  return <pre className="lvalue">{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>;
}

function Values({ title, values, testId }: { title: string; values: Record<string, unknown>; testId: string }) {
  const names = Object.keys(values).sort();
  return (
    <div className="graph-panel-section" data-testid={testId}>
      <h3>{title}</h3>
      {names.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <dl className="lvalues">
          {names.map((n) => (
            <div key={n} data-testid={`${testId}-${n}`}>
              <dt>{n}</dt>
              <dd>
                <Value value={values[n]} />
              </dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

function Details({ g, id, onClose }: { g: ScopeGraphView; id: string; onClose: () => void }) {
  const inst = g.installations.find((i) => i.id === id);
  const obj = g.objects.find((o) => o.id === id);
  if (obj) {
    return (
      <aside className="graph-panel" aria-label={`Object ${obj.key}`} data-testid="scope-panel">
        <div className="graph-panel-head">
          <div>
            <p className="muted">{OBJECT_KIND[obj.kind]} · {obj.origin}</p>
            <h2>{obj.key}</h2>
            <p className="muted">in {g.scopes.find((s) => s.id === obj.scope)?.label}</p>
            {declaredObjectHref(obj) ? (
              <p>
                <a href={declaredObjectHref(obj)!}>Open its YAML</a>
              </p>
            ) : null}
          </div>
          <button type="button" className="btn btn-small" onClick={onClose}>
            Close
          </button>
        </div>
        <div className="graph-panel-section">
          <h3>Value</h3>
          {obj.value === undefined ? <p className="muted">{obj.kind === 'data' ? 'Not known: nothing wrote it.' : 'A target: its value is the Target object.'}</p> : <Value value={obj.value} />}
          {obj.truncated && <p className="muted">Cut: open the object in the editor to read it whole.</p>}
        </div>
      </aside>
    );
  }
  if (!inst) return null;
  return (
    <aside className="graph-panel" aria-label={`Installation ${inst.path}`} data-testid="scope-panel">
      <div className="graph-panel-head">
        <div>
          <p className="muted">installation · {inst.namespace}</p>
          <h2 data-testid="scope-panel-title">{inst.path}</h2>
          <p>
            <span className={`lphase phase-${inst.phase}`}>{inst.phase}</span> <PhaseFrom from={inst.phaseFrom} />
          </p>
        </div>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      {inst.errors.length > 0 && (
        <div className="graph-panel-section">
          {inst.errors.map((e, k) => (
            <Alert key={k} kind="error">
              {e.message}
              {e.cycle ? ` (cycle: ${cyclePath(e.cycle)})` : ''}
            </Alert>
          ))}
        </div>
      )}
      <Values title="Imports" values={inst.imports} testId="scope-imports" />
      <Values title="Exports" values={inst.exports} testId="scope-exports" />
      <div className="graph-panel-section">
        <h3>Events</h3>
        <ol className="graph-list" data-testid="scope-phases">
          {inst.phases.map((p, k) => (
            <li key={k}>
              <span className={`lphase phase-${p.phase}`}>{p.phase}</span> {p.reason}
            </li>
          ))}
        </ol>
      </div>
      {inst.deployItems.length > 0 && (
        <div className="graph-panel-section">
          <h3>Deploy items</h3>
          <ul className="graph-list">
            {inst.deployItems.map((d) => (
              <li key={d.name}>
                {d.name} <span className="muted">({d.type})</span> <span className={`lphase phase-${d.phase}`}>{d.phase}</span> <PhaseFrom from={d.phaseFrom} />
                {d.note ? <span className="muted"> — {d.note}</span> : null}
              </li>
            ))}
          </ul>
        </div>
      )}
    </aside>
  );
}

/** One line per problem: a cycle is reported by the run and by each installation on it, in the same words. */
function sameProblems(errors: ScopeGraphView['errors']): { message: string; installations: string[]; cycle?: string[] }[] {
  const byMessage = new Map<string, { message: string; installations: string[]; cycle?: string[] }>();
  for (const e of errors) {
    const p = byMessage.get(e.message) ?? { message: e.message, installations: [], ...(e.cycle ? { cycle: e.cycle } : {}) };
    if (e.installation && !p.installations.includes(e.installation)) p.installations.push(e.installation);
    p.cycle ??= e.cycle;
    byMessage.set(e.message, p);
  }
  return [...byMessage.values()];
}

export function ScopeGraph() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const namespace = params.get('namespace') ?? '';
  const selected = params.get('node');
  const nsId = useId();
  const all = useQuery(trpc.landscaper.scopes.queryOptions({}));
  const q = useQuery(trpc.landscaper.scopes.queryOptions(namespace ? { namespace } : {}));
  const setParam = (name: string, value: string | null) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(name, value);
    else next.delete(name);
    router.replace(`${pathname}${next.size ? `?${next}` : ''}`, { scroll: false });
  };
  const namespaces = useMemo(() => [...new Set(all.data?.installations.map((i) => i.namespace) ?? [])].sort(), [all.data]);

  if (q.isPending) return <LoadingState label="Running the installations…" />;
  if (q.isError) return <ErrorState error={q.error} retry={() => void q.refetch()} />;
  const g = q.data;
  const problems = sameProblems(g.errors);
  return (
    <div className="graph-page">
      <div className="graph-toolbar">
        <span className="graph-field">
          <label htmlFor={nsId}>Namespace</label>
          <select id={nsId} value={namespace} onChange={(e) => setParam('namespace', e.target.value || null)} data-testid="scope-namespace">
            <option value="">all</option>
            {namespaces.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </span>
        <span className="graph-summary muted" data-testid="scope-summary">
          {g.installations.length} installation{g.installations.length === 1 ? '' : 's'} in {g.scopes.length} scope{g.scopes.length === 1 ? '' : 's'} · generation {g.generation}
        </span>
      </div>
      {problems.length > 0 && (
        <div data-testid="scope-errors">
          {problems.map((e, k) => (
            <Alert key={k} kind="error">
              {e.installations.length > 0 ? <strong>{e.installations.join(', ')}: </strong> : null}
              {e.message}
              {e.cycle ? (
                <>
                  {' '}
                  — cycle: <span data-testid="scope-cycle">{cyclePath(e.cycle)}</span>
                </>
              ) : null}
            </Alert>
          ))}
        </div>
      )}
      {g.installations.length === 0 ? (
        <EmptyState title="No installations">
          Landscaper Installations you add (Objects → New, or <code>keelson apply</code>) appear here with their scopes and data flow.
        </EmptyState>
      ) : (
        <div className={`graph-body${selected ? ' with-panel' : ''}`}>
          <div className="lscope-main">
            <ReactFlowProvider>
              <Canvas g={g} selected={selected} onSelect={(id) => setParam('node', id)} />
            </ReactFlowProvider>
            <details className="lscope-list">
              <summary>Installations in run order</summary>
              <ol data-testid="scope-order">
                {g.order.map((id) => {
                  const i = g.installations.find((x) => x.id === id)!;
                  return (
                    <li key={id}>
                      <button type="button" className="link-button" onClick={() => setParam('node', id)}>
                        {i.path}
                      </button>{' '}
                      <span className={`lphase phase-${i.phase}`}>{i.phase}</span>
                    </li>
                  );
                })}
              </ol>
            </details>
          </div>
          {selected && <Details g={g} id={selected} onClose={() => setParam('node', null)} />}
        </div>
      )}
    </div>
  );
}

/** Whether a phase is what the install engine simulated (its mock deployer) or what the revision and the apply say. */
function PhaseFrom({ from }: { from?: 'simulated' | 'applied' }) {
  if (!from) return null;
  return (
    <span className="muted" data-testid="phase-from" title={from === 'simulated' ? 'computed by the install engine offline; deploy items by its mock deployer, nothing of it deployed by Keelson' : 'follows the revision that deploys it and the apply'}>
      {from === 'simulated' ? '(simulated by the mock deployer)' : '(from the revision and the apply)'}
    </span>
  );
}
