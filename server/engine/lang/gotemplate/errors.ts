/**
 * Go template errors: positions while lexing, parsing and executing, and
 * the located, labelled form callers see.
 */

import type { OverBudget } from '../budget';
import { LangFailure, lineColumn, type LangError } from '../result';

export function templateLabel(src: string, name: string | undefined): string {
  if (name !== undefined) return JSON.stringify(name);
  const oneLine = src.replace(/\s+/g, ' ');
  return JSON.stringify(oneLine.length > 60 ? oneLine.slice(0, 57) + '...' : oneLine);
}

/** Adds line/column (from the error's offset, stashed in `column`) and the label. */
export function locate(src: string, label: string, error: LangError): LangError {
  const offset = error.column;
  const out: LangError = { ...error, message: `template ${label}: ${error.message}` };
  if (offset !== undefined) Object.assign(out, lineColumn(src, offset));
  return out;
}

/** Internal errors carry the 0-based source offset in `column` until `locate`. */
export function failAt(code: LangError['code'], message: string, offset: number): LangFailure {
  return new LangFailure({ code, message, column: offset });
}

/** Exhausted budgets, in the wording policy authors (and tests) know. */
export const templateOverBudget: OverBudget = (kind, limit, at) => {
  switch (kind) {
    case 'steps':
      return failAt('template_limit', `template execution exceeded ${limit} steps`, at);
    case 'output':
      return failAt('template_limit', `template output is larger than ${limit} characters`, at);
    case 'depth':
      return failAt('template_limit', `template nests deeper than ${limit} levels`, at);
    case 'volume':
      return failAt('template_limit', `template built more than ${limit} characters in all`, at);
    case 'time':
      return failAt('template_limit', `template ran out of its time (${limit} ms)`, at);
  }
};
