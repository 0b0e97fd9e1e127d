'use client';
/**
 * Lazy, client-only entry points for the editors: Monaco (~several MB) loads
 * only on pages that show an editor, and never during server rendering.
 */
import dynamic from 'next/dynamic';
import { Spinner } from '../ui/spinner';
import type { DiffEditorProps, YamlEditorProps } from './types';

export type { DiffEditorProps, EditorProblem, ServerMarker, YamlEditorProps } from './types';
export { modelUriFor, newObjectUri } from './uri';

const Loading = ({ height }: { height?: number | string }) => (
  <div className="editor-host editor-loading" style={{ height: height ?? 480 }}>
    <Spinner label="Loading editor…" />
  </div>
);

export const YamlEditor = dynamic<YamlEditorProps>(() => import('./yaml-editor-impl'), {
  ssr: false,
  loading: () => <Loading />,
});

let preloading: Promise<unknown> | undefined;
/**
 * Fetch and run the editor's code (Monaco: megabytes to parse) before an
 * editor is rendered: on an object's page while its text is still being
 * fetched, on the objects list once the browser is idle. The editor then
 * only has to create itself. Same chunk as YamlEditor's, so loaded once.
 */
export function preloadEditor(): void {
  if (typeof window === 'undefined') return;
  preloading ??= import('./yaml-editor-impl').catch(() => {
    // The editor's own load reports the failure; a later preload may try again.
    preloading = undefined;
  });
}

/** preloadEditor once the browser has nothing else to do (not competing with the page's own first render). */
export function preloadEditorWhenIdle(): () => void {
  if (typeof window === 'undefined') return () => {};
  if ('requestIdleCallback' in window) {
    const h = window.requestIdleCallback(preloadEditor, { timeout: 2000 });
    return () => window.cancelIdleCallback(h);
  }
  const t = setTimeout(preloadEditor, 500);
  return () => clearTimeout(t);
}

export const DiffEditor = dynamic<DiffEditorProps>(() => import('./diff-editor-impl'), {
  ssr: false,
  loading: () => <Loading height={560} />,
});
