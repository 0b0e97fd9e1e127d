/**
 * Compile-time checks of the expressions and templates inside objects, so a
 * typo is reported when the policy is saved (Aptomi compiled templates at
 * validation too), with the field and line — not later as a claim error.
 */
import { objectRef, type Diagnostic } from '../../diagnostics';
import { compileExprCached, compileTemplateCached, type CompiledExpr, type CompiledTemplate, type Result } from '../../lang';
import type { AclRule, Bundle, Criteria, Rule, Service } from './aptomi';
import type { InnerPos } from '../source';
import type { CheckedObject } from './types';

const exprCache = new Map<string, Result<CompiledExpr>>();
const templateCache = new Map<string, Result<CompiledTemplate>>();
/** The caches only speed up repeated validation of the same sources; keep them bounded. */
const MAX_CACHE = 10_000;

export function checkExpressionsAndTemplates(o: CheckedObject): Diagnostic[] {
  if (exprCache.size > MAX_CACHE) exprCache.clear();
  if (templateCache.size > MAX_CACHE) templateCache.clear();
  const diags: Diagnostic[] = [];
  const ref = objectRef(o.kind, o.namespace, o.name);
  const at = (path: (string | number)[], inner?: InnerPos) => (o.locate ? o.locate(path, { inner }) : o.pos);
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
    // The compiler knows the line and column inside the template: point there, not at the field.
    if (!r.ok) diags.push({ code: 'template', severity: 'error', message: r.error.message, object: ref, path, file: o.file, ...at(path, { line: r.error.line, column: r.error.column }) });
  };
  const tree = (t: unknown, path: (string | number)[], depth = 0) => {
    if (depth > 100) return;
    if (typeof t === 'string') template(t, path);
    else if (Array.isArray(t)) t.forEach((x, i) => tree(x, [...path, i], depth + 1));
    else if (t && typeof t === 'object') for (const [k, v] of Object.entries(t)) tree(v, [...path, k], depth + 1);
  };
  switch (o.kind) {
    case 'bundle':
      ((o.spec as Bundle).components ?? []).forEach((c, i) => {
        criteria(c.criteria, ['components', i, 'criteria']);
        tree(c.code?.params, ['components', i, 'code', 'params']);
        tree(c.discovery, ['components', i, 'discovery']);
      });
      break;
    case 'service':
      ((o.spec as Service).contexts ?? []).forEach((c, i) => {
        criteria(c.criteria, ['contexts', i, 'criteria']);
        (c.allocation.keys ?? []).forEach((k, j) => template(k, ['contexts', i, 'allocation', 'keys', j]));
      });
      break;
    case 'rule':
    case 'aclrule':
      criteria((o.spec as Rule | AclRule).criteria, ['criteria']);
      break;
  }
  return diags;
}

/** Component names unique, dependencies exist, no dependency loops. */
export function checkBundle(o: CheckedObject): Diagnostic[] {
  const b = o as CheckedObject & { spec: Bundle };
  const diags: Diagnostic[] = [];
  const ref = objectRef('bundle', b.namespace, b.name);
  const comps = b.spec.components ?? [];
  const at = (path: PropertyKey[]) => (b.locate ? b.locate(path) : b.pos);
  const index = new Map<string, number>();
  comps.forEach((c, i) => {
    if (index.has(c.name)) {
      diags.push({
        code: 'duplicate_object',
        severity: 'error',
        message: `duplicate component name "${c.name}" in bundle`,
        file: b.file,
        object: ref,
        path: ['components', i, 'name'],
        ...at(['components', i, 'name']),
      });
    } else index.set(c.name, i);
  });
  comps.forEach((c, i) => {
    (c.dependencies ?? []).forEach((d, j) => {
      if (!index.has(d)) {
        diags.push({
          code: 'invalid_reference',
          severity: 'error',
          message: `component "${c.name}" depends on "${d}", which is not a component of this bundle`,
          file: b.file,
          object: ref,
          path: ['components', i, 'dependencies', j],
          ...at(['components', i, 'dependencies', j]),
        });
      }
    });
  });
  if (diags.length > 0) return diags;
  const cycle = findComponentCycle(comps.map((c) => ({ name: c.name, deps: c.dependencies ?? [] })));
  if (cycle) {
    const i = index.get(cycle[0]!) ?? 0;
    diags.push({
      code: 'cycle',
      severity: 'error',
      message: `component dependency cycle: ${cycle.join(' → ')}`,
      file: b.file,
      object: ref,
      path: ['components', i, 'dependencies'],
      ...at(['components', i, 'dependencies']),
    });
  }
  return diags;
}

/** Returns the names along the first cycle found (first name repeated at the end), or undefined. */
export function findComponentCycle(nodes: readonly { name: string; deps: readonly string[] }[]): string[] | undefined {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const state = new Map<string, 1 | 2>(); // 1 = on stack, 2 = done
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const s = state.get(name);
    if (s === 2) return undefined;
    if (s === 1) return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 1);
    stack.push(name);
    for (const d of byName.get(name)?.deps ?? []) {
      const c = visit(d);
      if (c) return c;
    }
    stack.pop();
    state.set(name, 2);
    return undefined;
  };
  for (const n of nodes) {
    const c = visit(n.name);
    if (c) return c;
  }
  return undefined;
}

