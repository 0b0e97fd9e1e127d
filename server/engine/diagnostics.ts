/**
 * Diagnostics are how the engine reports user mistakes: plain data with a
 * stable code, never exceptions (exceptions are reserved for our own bugs).
 * The shape maps directly onto editor markers (line/column) and CLI output
 * (`file:line:col: message`).
 */
export { DIAGNOSTIC_CODES, errorAt, failuresOf, type Diagnostic, type DiagnosticCode, type Severity, type Site, type SourcePos } from './lang/diagnostic';
import type { Diagnostic } from './lang/diagnostic';
import { formatPath } from './lang/data';

export function objectRef(kind: string, namespace: string | undefined, name: string | undefined): string {
  return `${kind}/${namespace ?? '?'}/${name ?? '?'}`;
}

/** The parts of an `objectRef`; undefined when a part is unknown. */
export function parseObjectRef(ref: string): { kind: string; namespace: string; name: string } | undefined {
  const [kind, namespace, name, ...rest] = ref.split('/');
  if (!kind || !namespace || !name || rest.length > 0 || namespace === '?' || name === '?') return undefined;
  return { kind, namespace, name };
}

/**
 * `file:line:col: message` — the CLI's one-line format. A failure found at
 * resolve time knows its object and field but no file: `kind/ns/name field: message`.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const sev = d.severity === 'error' ? '' : `${d.severity}: `;
  if (d.file === undefined && d.line === undefined && d.object) return `${d.object}${d.path?.length ? ` ${formatPath(d.path)}` : ''}: ${sev}${d.message}`;
  const where = [d.file ?? '<input>', d.line ?? 1, d.column ?? 1].join(':');
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
