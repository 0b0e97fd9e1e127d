/**
 * Types of the Deployment Manager expansion engine (reference/dm.md): a
 * configuration of `{name, type, properties}` resources whose types may name
 * imported Jinja (or, later, Python) templates, expanded recursively into
 * primitives, with a layout that records which template produced what.
 *
 * Everything is plain JSON-shaped data. Errors are data, not exceptions: a
 * configuration is user input, and a template that loops or a schema that
 * rejects a property must come back as a message, never as a crash.
 */

import type { BudgetKind, Deadline } from '../lang/budget';
import { errorAt, type Diagnostic, type Site } from '../diagnostics';

/** A YAML/JSON value as templates and schemas see it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One resource of a configuration (input) or of the expanded configuration (output). */
export interface Resource {
  name: string;
  type: string;
  properties?: JsonObject | null;
  [key: string]: Json | undefined;
}

/** PR 167 template output: `outputs: [{name, value}]` (the configuration's own may have no value, as in DM). */
export interface Output {
  name: string;
  value?: Json;
}

/** A node of the layout: a primitive is `{name, type}`; a template adds what it expanded to. */
export interface LayoutResource {
  name: string;
  type: string;
  properties?: JsonObject | null;
  outputs?: Output[];
  resources?: LayoutResource[];
}

/**
 * An import as the DM API carries it: the content, and optionally the real
 * file path (which decides the language when the name alone doesn't).
 */
export interface ImportFile {
  content: string;
  path?: string;
}

/** What `expand` takes: the top-level configuration and the imports by name. */
export interface ExpandInput {
  /** The configuration's YAML text, or a deployment object's configuration, already read as PyYAML reads it. */
  config: string | JsonObject;
  imports?: Record<string, string | ImportFile>;
}

/** The environment a template sees as `env`. */
export interface TemplateEnv {
  /** The deployment's name (DM's Go wrapper also sets `project` to it). */
  deployment?: string;
  project?: string;
  /** Set per template resource by the engine. */
  name?: string;
  type?: string;
  [key: string]: Json | undefined;
}

/** What a template is given: DM's `context` (Python) / the Jinja globals. */
export interface TemplateContext {
  /** The resource's properties after schema defaults; null when it has none. */
  properties: JsonObject | null;
  env: TemplateEnv;
  /** Every import's content by name, so templates can inline files (`imports['x.txt']`). */
  imports: Record<string, string>;
  name: string;
  type: string;
  /**
   * Which expansion this run belongs to (set by `expandDeployment`): the
   * sandbox gives each expansion an interpreter of its own, so nothing one
   * configuration's templates leave behind reaches another's.
   */
  expansion?: number;
}

/**
 * A Python template runner, to be plugged in by the WASM sandbox. It returns
 * either the YAML text of the template's output or the parsed object (PR 167
 * accepts both), or an error message (the template's exception).
 */
export type PythonRunner = (
  source: string,
  context: TemplateContext,
  modules: Record<string, string>,
) => { ok: true; value: string | Json } | { ok: false; message: string; reason?: PythonFailure; timedOut?: boolean };

/**
 * A Jinja template render, done by the host with Jinja2 itself (server/dm-python): the engine
 * runs no interpreter. `variables` are what DM rendered the template with — the resource as
 * the configuration wrote it (its `properties` only when it has them, after schema defaults,
 * and any other key such as `metadata`) with `env` and `imports` — as JSON text, so that
 * integers above 2^53 arrive exact. `files` are the imports a template may `{% include %}`,
 * `{% import %}` or `{% extends %}`. `limits.ms` is what is left of the expansion's time.
 */
export interface JinjaJob {
  name: string;
  source: string;
  variables: string;
  files: Record<string, string>;
  limits: { output: number; range: number; steps: number; ms: number };
  /** The expansion this render belongs to (set by `expandDeployment`); its templates share steps and time. */
  expansion?: number;
  /** The tenant, which picks the sandbox process (`env.project`). */
  project?: string;
}

export type JinjaRenderer = (
  job: JinjaJob,
) =>
  | { ok: true; text: string }
  | { ok: false; message: string; reason?: PythonFailure; budget?: BudgetKind; line?: number; file?: string; timedOut?: boolean };

/**
 * Why a Python run failed: the template raised (`exception`, the default), it
 * was stopped at its time or memory limit (`limit`), or the sandbox itself
 * could not run it (`unavailable`: not the input's fault, so not remembered).
 * `timedOut` says a clock decided it (the time limit, or a sandbox that did
 * not answer in time): the expansion's error then names the `time` budget,
 * and neither the expansion nor the deployment's outcome is kept.
 */
export type PythonFailure = 'exception' | 'limit' | 'unavailable';

export interface ExpandLimits {
  /** Largest template source, in UTF-16 code units. */
  templateSource: number;
  /** Largest output of one template render. */
  templateOutput: number;
  /** Deepest nesting of template expansions (the top-level configuration is depth 0). */
  depth: number;
  /** Most resources (templates and primitives) processed in one expansion. */
  resources: number;
  /** Largest configuration text (the top-level config). */
  configSource: number;
  /** Steps (calls, operators and range items) all of one expansion's Jinja templates may take together. */
  templateSteps: number;
}

export interface ExpandOptions {
  /** Passed to templates as `env`; `name`/`type` are set per resource. */
  env?: TemplateEnv;
  /** Apply `<type>.schema` defaults and validation (DM: the `VALIDATE_SCHEMA` switch; Keelson: always on). */
  validateSchema?: boolean;
  /** Resolve PR 167 `outputs:` and `$(ref.NAME.PATH)` to template outputs (default true). */
  outputs?: boolean;
  /** Accept `type: int` in schemas as `integer` (the shipped examples use it; default true). */
  intAlias?: boolean;
  /**
   * Replace references among the flat configuration's resources by the values
   * their properties hold (Keelson's deploy step; DM left every one for its
   * resourcifier, default false). `references` then lists only what is left.
   */
  resolveReferences?: boolean;
  /** Reject two primitives with the same name in the flat configuration (DM allowed it; default true). */
  uniquePrimitiveNames?: boolean;
  /** Runs Python templates; absent means "Python templates are not supported yet". */
  runPython?: PythonRunner;
  /** Leave Python templates unexpanded, as if they produced nothing (a save-time check that must not wait for an interpreter). */
  deferPython?: boolean;
  /** Renders Jinja templates with Jinja2 (the host's sandbox); absent: the host's (`useJinjaRenderer`), else Jinja templates fail as unavailable. */
  renderJinja?: JinjaRenderer;
  /** Leave Jinja templates unexpanded where no renderer is plugged in (a check on a thread without the sandbox). */
  deferJinja?: boolean;
  limits?: Partial<ExpandLimits>;
  /** When the expansion must stop (the host's clock): its templates are stopped as they run, with a `limit` error. */
  deadline?: Deadline;
}

export type DmErrorCode =
  | 'yaml'
  | 'config'
  | 'duplicate_name'
  | 'schema'
  | 'properties'
  | 'template'
  | 'template_output'
  | 'unsupported_language'
  | 'python_unsupported'
  | 'python_unavailable'
  | 'jinja_unavailable'
  | 'template_cycle'
  | 'reference'
  | 'limit';

export interface DmError {
  code: DmErrorCode;
  /** DM's wording, wrapped as `ExpansionError: <msg> Resource: <resource>` where DM did. */
  message: string;
  /** The resource (or type) the error is about, when there is one. */
  resource?: string;
  /** The `(type, name)` chain from the top-level configuration down to the failing resource. */
  path?: { name: string; type: string }[];
  /** For a `limit` error of a template's budget: which budget ran out (`time` too for a Python template stopped by a clock). */
  budget?: BudgetKind;
}

/** A `$(ref.NAME.PATH)` left for deploy time: `from` must be created after `to`. */
export interface ReferenceEdge {
  from: string;
  to: string;
  path: string;
}

export interface ReferenceGraph {
  /** Referrer → referee, one per distinct (from, to, path): with `resolveReferences`, the values only the cluster knows. */
  edges: ReferenceEdge[];
  /**
   * Referrer → referee for every reference as the templates wrote it, filled
   * in or not: DM's resourcifier created a referrer after its referee, and a
   * value read from the configuration does not change that order.
   */
  ordering: ReferenceEdge[];
  /** References whose NAME is no resource of the flat configuration (DM's resourcifier rejects these). */
  unknown: ReferenceEdge[];
  /** Each cycle as a path of names, first name repeated at the end. */
  cycles: string[][];
  /** Creation order of the flat configuration's resources (referees first); null when there is a cycle. */
  order: string[] | null;
}

export interface ExpandResult {
  config: { resources: Resource[] };
  layout: { resources: LayoutResource[]; outputs?: Output[] };
  references: ReferenceGraph;
  /** Empty on success; expansion is all-or-nothing, so on error config and layout are empty. */
  errors: DmError[];
}

const DM_CODES: Record<DmErrorCode, Diagnostic['code']> = {
  yaml: 'yaml_syntax',
  config: 'schema',
  duplicate_name: 'duplicate_object',
  schema: 'schema',
  properties: 'schema',
  template: 'template',
  template_output: 'template',
  unsupported_language: 'template',
  python_unsupported: 'template',
  python_unavailable: 'template',
  jinja_unavailable: 'template',
  template_cycle: 'cycle',
  reference: 'invalid_reference',
  limit: 'limit',
};

/** A DM error where it happened: `site` names the deployment and, where known, its field (the error's own path is DM's resource chain, already in its message). */
export function dmDiagnostic(e: DmError, site: Site = {}): Diagnostic {
  return errorAt(e.code === 'limit' && e.budget === 'time' ? 'time_limit' : DM_CODES[e.code], e.message, site);
}
