/** What the editor reports about its content: one entry per marker. */
export interface EditorProblem {
  severity: 'error' | 'warning' | 'info';
  message: string;
  line: number;
  column: number;
  source: string;
}

export interface ServerMarker {
  message: string;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  severity: 'error' | 'warning' | 'info';
}

export interface YamlEditorProps {
  value: string;
  onChange?: (value: string) => void;
  /** Model URI from `modelUri(kind, namespace, name)`: selects the JSON Schema. */
  uri: string;
  schemas?: Record<string, Record<string, unknown>>;
  readOnly?: boolean;
  /** Ctrl/Cmd+S. */
  onSave?: () => void;
  onProblems?: (problems: EditorProblem[]) => void;
  /** Problems reported by the server on the last save, shown as markers. */
  serverMarkers?: ServerMarker[];
  height?: number | string;
  ariaLabel?: string;
  /** Put the cursor here when the editor opens (a link from a claim's error to its line). */
  reveal?: { line: number; column?: number };
}

export interface DiffEditorProps {
  original: string;
  modified: string;
  height?: number | string;
  ariaLabel?: string;
}
