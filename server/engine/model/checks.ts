/**
 * Compile-time checks of the expressions and templates inside objects, so a
 * typo is reported when the policy is saved (Aptomi compiled templates at
 * validation too), with the field and line — not later as a claim error.
 */
import { objectRef, type Diagnostic } from '../diagnostics';
import { compileExprCached, compileTemplateCached, type CompiledExpr, type CompiledTemplate, type Result } from '../lang';
import type { Criteria } from './kinds';
import type { AnyLoadedObject } from './validate';

const exprCache = new Map<string, Result<CompiledExpr>>();
const templateCache = new Map<string, Result<CompiledTemplate>>();
/** The caches only speed up repeated validation of the same sources; keep them bounded. */
const MAX_CACHE = 10_000;

export function checkExpressionsAndTemplates(o: AnyLoadedObject): Diagnostic[] {
  if (exprCache.size > MAX_CACHE) exprCache.clear();
  if (templateCache.size > MAX_CACHE) templateCache.clear();
  const diags: Diagnostic[] = [];
  const ref = objectRef(o.kind, o.namespace, o.name);
  const at = (path: (string | number)[]) => (o.locate ? o.locate(path) : o.pos);
  const criteria = (c: Criteria | null | undefined, path: (string | number)[]) => {
    for (const section of ['require-all', 'require-any', 'require-none'] as const) {
      (c?.[section] ?? []).forEach((src, i) => {
        const r = compileExprCached(src, exprCache);
        if (!r.ok) {
          const p = [...path, section, i];
          diags.push({ code: 'expression', severity: 'error', message: `expression \`${src}\`: ${r.error.message}`, object: ref, path: p, file: o.file, ...at(p) });
        }
      });
    }
  };
  const template = (src: string, path: (string | number)[]) => {
    if (!src.includes('{{')) return;
    const r = compileTemplateCached(src, templateCache);
    if (!r.ok) diags.push({ code: 'template', severity: 'error', message: r.error.message, object: ref, path, file: o.file, ...at(path) });
  };
  const tree = (t: unknown, path: (string | number)[], depth = 0) => {
    if (depth > 100) return;
    if (typeof t === 'string') template(t, path);
    else if (Array.isArray(t)) t.forEach((x, i) => tree(x, [...path, i], depth + 1));
    else if (t && typeof t === 'object') for (const [k, v] of Object.entries(t)) tree(v, [...path, k], depth + 1);
  };
  switch (o.kind) {
    case 'bundle':
      (o.spec.components ?? []).forEach((c, i) => {
        criteria(c.criteria, ['components', i, 'criteria']);
        tree(c.code?.params, ['components', i, 'code', 'params']);
        tree(c.discovery, ['components', i, 'discovery']);
      });
      break;
    case 'service':
      (o.spec.contexts ?? []).forEach((c, i) => {
        criteria(c.criteria, ['contexts', i, 'criteria']);
        (c.allocation.keys ?? []).forEach((k, j) => template(k, ['contexts', i, 'allocation', 'keys', j]));
      });
      break;
    case 'rule':
    case 'aclrule':
      criteria(o.spec.criteria, ['criteria']);
      break;
  }
  return diags;
}
