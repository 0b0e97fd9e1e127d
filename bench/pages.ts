/**
 * What `pages.bench.ts` measures and how it sums up: the console's pages,
 * their targets (issue 37, item 8), and the figures from the timings of a
 * page's navigations. Pure, so the summing-up is tested without a browser.
 */
import { figure, median, round, type Figure } from './registry';

/** A page the benchmark opens; `target` is the budget for its ready figure, ms. */
export interface PageSpec {
  /** Figure name part: `page.<name>.ready_ms`. */
  name: string;
  path: string;
  /** What "ready" means on this page, in words (the table says it). */
  ready: string;
  /** Ready = each of these matches an element that is laid out (has a box). */
  selectors: readonly string[];
  target: number;
}

export const PAGE_TARGET_MS = 1000;
export const EDITOR_TARGET_MS = 1500;
export const GRAPH_TARGET_MS = 2000;
export const PREVIEW_TARGET_MS = 500;

/** The demo's objects these pages show (server/seed/demo.ts). */
export const PAGES: readonly PageSpec[] = [
  { name: 'objects', path: '/objects', ready: 'objects table rows', selectors: ['[data-testid="objects-table"] tbody tr'], target: PAGE_TARGET_MS },
  { name: 'editor', path: '/objects/bundle/platform/zookeeper', ready: 'Monaco model ready and a keystroke landed', selectors: ['[data-testid="yaml-editor"] .view-lines .view-line'], target: EDITOR_TARGET_MS },
  { name: 'revision', path: '/revisions/1', ready: 'status and plan rows', selectors: ['[data-testid="revision-status"]', '[data-testid="plan-pages"] tbody tr'], target: PAGE_TARGET_MS },
  { name: 'graph_policy', path: '/graphs?view=policy', ready: "ELK's layout on screen", selectors: ['.graph-canvas[data-layout="elk"] .react-flow__node'], target: GRAPH_TARGET_MS },
  { name: 'graph_desired', path: '/graphs?view=desired', ready: "ELK's layout on screen", selectors: ['.graph-canvas[data-layout="elk"] .react-flow__node'], target: GRAPH_TARGET_MS },
  { name: 'installations', path: '/installations', ready: 'scope graph with its installations', selectors: ['[data-testid="scope-graph"] [data-testid="installation-database"]'], target: PAGE_TARGET_MS },
  { name: 'dm_layout', path: '/deployments/web/hello', ready: "the deployment's layout", selectors: ['[data-testid="dm-layout"] [data-testid="layout-frontend"]'], target: PAGE_TARGET_MS },
  { name: 'tenants', path: '/tenants', ready: 'tenants table rows', selectors: ['[data-testid="tenants-table"] tbody tr'], target: PAGE_TARGET_MS },
  { name: 'rest_docs', path: '/api/1.0-beta/docs', ready: "the reference's operation groups", selectors: ['[data-tag] h2'], target: PAGE_TARGET_MS },
];

/** One page's timings: the first (cold) navigation, then the warm ones. */
export interface PageTimings {
  name: string;
  target: number;
  /** ms from navigation start to ready, in the order measured; the first is the cold one. */
  samples: readonly number[];
}

export interface PageSummary {
  name: string;
  target: number;
  cold: number;
  /** Median of the warm samples (all but the first). */
  warm: number;
  met: boolean;
}

/** Cold = the first navigation; warm = the median of the rest (the figure the target applies to). */
export function summarize(t: PageTimings): PageSummary {
  if (t.samples.length < 2) throw new Error(`page ${t.name}: need a cold and at least one warm navigation, got ${t.samples.length}`);
  const [cold, ...warm] = t.samples;
  const w = median(warm);
  return { name: t.name, target: t.target, cold: round(cold!, 0), warm: round(w, 0), met: w <= t.target };
}

/**
 * The figure lines: `page.<name>.ready_ms` (warm median) and
 * `page.<name>.cold_ms` for each page, `page.preview.answer_ms` for the
 * preview (its own name: it is an answer, not a page being ready).
 */
export function pageFigures(summaries: readonly PageSummary[]): Figure[] {
  const out: Figure[] = [];
  for (const s of summaries) {
    const kind = s.name === 'preview' ? 'answer' : 'ready';
    out.push(figure(`page.${s.name}.${kind}_ms`, s.warm), figure(`page.${s.name}.cold_ms`, s.cold));
  }
  return out;
}

/** The table the benchmark prints: one row per page, with its target and whether the warm median meets it. */
export function pagesTable(summaries: readonly PageSummary[]): (string | number)[][] {
  return [['page', 'cold ms', 'warm median ms', 'target ms', 'met'], ...summaries.map((s) => [s.name, s.cold, s.warm, s.target, s.met ? 'yes' : 'NO'])];
}
