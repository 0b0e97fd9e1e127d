'use client';
/** Monaco's side-by-side diff editor over two YAML texts (read-only). */
import { useEffect, useRef } from 'react';
import { setupMonaco } from './setup';
import type { DiffEditorProps } from './types';

export default function DiffEditorImpl({ original, modified, height, ariaLabel }: DiffEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const monaco = setupMonaco();
    const a = monaco.editor.createModel(original, 'yaml');
    const b = monaco.editor.createModel(modified, 'yaml');
    const diff = monaco.editor.createDiffEditor(host.current!, {
      readOnly: true,
      originalEditable: false,
      automaticLayout: true,
      renderSideBySide: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
      ariaLabel: ariaLabel ?? 'Differences',
      // Each side is an editor of its own with its own input: each needs a name (axe: aria-input-field-name).
      originalAriaLabel: `${ariaLabel ?? 'Differences'}: before`,
      modifiedAriaLabel: `${ariaLabel ?? 'Differences'}: after`,
      hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 5, revealLineCount: 20 },
    });
    diff.setModel({ original: a, modified: b });
    // Monaco 0.57 does not hand originalAriaLabel/modifiedAriaLabel to each side's
    // input (its edit context stayed unnamed; axe: aria-input-field-name): name them here.
    diff.getOriginalEditor().updateOptions({ ariaLabel: `${ariaLabel ?? 'Differences'}: before` });
    diff.getModifiedEditor().updateOptions({ ariaLabel: `${ariaLabel ?? 'Differences'}: after` });
    return () => {
      // Detach the models first: disposing the editor while it still holds
      // them lets a pending diff computation touch disposed services
      // ("AbstractContextKeyService has been disposed").
      diff.setModel(null);
      diff.dispose();
      a.dispose();
      b.dispose();
    };
  }, [original, modified, ariaLabel]);
  return <div ref={host} className="editor-host" data-testid="diff-editor" style={{ height: height ?? 560 }} />;
}
