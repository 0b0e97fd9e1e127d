/**
 * Diagnostics are how the engine reports user mistakes: plain data with a
 * stable code, never exceptions (exceptions are reserved for our own bugs).
 * The shape maps directly onto editor markers (line/column) and CLI output
 * (`file:line:col: message`).
 */
export type Severity = 'error' | 'warning' | 'info';

export interface SourcePos {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  endLine?: number;
  endColumn?: number;
}

export interface Diagnostic extends Partial<SourcePos> {
  /** Stable machine-readable code, e.g. `yaml_syntax`, `unknown_kind`. */
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  /** `kind/namespace/name` of the object concerned, when known. */
  object?: string;
  /** Field path inside the object, e.g. `['components', 0, 'code', 'type']`. */
  path?: (string | number)[];
  file?: string;
}

/**
 * Every code the engine can emit. Kept in one table so clients (CLI exit
 * codes, editor marker sources, tests) can rely on them.
 */
export const DIAGNOSTIC_CODES = {
  yaml_syntax: 'The YAML text could not be parsed',
  not_an_object: 'A document or list item is not a mapping',
  missing_kind: 'An object has no kind',
  unknown_kind: 'The kind is not one Keelson knows',
  schema: 'A field is missing, unknown or of the wrong type',
  namespace: 'The object may not live in this namespace',
  duplicate_object: 'Two objects share kind, namespace and name',
  too_large: 'An object or request is over the size limit',
  invalid_reference: 'A reference inside an object is malformed or points nowhere',
  cycle: 'Objects or components depend on each other in a loop',
  expression: 'An expression does not compile',
  template: 'A template does not compile',
  skipped: 'A document is not a policy object and was skipped',
  claim_error: 'A claim could not be resolved',
  claim_rejected: 'A rule or the ACL rejected a claim',
  unsupported_source: 'A document of a source Keelson recognises but cannot load yet was skipped',
} as const;
export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export function objectRef(kind: string, namespace: string | undefined, name: string | undefined): string {
  return `${kind}/${namespace ?? '?'}/${name ?? '?'}`;
}

/** The parts of an `objectRef`; undefined when a part is unknown. */
export function parseObjectRef(ref: string): { kind: string; namespace: string; name: string } | undefined {
  const [kind, namespace, name, ...rest] = ref.split('/');
  if (!kind || !namespace || !name || rest.length > 0 || namespace === '?' || name === '?') return undefined;
  return { kind, namespace, name };
}

/** `file:line:col: message` — the CLI's one-line format. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = [d.file ?? '<input>', d.line ?? 1, d.column ?? 1].join(':');
  const sev = d.severity === 'error' ? '' : `${d.severity}: `;
  return `${where}: ${sev}${d.message}${d.object ? ` (${d.object})` : ''}`;
}

export { formatPath } from './lang/data';

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

/** Stable order: file, then position. */
export function sortDiagnostics<T extends Diagnostic>(diags: T[]): T[] {
  return diags.sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}
