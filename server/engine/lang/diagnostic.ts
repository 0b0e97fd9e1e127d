/**
 * The one shape of a failure the engine reports, at load time and at
 * resolve time alike (diagnostics.ts says how it is rendered). It lives in
 * the engine's lowest folder so every error type — the languages' here,
 * each source's beside its own — converts itself to it where it is made.
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
  evaluation: 'An expression, template or rule failed when it ran',
  limit: 'A template or expression ran over its budget',
  time_limit: 'A request ran out of the time the host gives it',
  instance_conflict: 'Two sources produce the same instance',
} as const;
export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/** Where a failure is, as far as its source knows: the object, the field, the line inside a template. */
export type Site = Pick<Diagnostic, 'object' | 'path' | 'line' | 'column' | 'endLine' | 'endColumn'>;

/** An error-severity diagnostic, leaving out the parts of `site` that are unknown (so they compare and serialise as absent). */
export function errorAt(code: DiagnosticCode, message: string, site: Site = {}): Diagnostic {
  const known = Object.fromEntries(Object.entries(site).filter(([, v]) => v !== undefined)) as Site;
  return { code, severity: 'error', message, ...known };
}

/** A request's failures as its outcome carries them: the messages (`ClaimOutcome.errors`) and, when any, the diagnostics they came from. */
export function failuresOf(diagnostics: readonly Diagnostic[]): { errors: string[]; diagnostics?: Diagnostic[] } {
  return { errors: diagnostics.map((d) => d.message), ...(diagnostics.length > 0 ? { diagnostics: [...diagnostics] } : {}) };
}

