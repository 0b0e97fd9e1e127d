/**
 * Errors of the spiff dialect, as data. The shared `LangErrorCode` union in
 * `lang/result.ts` belongs to the other dialects; spiff has its own codes so
 * that its messages can carry the failing expression and the document path.
 */
import { errorAt, type Diagnostic, type Site } from '../diagnostic';

export type SpiffErrorCode = 'spiff_parse_error' | 'spiff_eval_error' | 'spiff_limit' | 'spiff_unsupported';

export interface SpiffError {
  code: SpiffErrorCode;
  /** One line, safe to show to a blueprint author. */
  message: string;
  /** The dynaml expression (without `((` `))`), when one was being read. */
  expression?: string;
  /** 0-based offset of the failure inside `expression`. */
  position?: number;
  /** Where in the document the expression sits, e.g. `bindings.mapToList`. */
  path?: string;
}

export type SpiffResult<T> = { ok: true; value: T } | { ok: false; error: SpiffError };

/** Thrown inside the dialect only; every public function turns it into a `SpiffResult`. */
export class SpiffFailure extends Error {
  constructor(
    readonly code: SpiffErrorCode,
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
  /** Set by the innermost expression evaluation that saw the failure. */
  expression?: string;
  path?: (string | number)[];
}

export { formatPath } from '../data';

const SPIFF_CODES: Record<SpiffErrorCode, Diagnostic['code']> = {
  spiff_parse_error: 'expression',
  spiff_eval_error: 'evaluation',
  spiff_limit: 'limit',
  spiff_unsupported: 'expression',
};

/** A spiff error where it happened: `site` names the object and field holding the document (its own `path` is inside the document and already in the message). */
export function spiffDiagnostic(e: SpiffError, site: Site = {}): Diagnostic {
  return errorAt(SPIFF_CODES[e.code], e.message, site);
}
