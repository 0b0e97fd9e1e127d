/**
 * The Deployment Manager (expandybird) expansion engine (reference/dm.md):
 * a configuration and its imports in, the flat configuration of primitives
 * and the layout out. Pure: plain data in, plain data out; mistakes in the
 * input come back in `errors`, never as exceptions.
 *
 *   const { config, layout, references, errors } = expand({ config: text, imports: { 'redis.jinja': src } });
 *
 * The engine runs no interpreter: Jinja templates are rendered by Jinja2 and
 * Python templates run by Python, both in the host's sandbox (server/dm-python),
 * which the host plugs in with `useJinjaRenderer` and `usePythonRunner`.
 */
import { expandConfiguration } from './expand';
import { deadlineIn, type Deadline } from '../lang/budget';
import type { ExpandInput, ExpandOptions, ExpandResult, JinjaRenderer, PythonRunner, TemplateEnv } from './types';

export { DEFAULT_LIMITS, JINJA_STEPS, JINJA_UNAVAILABLE, PYTHON_UNSUPPORTED } from './expand';
export { parseConfig, parseYaml, normalizeImports, languageOf, type ParsedConfig, type TemplateLanguage } from './config';
export { validateProperties, pyRepr, type SchemaOutcome, type SchemaOptions } from './schema';
export { findReferences, hasReference, collectReferences, substituteReferences, extractWithJsonPath, referenceProblems, referenceTokens, resolveWithinConfiguration, type Reference } from './references';
export * from './types';

/**
 * Expands `input.config` against `input.imports`. Schemas are validated and
 * their defaults applied unless `validateSchema: false`; PR 167 outputs are
 * resolved unless `outputs: false`.
 */
export function expand(input: ExpandInput, options: ExpandOptions = {}): ExpandResult {
  return expandConfiguration(input, hostJinja && !options.renderJinja ? { ...options, renderJinja: hostJinja } : options);
}

let hostRunner: PythonRunner | undefined;
let hostJinja: JinjaRenderer | undefined;
let hostClock: { now: () => number; ms: number } | undefined;
const memo = new Map<string, ExpandResult>();
const MEMO_ENTRIES = 64;
const MEMO_KEY_CHARS = 8 << 20;

/**
 * The host (a resolver thread, the CLI) plugs in the Python sandbox once.
 * The engine runs no interpreter of its own: a runner is a capability the
 * host grants, like the clock it does not read.
 */
export function usePythonRunner(runner: PythonRunner | undefined): void {
  hostRunner = runner;
  memo.clear();
}

/** The host plugs in Jinja2 (the sandbox's renderer) once, as it does the Python runner. */
export function useJinjaRenderer(renderer: JinjaRenderer | undefined): void {
  hostJinja = renderer;
  memo.clear();
}

/**
 * The host grants a clock too: each `expandDeployment` then gives its Jinja
 * templates `ms` of it (Python's time is the sandbox's own, and not counted
 * here), so that no budget but time is what ends a template that is slow
 * without being large.
 */
export function useTemplateClock(now: (() => number) | undefined, ms = 0): void {
  hostClock = now ? { now, ms } : undefined;
}

/**
 * A deployment's configuration expanded with the host's Python runner, or
 * — `python: 'defer'`, for checks on a thread that must not wait for an
 * interpreter — with Python templates left unexpanded. Expansion is a pure
 * function of its input, so results are kept (a few dozen) and a stage
 * that recomputes does not run the same templates again.
 */
export function expandDeployment(input: ExpandInput, env: TemplateEnv, opts: { python?: 'run' | 'defer'; validateSchema?: boolean; deadline?: Deadline } = {}): ExpandResult {
  const python = opts.python ?? 'run';
  const options: ExpandOptions = {
    env,
    // What is deployed has every reference the configuration can answer filled in.
    resolveReferences: true,
    ...(opts.validateSchema === false ? { validateSchema: false } : {}),
    ...(python === 'defer' ? { deferPython: true } : hostRunner ? { runPython: hostRunner } : {}),
    // A check on a thread with no sandbox leaves Jinja for the resolution, as it does Python.
    ...(hostJinja ? { renderJinja: hostJinja } : python === 'defer' ? { deferJinja: true } : {}),
    ...(opts.deadline ? { deadline: opts.deadline } : hostClock ? { deadline: deadlineIn(hostClock.ms, hostClock.now) } : {}),
  };
  const key = JSON.stringify([input, env, python, opts.validateSchema !== false, hostJinja !== undefined]);
  if (key.length > MEMO_KEY_CHARS) return expandConfiguration(input, options);
  const known = memo.get(key);
  if (known) {
    memo.delete(key);
    memo.set(key, known);
    return known;
  }
  const r = expandConfiguration(input, options);
  // A sandbox that could not start or answer, or a deadline that came, is no property of the input: do not keep that answer.
  if (!r.errors.some((e) => e.code === 'python_unavailable' || e.code === 'jinja_unavailable' || e.budget === 'time')) {
    memo.set(key, r);
    if (memo.size > MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
  }
  return r;
}
