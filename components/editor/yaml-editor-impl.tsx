'use client';
/**
 * Monaco YAML editor with the kind's JSON Schema (completion, hover, error
 * markers from monaco-yaml), server diagnostics as markers, and Ctrl/Cmd+S.
 * Client-only: loaded through `yaml-editor.tsx` with next/dynamic.
 */
import { useEffect, useRef } from 'react';
import { setupMonaco, type Monaco } from './setup';
import type { EditorProblem, YamlEditorProps } from './types';
import { PendingEchoes } from './echoes';

type Editor = ReturnType<Monaco['editor']['create']>;

export default function YamlEditorImpl(props: YamlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<Editor | null>(null);
  const monacoRef = useRef<Monaco | null>(null);
  // Callbacks change every render; read them through refs so the editor is created once.
  const latest = useRef(props);
  latest.current = props;
  // Our own changes echoed back late through `value` must not overwrite newer typing.
  const echoes = useRef(new PendingEchoes());

  useEffect(() => {
    const monaco = setupMonaco(props.schemas);
    monacoRef.current = monaco;
    const uri = monaco.Uri.parse(props.uri);
    monaco.editor.getModel(uri)?.dispose();
    const model = monaco.editor.createModel(props.value, 'yaml', uri);
    const editor = monaco.editor.create(host.current!, {
      model,
      readOnly: props.readOnly,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
      tabSize: 2,
      insertSpaces: true,
      renderWhitespace: 'boundary',
      fixedOverflowWidgets: true,
      ariaLabel: props.ariaLabel ?? 'YAML editor',
      quickSuggestions: { other: true, comments: false, strings: true },
    });
    editorRef.current = editor;
    if (props.reveal) {
      const position = { lineNumber: props.reveal.line, column: props.reveal.column ?? 1 };
      editor.setPosition(position);
      editor.revealPositionInCenter(position);
      editor.focus();
    }
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => latest.current.onSave?.());
    echoes.current.clear();
    const sub = model.onDidChangeContent(() => {
      const text = model.getValue();
      echoes.current.reported(text);
      latest.current.onChange?.(text);
    });
    // Test hook: end-to-end tests edit through the model, as typing does,
    // not through rendered glyphs and keystroke timing. It hands page scripts
    // nothing new: the text is the page's own, and it is gone with the editor.
    const hostEl = host.current as HTMLDivElement & { keelsonModel?: typeof model };
    hostEl.keelsonModel = model;
    // monaco-yaml reports schema violations as warnings (VS Code's habit);
    // the server refuses them, so they are errors here, in the list and the squiggles.
    const isSchemaWarning = (m: { owner: string; severity: number }) =>
      m.owner === 'yaml' && m.severity === monaco.MarkerSeverity.Warning;
    const markerSub = monaco.editor.onDidChangeMarkers((uris) => {
      if (!uris.some((u) => u.toString() === uri.toString())) return;
      const markers = monaco.editor.getModelMarkers({ resource: uri });
      const problems: EditorProblem[] = markers
        .map((m) => ({
          severity:
            m.severity === monaco.MarkerSeverity.Error || isSchemaWarning(m)
              ? 'error'
              : m.severity === monaco.MarkerSeverity.Warning
                ? 'warning'
                : 'info',
          message: m.message,
          line: m.startLineNumber,
          column: m.startColumn,
          source: m.owner,
        }) satisfies EditorProblem)
        .sort((a, b) => a.line - b.line || a.column - b.column);
      latest.current.onProblems?.(problems);
      const yamlMarkers = markers.filter((m) => m.owner === 'yaml');
      if (yamlMarkers.some(isSchemaWarning)) {
        // Outside the event, so the marker service is not re-entered.
        queueMicrotask(() => {
          if (model.isDisposed()) return;
          monaco.editor.setModelMarkers(
            model,
            'yaml',
            yamlMarkers.map((m) => (isSchemaWarning(m) ? { ...m, severity: monaco.MarkerSeverity.Error } : m)),
          );
        });
      }
    });
    return () => {
      delete hostEl.keelsonModel;
      markerSub.dispose();
      sub.dispose();
      editor.dispose();
      model.dispose();
      editorRef.current = null;
    };
    // The editor is created once per URI; value changes flow through the model.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.uri]);

  // Keep schemas fresh (they arrive after the first render).
  useEffect(() => {
    if (props.schemas) setupMonaco(props.schemas);
  }, [props.schemas]);

  // External value changes (reload after save, restore) replace the text;
  // echoes of the model's own changes do not (they may be stale by now).
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model && echoes.current.shouldReplace(props.value, model.getValue())) model.setValue(props.value);
  }, [props.value]);

  useEffect(() => {
    editorRef.current?.updateOptions({ readOnly: props.readOnly });
  }, [props.readOnly]);

  // Server diagnostics become markers of their own owner.
  useEffect(() => {
    const monaco = monacoRef.current;
    const model = editorRef.current?.getModel();
    if (!monaco || !model) return;
    const sev = { error: monaco.MarkerSeverity.Error, warning: monaco.MarkerSeverity.Warning, info: monaco.MarkerSeverity.Info };
    monaco.editor.setModelMarkers(
      model,
      'keelson',
      (props.serverMarkers ?? []).map((m) => {
        const line = Math.min(Math.max(m.line ?? 1, 1), model.getLineCount());
        const col = Math.max(m.column ?? 1, 1);
        return {
          severity: sev[m.severity],
          message: m.message,
          startLineNumber: line,
          startColumn: col,
          endLineNumber: m.endLine ?? line,
          endColumn: m.endColumn ?? model.getLineMaxColumn(line),
        };
      }),
    );
  }, [props.serverMarkers]);

  return (
    <div
      ref={host}
      className="editor-host"
      data-testid="yaml-editor"
      style={{ height: props.height ?? 480 }}
    />
  );
}
