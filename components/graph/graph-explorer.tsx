'use client';
/**
 * The Graphs page: the policy graph or the desired-state graph of any
 * generation, optionally compared with another generation or overlaid
 * with a revision's impact and the actual state; filters, search, and the
 * side panel. The URL holds what to show (view, generation, compare,
 * revision, node), so any graph can be linked to.
 */
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { decodeView } from '@/server/engine/graph/view';
import { ErrorState, LoadingState } from '../ui/states';
import { BUDGET_CHOICES, DEFAULT_BUDGET } from './budget';
import { GraphCanvas, type GraphCanvasApi } from './graph-canvas';
import { prestartLayoutWorker } from './layout-client';
import { adjacency, compareModels, downstream, facets, filterModel, openBucket, searchNodes } from './model';
import { GraphPanel } from './side-panel';
import { NO_FILTERS, type GraphFilters, type GraphModel, type GraphNode, type GraphView, type NodeOf, type ServerModel } from './types';

const EMPTY_MODEL: GraphModel = { nodes: [], edges: [], groups: [] };

function num(v: string | null): number | undefined {
  return v !== null && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** What the URL asks for. */
interface Target {
  view: GraphView;
  generation?: number;
  compare?: number;
  revision?: number;
  node?: string;
}

export function GraphExplorer() {
  // ELK loads while the graph is fetched, not after it arrives.
  useEffect(prestartLayoutWorker, []);
  const params = useSearchParams();
  const target: Target = {
    view: params.get('view') === 'desired' ? 'desired' : 'policy',
    generation: num(params.get('generation')),
    compare: num(params.get('compare')),
    revision: num(params.get('revision')),
    node: params.get('node') ?? undefined,
  };
  const data = useGraphData(target);
  return (
    <>
      <Header target={target} data={data} />
      {data.status === 'pending' ? (
        <LoadingState label="Loading the graph…" />
      ) : data.status === 'error' ? (
        <ErrorState error={data.error} retry={data.retry} />
      ) : (
        // A new graph starts with fresh filters, selection and panel.
        <Explorer key={`${target.view}|${data.generation}|${data.compareWith ?? ''}|${target.revision ?? ''}`} target={target} data={data} />
      )}
    </>
  );
}

// ---------------------------------------------------------------- data

type GraphData =
  | { status: 'pending' }
  | { status: 'error'; error: unknown; retry: () => void }
  | {
      status: 'success';
      model: ServerModel;
      /** The desired-state view the server budgeted: what to ask when one of its buckets opens, and how big it is in all. */
      view?: { input: { generation?: number; revisionId?: number }; budget: number; total: number; sent: number };
      generation: number;
      /** The older generation compared against (compare, or a revision's base in the policy view). */
      compareWith?: number;
      /** Who owns each claim (`ns/name` → user). */
      claimUsers: Map<string, string>;
      revision?: { id: number; generation: number; base: number | null; baseGeneration: number | null };
    };

function useGraphData(t: Target): GraphData {
  const trpc = useTRPC();
  const isPolicy = t.view === 'policy';
  // A revision's impact: on the desired state the server overlays it; on the policy we compare its generation with its base's.
  // skipToken, not a placeholder input: a disabled query with the same key as an enabled one would read its data.
  const rev = useQuery(trpc.revisions.get.queryOptions(t.revision !== undefined ? { id: t.revision } : skipToken));
  const baseId = rev.data?.revision.baseRevisionId ?? null;
  const baseRev = useQuery(trpc.revisions.get.queryOptions(baseId !== null ? { id: baseId } : skipToken));
  const revGeneration = rev.data?.revision.generation;
  const baseGeneration = baseRev.data?.revision.generation ?? null;

  const generation = t.revision !== undefined ? revGeneration : t.generation;
  const policyReady = isPolicy && (t.revision === undefined || (rev.isSuccess && (baseId === null || baseRev.isSuccess)));
  const policyAfter = useQuery(trpc.graphs.policy.queryOptions(policyReady ? { generation } : skipToken));
  const compareGen = t.revision !== undefined ? (isPolicy ? (baseGeneration ?? undefined) : undefined) : t.compare;
  const policyBefore = useQuery(trpc.graphs.policy.queryOptions(policyReady && compareGen !== undefined ? { generation: compareGen } : skipToken));

  // The desired state comes budgeted and compact (≤ 2 MB whatever its size); what it left out is counted in buckets opened on demand.
  const desiredInput = isPolicy ? undefined : t.revision !== undefined ? { revisionId: t.revision } : { generation: t.generation };
  const desiredAfter = useQuery(trpc.graphs.desiredView.queryOptions(desiredInput ?? skipToken));
  const desiredBefore = useQuery(trpc.graphs.desiredView.queryOptions(!isPolicy && t.revision === undefined && t.compare !== undefined ? { generation: t.compare } : skipToken));
  // A fresh origin per answer: models derived from it (filters, opened buckets) are the same graph to the canvas.
  const desiredAfterModel = useMemo<ServerModel | undefined>(() => (desiredAfter.data ? { ...decodeView(desiredAfter.data.graph), origin: {} } : undefined), [desiredAfter.data]);
  const desiredBeforeModel = useMemo<ServerModel | undefined>(() => (desiredBefore.data ? decodeView(desiredBefore.data.graph) : undefined), [desiredBefore.data]);
  const shownGeneration = isPolicy ? policyAfter.data?.generation : desiredAfter.data?.generation;
  // The desired graph has no claim nodes: owners come from the claims list.
  const claims = useQuery(trpc.resolution.claims.queryOptions(!isPolicy && shownGeneration !== undefined ? { generation: shownGeneration } : skipToken));

  const after = isPolicy ? policyAfter : desiredAfter;
  const before = isPolicy ? policyBefore : desiredBefore;
  const wantsBefore = isPolicy ? (t.revision !== undefined ? policyReady : compareGen !== undefined) : t.revision === undefined && t.compare !== undefined;

  const afterModel = useMemo<ServerModel | undefined>(
    () => (isPolicy ? (policyAfter.data ? { nodes: policyAfter.data.nodes, edges: policyAfter.data.edges, groups: policyAfter.data.groups } : undefined) : desiredAfterModel),
    [isPolicy, policyAfter.data, desiredAfterModel],
  );
  const beforeModel = useMemo<ServerModel | undefined>(
    () => (isPolicy ? (policyBefore.data ? { nodes: policyBefore.data.nodes, edges: policyBefore.data.edges, groups: policyBefore.data.groups } : undefined) : desiredBeforeModel),
    [isPolicy, policyBefore.data, desiredBeforeModel],
  );
  const model = useMemo(() => {
    if (!afterModel) return undefined;
    if (!wantsBefore) return afterModel;
    // A revision against an empty deployment compares with nothing: everything is added.
    if (isPolicy && t.revision !== undefined && baseId === null) return compareModels(EMPTY_MODEL, afterModel);
    if (!beforeModel) return undefined;
    return compareModels(beforeModel, afterModel);
  }, [afterModel, beforeModel, wantsBefore, isPolicy, t.revision, baseId]);

  const claimUsers = useMemo(() => {
    const m = new Map<string, string>();
    if (isPolicy) for (const n of model?.nodes ?? []) if (n.kind === 'claim') m.set(`${n.namespace}/${n.name}`, n.user);
    for (const c of claims.data?.claims ?? []) m.set(`${c.namespace}/${c.name}`, c.user);
    return m;
  }, [isPolicy, model, claims.data]);

  const failed = [rev, baseRev, after, before, claims].find((q) => q.isError);
  if (failed) return { status: 'error', error: failed.error, retry: () => void failed.refetch() };
  if (!model || after.data === undefined) return { status: 'pending' };
  const revision =
    t.revision !== undefined && rev.data
      ? { id: t.revision, generation: rev.data.revision.generation, base: baseId, baseGeneration }
      : undefined;
  const view = !isPolicy && desiredAfter.data && desiredInput
    ? { input: desiredInput, budget: desiredAfter.data.budget, total: desiredAfter.data.total, sent: desiredAfter.data.sent }
    : undefined;
  return {
    status: 'success',
    model,
    view,
    generation: after.data.generation,
    compareWith: wantsBefore ? (compareGen ?? undefined) : undefined,
    claimUsers,
    revision,
  };
}

// ---------------------------------------------------------------- header: view and time travel

function Header({ target, data }: { target: Target; data: GraphData }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const gens = useQuery(trpc.policy.generations.queryOptions({ limit: 200 }));
  const go = (change: Record<string, string | undefined>) => {
    const q = new URLSearchParams(params.toString());
    q.delete('node');
    for (const [k, v] of Object.entries(change)) (v === undefined || v === '' ? q.delete(k) : q.set(k, v));
    router.replace(`${pathname}?${q.toString()}`, { scroll: false });
  };
  const shown = data.status === 'success' ? data.generation : undefined;
  const options = gens.data ?? [];
  return (
    <div className="page-head">
      <div>
        <h1>Graphs</h1>
        <p>
          {target.view === 'policy'
            ? 'Users → claims → services → contexts → bundles → components, by namespace.'
            : 'Instances of the desired state and their dependencies, by cluster and Kubernetes namespace.'}
          {data.status === 'success' && data.revision && (
            <>
              {' '}
              Impact of <Link href={`/revisions/${data.revision.id}`}>revision #{data.revision.id}</Link> (generation {data.revision.generation}, against{' '}
              {data.revision.base ? `revision #${data.revision.base}` : 'an empty deployment'}).
            </>
          )}
        </p>
      </div>
      <div className="actions">
        <div className="segmented" role="group" aria-label="Graph">
          <button type="button" className="btn" aria-pressed={target.view === 'policy'} onClick={() => go({ view: 'policy' })}>
            Policy
          </button>
          <button type="button" className="btn" aria-pressed={target.view === 'desired'} onClick={() => go({ view: 'desired' })}>
            Desired state
          </button>
        </div>
        {target.revision !== undefined ? (
          <button type="button" className="btn" onClick={() => go({ revision: undefined, generation: shown !== undefined ? String(shown) : undefined })}>
            Leave revision #{target.revision}
          </button>
        ) : (
          <>
            <label htmlFor="graph-generation" style={{ margin: 0 }}>
              Generation
            </label>
            <select id="graph-generation" value={target.generation ?? ''} onChange={(e) => go({ generation: e.target.value })} disabled={!gens.data}>
              <option value="">newest{options[0] ? ` (${options[0].generation})` : ''}</option>
              {options.map((g) => (
                <option key={g.generation} value={g.generation}>
                  {g.generation} · {g.message || g.author}
                </option>
              ))}
            </select>
            <label htmlFor="graph-compare" style={{ margin: 0 }}>
              compared with
            </label>
            <select id="graph-compare" value={target.compare ?? ''} onChange={(e) => go({ compare: e.target.value })} disabled={!gens.data}>
              <option value="">—</option>
              {options.map((g) => (
                <option key={g.generation} value={g.generation}>
                  {g.generation}
                </option>
              ))}
              <option value="0">0 (empty)</option>
            </select>
          </>
        )}
      </div>
    </div>
  );
}

// ---------------------------------------------------------------- the explorer

function Explorer({ target, data }: { target: Target; data: Extract<GraphData, { status: 'success' }> }) {
  const { claimUsers } = data;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Buckets of the server's budgeted view opened so far (this Explorer is keyed by the graph shown, so a new graph starts folded).
  const [opened, setOpened] = useState<{ base: ServerModel; model: ServerModel } | null>(null);
  const model = opened && opened.base === data.model ? opened.model : data.model;
  const [opening, setOpening] = useState<{ id: string; error?: string } | null>(null);
  const view = data.view;
  const isPolicy = target.view === 'policy';
  const [filters, setFilters] = useState<GraphFilters>(NO_FILTERS);
  const [budget, setBudget] = useState(DEFAULT_BUDGET);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const [highlightClaim, setHighlightClaim] = useState<string | null>(null);
  const hasOverlay = useMemo(() => model.nodes.some((n) => n.overlay), [model]);
  const hasActual = useMemo(() => model.nodes.some((n) => n.kind === 'instance' && n.actual), [model]);
  const [showOverlay, setShowOverlay] = useState(true);
  const [showActual, setShowActual] = useState(true);
  const api = useRef<GraphCanvasApi>(null);

  // ---- a bucket the server counted: a second request (bounded: its members when few, else smaller buckets)
  const revealAfterOpen = useRef<string | null>(null);
  const onOpenRemote = useCallback(
    (bucket: string) => {
      if (!view) return;
      setOpening({ id: bucket });
      queryClient.fetchQuery(trpc.graphs.desiredBucket.queryOptions({ ...view.input, budget: view.budget, bucket })).then(
        (r) => {
          const answer = decodeView(r.graph);
          setOpened((prev) => {
            const current = prev && prev.base === data.model ? prev.model : data.model;
            return { base: data.model, model: openBucket(current, bucket, answer) };
          });
          // Keep the eye on what opened: its first member, or its first part.
          revealAfterOpen.current = answer.nodes[0]?.id ?? answer.remote[0]?.id ?? null;
          setOpening(null);
        },
        (e: unknown) => setOpening({ id: bucket, error: e instanceof Error ? e.message : String(e) }),
      );
    },
    [view, queryClient, trpc, data.model],
  );
  useEffect(() => {
    const id = revealAfterOpen.current;
    if (!id) return;
    revealAfterOpen.current = null;
    if (!api.current?.reveal(id, { select: false, focus: false })) api.current?.ensureVisible(id);
  }, [model]);

  const filtered = useMemo(() => filterModel(model, filters, { claimUsers }), [model, filters, claimUsers]);
  const byId = useMemo(() => new Map(model.nodes.map((n) => [n.id, n])), [model]);
  const f = useMemo(() => facets(model), [model]);
  const claimKeys = useMemo(() => [...claimUsers.keys()].sort(), [claimUsers]);
  const users = useMemo(() => [...new Set(claimUsers.values())].sort((a, b) => a.localeCompare(b)), [claimUsers]);

  // What to emphasise: a claim's subtree (from the panel), or the selected claim's or user's in the policy graph.
  const highlight = useMemo(() => {
    const sel = selectedId ? byId.get(selectedId) : undefined;
    const claim = highlightClaim ?? (sel?.kind === 'claim' ? `${sel.namespace}/${sel.name}` : null);
    if (isPolicy) {
      const starts = claim ? [`claim:${claim}`] : sel?.kind === 'user' ? [sel.id] : [];
      if (starts.length === 0) return null;
      const set = downstream(adjacency(filtered.edges), starts);
      const owner = claim ? claimUsers.get(claim) : undefined;
      if (owner) set.add(`user:${owner.toLowerCase()}`);
      return set;
    }
    if (!claim) return null;
    return new Set(filtered.nodes.filter((n) => n.kind === 'instance' && n.claims.includes(claim)).map((n) => n.id));
  }, [selectedId, highlightClaim, byId, isPolicy, filtered, claimUsers]);

  // ---- the node from the URL (deep link), once
  const linked = useRef(false);
  useEffect(() => {
    if (linked.current || !target.node) return;
    linked.current = true;
    if (byId.has(target.node)) {
      setSelectedId(target.node);
      setOpenId(target.node);
      api.current?.reveal(target.node);
    }
  }, [target.node, byId]);
  useEffect(() => {
    // The panel narrows the canvas: keep the opened node in view once it has.
    if (!openId) return;
    const id = openId;
    const t = setTimeout(() => api.current?.ensureVisible(id), 60);
    return () => clearTimeout(t);
  }, [openId]);
  useEffect(() => {
    // Keep the opened node in the URL without a navigation (no server round trip).
    const url = new URL(window.location.href);
    if (openId) url.searchParams.set('node', openId);
    else url.searchParams.delete('node');
    window.history.replaceState(window.history.state, '', url);
  }, [openId]);

  // ---- search
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<{ q: string; ids: string[]; at: number; elsewhere: number } | null>(null);
  /** Select and centre a node; focus stays where it is (the search box, the panel). */
  const show = (id: string) => {
    setSelectedId(id);
    api.current?.reveal(id, { focus: false });
  };
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    const q = query.trim();
    if (!q) return setHits(null);
    if (hits && hits.q === q && hits.ids.length > 0) {
      const at = (hits.at + 1) % hits.ids.length;
      setHits({ ...hits, at });
      return show(hits.ids[at]!);
    }
    const found = searchNodes(filtered.nodes, q).map((n) => n.id);
    const elsewhere = found.length ? 0 : searchNodes(model.nodes, q).length;
    setHits({ q, ids: found, at: 0, elsewhere });
    if (found[0]) show(found[0]);
  };

  const setFilter = (patch: Partial<GraphFilters>) => setFilters((prev) => ({ ...prev, ...patch }));
  const anyFilter = filters.namespace || filters.claim || filters.user || filters.status || filters.changesOnly;

  const onSelect = useCallback((id: string | null) => {
    setSelectedId(id);
    if (id === null) setOpenId(null);
  }, []);
  const onOpen = useCallback((id: string) => setOpenId(id), []);
  const closePanel = useCallback(() => {
    setOpenId((id) => {
      // Back to the node the panel was about, for keyboard users.
      if (id) requestAnimationFrame(() => document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true }));
      return null;
    });
  }, []);

  const open = openId ? byId.get(openId) : undefined;
  const panelGeneration = (n: GraphNode) => (n.overlay === 'removed' ? (data.compareWith ?? data.revision?.baseGeneration ?? undefined) : data.generation);
  const claimsOfUser = useCallback(
    (user: string) => model.nodes.filter((n): n is NodeOf<'claim'> => n.kind === 'claim' && n.user.toLowerCase() === user.toLowerCase()),
    [model],
  );
  const counts = useMemo(() => countKinds(filtered.nodes), [filtered]);

  return (
    <div className={`graph-page${hasOverlay && showOverlay ? ' graph-show-overlay' : ''}${hasActual && showActual ? ' graph-show-actual' : ''}`}>
      <div className="graph-toolbar" role="toolbar" aria-label="Graph tools">
        <form onSubmit={onSearch} className="graph-search" role="search">
          <input
            type="search"
            aria-label="Search nodes"
            placeholder="Search nodes (Enter: next)"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="graph-search"
          />
          {hits && (
            <span className="muted" data-testid="graph-search-status" aria-live="polite">
              {hits.ids.length ? `${hits.at + 1} of ${hits.ids.length}` : hits.elsewhere ? `${hits.elsewhere} hidden by filters` : 'no match'}
            </span>
          )}
        </form>
        <Select label="Namespace" value={filters.namespace} onChange={(v) => setFilter({ namespace: v })} options={f.namespaces.map((x) => ({ value: x.value, label: `${x.value} (${x.count})` }))} />
        <Picker label="Claim" value={filters.claim} onChange={(v) => setFilter({ claim: v })} values={claimKeys} />
        <Picker label="User" value={filters.user} onChange={(v) => setFilter({ user: v })} values={users} />
        <Select label="Status" value={filters.status} onChange={(v) => setFilter({ status: v })} options={f.statuses.map((x) => ({ value: x.value, label: `${x.value} (${x.count})` }))} />
        {hasOverlay && (
          <label className="graph-check">
            <input type="checkbox" checked={filters.changesOnly} onChange={(e) => setFilter({ changesOnly: e.target.checked })} /> Only changes
          </label>
        )}
        {anyFilter && (
          <button type="button" className="btn btn-small" onClick={() => setFilters(NO_FILTERS)}>
            Clear filters
          </button>
        )}
        <span className="graph-toolbar-gap" />
        {hasOverlay && (
          <button type="button" className="btn btn-small" aria-pressed={showOverlay} onClick={() => setShowOverlay(!showOverlay)}>
            Changes
          </button>
        )}
        {hasActual && (
          <button type="button" className="btn btn-small" aria-pressed={showActual} onClick={() => setShowActual(!showActual)}>
            Actual state
          </button>
        )}
        <Select label="Budget" value={String(budget)} onChange={(v) => setBudget(Number(v))} options={BUDGET_CHOICES.map((b) => ({ value: String(b), label: `${b.toLocaleString('en-US')} nodes` }))} noAny />
        <button type="button" className="btn btn-small" onClick={() => api.current?.fit()}>
          Fit all
        </button>
      </div>
      <div className="graph-summary muted" data-testid="graph-summary">
        {counts}
        {view && view.total > view.sent && (
          <span data-testid="graph-server-budget">
            {' '}
            of {view.total.toLocaleString('en-US')} (the rest counted in grey groups: click one to load it)
          </span>
        )}
        {opening && (
          <span role={opening.error ? 'alert' : 'status'}>
            {' '}
            · {opening.error ? `could not open that group: ${opening.error}` : 'loading a group…'}
          </span>
        )}{' '}
        · generation {data.generation}
        {data.compareWith !== undefined && ` compared with ${data.compareWith}`}
        <Legend overlay={hasOverlay && showOverlay} actual={hasActual && showActual} policy={isPolicy} />
      </div>
      <div className={`graph-body${open ? ' with-panel' : ''}`}>
        <GraphCanvas
          model={filtered}
          budget={budget}
          selectedId={selectedId}
          highlight={highlight}
          onSelect={onSelect}
          onOpen={onOpen}
          onClose={closePanel}
          apiRef={api}
          onOpenRemote={onOpenRemote}
          ariaLabel={isPolicy ? 'Policy graph' : 'Desired-state graph'}
          emptyText={
            model.nodes.length === 0
              ? isPolicy
                ? 'This generation has no policy objects.'
                : 'No instances: nothing is claimed at this generation (or every claim failed).'
              : 'No node matches the filters.'
          }
        />
        {open && (
          <GraphPanel
            node={open}
            generation={panelGeneration(open)}
            revisionId={target.view === 'desired' ? data.revision?.id : undefined}
            claimsOfUser={claimsOfUser}
            highlightedClaim={highlightClaim}
            onHighlightClaim={setHighlightClaim}
            onSelectNode={(id) => {
              show(id);
              setOpenId(id);
            }}
            onClose={closePanel}
          />
        )}
      </div>
    </div>
  );
}

function countKinds(nodes: readonly GraphNode[]): string {
  const c = new Map<string, number>();
  for (const n of nodes) c.set(n.kind, (c.get(n.kind) ?? 0) + 1);
  const order = ['user', 'claim', 'service', 'context', 'bundle', 'component', 'instance'];
  const parts = order.filter((k) => c.has(k)).map((k) => `${c.get(k)!.toLocaleString('en-US')} ${k}${c.get(k) === 1 ? '' : 's'}`);
  return parts.length ? parts.join(', ') : 'no nodes';
}

function Select({ label, value, onChange, options, noAny }: { label: string; value: string; onChange: (v: string) => void; options: { value: string; label: string }[]; noAny?: boolean }) {
  const id = `graph-filter-${label.toLowerCase()}`;
  return (
    <span className="graph-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {!noAny && <option value="">any</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </span>
  );
}

/** Up to this many choices a select; beyond (20,000 claims), a text box with suggestions. */
const SELECT_MAX = 300;

function Picker({ label, value, onChange, values }: { label: string; value: string; onChange: (v: string) => void; values: readonly string[] }) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    // Set from outside (Clear filters): show it.
    setShown(value);
    setText(value);
  }
  const known = useMemo(() => new Set(values), [values]);
  if (values.length <= SELECT_MAX) return <Select label={label} value={value} onChange={onChange} options={values.map((v) => ({ value: v, label: v }))} />;
  const id = `graph-filter-${label.toLowerCase()}`;
  return (
    <span className="graph-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        list={`${id}-list`}
        value={text}
        placeholder={`any of ${values.length.toLocaleString('en-US')}`}
        onChange={(e) => {
          setText(e.target.value);
          // Filter once the text names one exactly (or is cleared), not on every keystroke.
          if (e.target.value === '' || known.has(e.target.value)) onChange(e.target.value);
        }}
      />
      <datalist id={`${id}-list`}>
        {values.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
    </span>
  );
}

const OVERLAY_LEGEND = ['added', 'updated', 'removed', 'unchanged'] as const;
const ACTUAL_LEGEND = ['applied', 'applying', 'failed', 'drifted', 'not-applied'] as const;

function Legend({ overlay, actual, policy }: { overlay: boolean; actual: boolean; policy: boolean }) {
  return (
    <span className="graph-legend" aria-label="Legend">
      {policy && <span className="legend-item legend-problem">rejected / failing claim</span>}
      {!policy && <span className="legend-item legend-problem">problem</span>}
      {overlay && OVERLAY_LEGEND.map((o) => <span key={o} className={`legend-item legend-${o}`}>{o}</span>)}
      {actual &&
        ACTUAL_LEGEND.map((a) => (
          <span key={a} className="legend-item">
            <span className={`gactual gactual-${a}`} /> {a.replace('-', ' ')}
          </span>
        ))}
    </span>
  );
}
