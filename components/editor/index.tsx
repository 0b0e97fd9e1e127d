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

export const DiffEditor = dynamic<DiffEditorProps>(() => import('./diff-editor-impl'), {
  ssr: false,
  loading: () => <Loading height={560} />,
});
