/**
 * Result and error types shared by the policy-language modules.
 *
 * The language modules never throw across their public API: policy text is
 * user input, and a bad expression or template must become a validation
 * message or a per-claim error, never a crashed resolution. Every public
 * function therefore returns a `Result`, and callers branch on `ok`.
 */
import { errorAt, type Diagnostic, type Site } from './diagnostic';

/** Stable machine-readable error codes (UI and tests match on these). */
export type LangErrorCode =
  | 'expr_parse_error'
  | 'expr_type_error'
  | 'expr_limit'
  | 'template_parse_error'
  | 'template_exec_error'
  | 'template_no_value'
  | 'template_limit'
  | 'template_output';

export interface LangError {
  code: LangErrorCode;
  /** Human-readable, single line, safe to show to policy authors. */
  message: string;
  /** 1-based line in the source (templates; expressions are single-line). */
  line?: number;
  /** 1-based column (UTF-16 code units, as editors such as Monaco count). */
  column?: number;
  /** Location inside a parameter tree, e.g. `kafka.addresses.kafka`. */
  path?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: LangError };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(error: LangError): { ok: false; error: LangError } {
  return { ok: false, error };
}

/**
 * Internal control-flow exception used while parsing/evaluating. It is always
 * caught at the module boundary and converted into a `Result`; it never leaks
 * to callers. Throwing internally keeps the recursive evaluators readable
 * (no error plumbing through every node visit).
 */
export class LangFailure extends Error {
  constructor(readonly error: LangError) {
    super(error.message);
    this.name = 'LangFailure';
  }
}

/** Converts a 0-based offset into a 1-based line/column pair. */
export function lineColumn(src: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, src.length);
  for (let i = 0; i < end; i++) {
    if (src.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

const LANG_CODES: Record<LangErrorCode, Diagnostic['code']> = {
  expr_parse_error: 'expression',
  expr_type_error: 'expression',
  expr_limit: 'limit',
  template_parse_error: 'template',
  template_exec_error: 'evaluation',
  template_no_value: 'evaluation',
  template_limit: 'limit',
  template_output: 'evaluation',
};

/** A language error where it happened: `site` names the object and field holding the text; the error's own line and column are inside it. */
export function langDiagnostic(e: LangError, site: Site = {}): Diagnostic {
  return errorAt(LANG_CODES[e.code], e.message, { ...site, ...(e.line !== undefined ? { line: e.line, column: e.column } : {}) });
}
