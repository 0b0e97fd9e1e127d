/**
 * Go `text/template`, the subset Aptomi's policies use, reimplemented for
 * code parameters, discovery values and allocation keys.
 *
 * Supported: text and `{{ }}` actions with `{{-` / `-}}` whitespace
 * trimming; Go template comments; `.Field.Chains`, `$` and `$variables`
 * (`:=` declares, `=` assigns); pipelines `a | b`; parenthesised pipelines
 * and `(pipeline).Field`; string (Go escapes), raw-string, character,
 * number, bool and nil literals; `if` / `else if` / `else`, `with` /
 * `else with` / `else`, `range` (arrays, maps in sorted key order, integers;
 * `$i, $v :=`; `else`; `break` / `continue`); the builtins `eq ne lt le gt
 * ge and or not len index print printf println`; and Aptomi's `default`.
 * Unknown functions (`upper`) are compile errors, as they were in Aptomi
 * (no sprig). `define`, `template` and `block` are rejected.
 *
 * Data model: plain objects and Maps are Go maps (a missing key yields "no
 * value", printed `<no value>`), arrays are slices, numbers are ints when
 * integral and float64 otherwise, null is nil.
 *
 * Aptomi treats any output containing `<no value>` as an error: that is how
 * a missing label or discovery value surfaces. `renderTemplate` does the
 * same (code `template_no_value`) and points at the first action that
 * printed it.
 *
 * Deliberate differences from Go: numbers compare by value whatever their
 * notation (Go refuses `eq 1 1.0`); `index` of a missing map key is nil
 * (`<no value>`) even for label maps, where Go's map[string]string gave "".
 *
 * Phases: `lex.ts` (text and action tokens) → `parse.ts` (parse tree) →
 * `exec.ts` (rendering); `reads.ts` analyses a parse tree for what it reads.
 * This file is the dialect's public API.
 */

import type { Budget, Deadline } from '../budget';
import { FormatLimitError, isGoMapObject } from '../gosprint';
import { fail, lineColumn, LangFailure, ok, type LangError, type Result } from '../result';
import { locate, templateLabel } from './errors';
import { Executor, NO_VALUE, renderFast } from './exec';
import { lexTemplate } from './lex';
import { fastParts, parseTemplate, type CompiledTemplate, type TemplateFunctions } from './parse';

export type { CompiledTemplate, TemplateFunction, TemplateFunctions, TNode } from './parse';
export { SPRIG_FUNCTIONS } from './sprig';
export { templateMayReadSecrets, templateReadsDiscovery, type ReadsOptions } from './reads';

// ---------------------------------------------------------------------------
// Public API

export interface TemplateLimits {
  /** Longest accepted template source, in UTF-16 units. */
  maxSourceLength: number;
  /** Largest rendered output, in UTF-16 units. */
  maxOutputLength: number;
  /** Most execution steps (nodes walked, calls made, range iterations). */
  maxSteps: number;
  /** Deepest nesting of control structures and parentheses. */
  maxDepth: number;
}

export const DEFAULT_TEMPLATE_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  maxSourceLength: 256 * 1024,
  maxOutputLength: 1024 * 1024,
  maxSteps: 100_000,
  maxDepth: 100,
});

function renderBudget(limits: TemplateLimits): Budget {
  return { steps: limits.maxSteps, output: limits.maxOutputLength };
}

/** Made once: nearly every rendering runs with the default limits. */
const DEFAULT_RENDER_BUDGET = renderBudget(DEFAULT_TEMPLATE_LIMITS);

export interface CompileOptions {
  name?: string;
  limits?: Partial<TemplateLimits>;
  /** Functions beyond Go's builtins (e.g. SPRIG_FUNCTIONS for Landscaper's templates). */
  functions?: TemplateFunctions;
}

export interface RenderOptions {
  /** Overrides the compiled template's name in error messages. */
  name?: string;
  limits?: Partial<TemplateLimits>;
  /** When the render must stop (the host's clock; see lang/budget.ts). */
  deadline?: Deadline;
}

/** Compiled templates keyed by source (compile errors are cached too). */
export interface TemplateCache {
  get(source: string): Result<CompiledTemplate> | undefined;
  set(source: string, compiled: Result<CompiledTemplate>): unknown;
}

export function compileTemplate(src: string, options?: CompileOptions): Result<CompiledTemplate> {
  const limits = { ...DEFAULT_TEMPLATE_LIMITS, ...options?.limits };
  const label = templateLabel(src, options?.name);
  if (src.length > limits.maxSourceLength) {
    return fail({ code: 'template_limit', message: `template ${label} is longer than ${limits.maxSourceLength} characters` });
  }
  try {
    const tokens = lexTemplate(src);
    const root = parseTemplate(src, tokens, { depth: limits.maxDepth }, options?.functions);
    const fast = fastParts(root);
    const compiled: CompiledTemplate = { source: src, root, ...(fast ? { fast } : {}), ...(options?.functions ? { functions: options.functions } : {}) };
    return ok(options?.name === undefined ? compiled : { ...compiled, name: options.name });
  } catch (e) {
    if (e instanceof LangFailure) return fail(locate(src, label, e.error));
    throw e;
  }
}

/** compileTemplate with a cache keyed by source text. */
export function compileTemplateCached(src: string, cache: TemplateCache, limits?: Partial<TemplateLimits>): Result<CompiledTemplate> {
  let hit = cache.get(src);
  if (hit === undefined) {
    hit = compileTemplate(src, limits ? { limits } : undefined);
    cache.set(src, hit);
  }
  return hit;
}

export function renderTemplate(compiled: CompiledTemplate, data: unknown, options?: RenderOptions): Result<string> {
  if (compiled.fast) {
    const out = renderFast(compiled.fast, data);
    if (out !== undefined && out.length <= (options?.limits?.maxOutputLength ?? DEFAULT_TEMPLATE_LIMITS.maxOutputLength)) return storable(compiled, out, options);
  }
  const r = renderWithExecutor(compiled, data, options);
  return r.ok ? storable(compiled, r.value, options) : r;
}

/**
 * Output that could not be stored (a NUL, a lone surrogate — `printf "%c" 0`
 * makes one) is the template's error, not a storage failure later.
 */
function storable(compiled: CompiledTemplate, out: string, options?: RenderOptions): Result<string> {
  // Fast path: nearly every output is plain text.
  if (!/[\0\ud800-\udfff]/.test(out)) return ok(out);
  const what = out.includes('\0') ? 'a NUL character' : /\p{Cs}/u.test(out) ? 'a lone UTF-16 surrogate' : undefined;
  if (!what) return ok(out);
  return fail({ code: 'template_output', message: `template ${templateLabel(compiled.source, options?.name ?? compiled.name)} rendered ${what}, which cannot be stored` });
}

function renderWithExecutor(compiled: CompiledTemplate, data: unknown, options?: RenderOptions): Result<string> {
  const limited = options?.limits ? renderBudget({ ...DEFAULT_TEMPLATE_LIMITS, ...options.limits }) : DEFAULT_RENDER_BUDGET;
  const budget = options?.deadline ? { ...limited, deadline: options.deadline } : limited;
  // Built only on failure: rendering is on the resolver's hot path.
  function label() {
    return templateLabel(compiled.source, options?.name ?? compiled.name);
  }
  const exec = new Executor(compiled.source, budget, compiled.functions);
  let out: string;
  try {
    out = exec.run(compiled.root, data);
  } catch (e) {
    if (e instanceof LangFailure) return fail(locate(compiled.source, label(), e.error));
    if (e instanceof FormatLimitError) return fail({ code: 'template_limit', message: `template ${label()}: ${e.message}` });
    throw e;
  }
  if (out.includes(NO_VALUE)) {
    // Aptomi's rule: any "<no value>" in the output is an error.
    const at = exec.firstNoValue;
    const where = at ? `: <${compiled.source.slice(at.pos, at.end).trim()}> has no value` : '';
    const error: LangError = { code: 'template_no_value', message: `template ${label()} rendered "${NO_VALUE}"${where}` };
    if (at) Object.assign(error, lineColumn(compiled.source, at.pos));
    return fail(error);
  }
  return ok(out);
}

/**
 * Renders every string leaf of a JSON-like tree as a template (Aptomi's code
 * params and discovery values). Numbers, booleans and null pass through
 * unchanged; objects keep their key order. Errors carry the failing leaf's
 * path, e.g. `kafka.addresses.kafka` or `hosts[2]`.
 *
 * The cache is passed in rather than kept in a module-level map so that its
 * lifetime follows the caller's (typically one policy generation): memory
 * is released with it, and one tenant's templates cannot evict or outlive
 * another's.
 */
export function renderParamTree(
  tree: unknown,
  data: unknown,
  cache: TemplateCache = new Map(),
  limits?: Partial<TemplateLimits>,
): Result<unknown> {
  const plan = compileParamTree(tree, cache, limits);
  return plan.ok ? renderPlan(plan.value, data, limits ? { limits } : undefined) : plan;
}

/**
 * A parameter tree prepared for repeated rendering: templates compiled,
 * constant subtrees (no string leaf holding `{{`) kept as they are, and each
 * leaf's path computed once for error messages. The resolver renders the
 * same bundle's parameters for every claim, so it caches plans per tree.
 */
export type ParamPlan =
  | { k: 'const'; value: unknown }
  | { k: 'tpl'; t: CompiledTemplate; path: string }
  | { k: 'list'; items: ParamPlan[] }
  | { k: 'map'; keys: string[]; values: ParamPlan[] };

export function compileParamTree(tree: unknown, cache: TemplateCache = new Map(), limits?: Partial<TemplateLimits>): Result<ParamPlan> {
  // Trees come from YAML, whose aliases can share or even cycle back to
  // nodes; cap the walk so neither blows up.
  let nodesLeft = MAX_TREE_NODES;
  const walk = (node: unknown, path: string, depth: number): Result<ParamPlan> => {
    if (--nodesLeft < 0 || depth > MAX_TREE_DEPTH) {
      const what = depth > MAX_TREE_DEPTH ? `nested deeper than ${MAX_TREE_DEPTH} levels` : `larger than ${MAX_TREE_NODES} values`;
      return fail({ code: 'template_limit', message: `${path || 'parameters'}: parameter tree is ${what}`, path });
    }
    if (typeof node === 'string') {
      // Only templates can render differently; Aptomi's "<no value>" check still applies to text.
      if (!node.includes('{{') && !node.includes(NO_VALUE)) return ok({ k: 'const', value: node });
      const compiled = compileTemplateCached(node, cache, limits);
      if (!compiled.ok) return fail({ ...compiled.error, path, message: (path === '' ? '' : `${path}: `) + compiled.error.message });
      return ok({ k: 'tpl', t: compiled.value, path });
    }
    if (Array.isArray(node)) {
      const items: ParamPlan[] = [];
      for (const [i, item] of node.entries()) {
        const r = walk(item, `${path}[${i}]`, depth + 1);
        if (!r.ok) return r;
        items.push(r.value);
      }
      return ok(items.every((x) => x.k === 'const') ? { k: 'const', value: node } : { k: 'list', items });
    }
    if (isGoMapObject(node)) {
      const keys = Object.keys(node);
      const values: ParamPlan[] = [];
      for (const key of keys) {
        const r = walk(node[key], path === '' ? key : `${path}.${key}`, depth + 1);
        if (!r.ok) return r;
        values.push(r.value);
      }
      return ok(values.every((x) => x.k === 'const') ? { k: 'const', value: node } : { k: 'map', keys, values });
    }
    return ok({ k: 'const', value: node });
  };
  return walk(tree, '', 0);
}

/**
 * Renders a plan. Constant subtrees are shared with the plan (and so with
 * every other rendering): treat results as read-only.
 */
export function renderPlan(plan: ParamPlan, data: unknown, options?: Omit<RenderOptions, 'name'>): Result<unknown> {
  const state: PlanRun = { data, opts: options, failure: undefined };
  const value = runPlan(plan, state);
  return state.failure ? fail(state.failure) : ok(value);
}

interface PlanRun {
  data: unknown;
  opts: RenderOptions | undefined;
  failure: LangError | undefined;
}

/** Module-level (not a closure per call): the resolver renders plans for every claim. */
function runPlan(p: ParamPlan, st: PlanRun): unknown {
  switch (p.k) {
    case 'const':
      return p.value;
    case 'tpl': {
      const r = renderTemplate(p.t, st.data, st.opts);
      if (r.ok) return r.value;
      st.failure = { ...r.error, path: p.path, message: (p.path === '' ? '' : `${p.path}: `) + r.error.message };
      return undefined;
    }
    case 'list': {
      const out: unknown[] = [];
      for (const item of p.items) {
        out.push(runPlan(item, st));
        if (st.failure) return undefined;
      }
      return out;
    }
    case 'map': {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < p.keys.length; i++) {
        out[p.keys[i]!] = runPlan(p.values[i]!, st);
        if (st.failure) return undefined;
      }
      return out;
    }
  }
}

const MAX_TREE_NODES = 100_000;
const MAX_TREE_DEPTH = 100;
