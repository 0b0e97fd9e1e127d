/**
 * expandybird's recursive expansion (reference/dm.md §2) with PR 167's
 * template outputs (§4), plus what DM lacked: limits, template-cycle
 * detection, and the remaining references as an ordering graph with cycles.
 *
 * Inside this module failures are thrown as `ExpansionFailure` because the
 * walk is deep and all-or-nothing (DM returned no partial result); `expand`
 * catches them at the boundary and returns them as data.
 */
import { isEmptyMapping, isObject, languageOf, normalizeImports, parseConfig, parseYaml } from './config';
import { isWholeFloat } from './pyyaml';
import { collectReferences, fillFromResources, resolveWithinConfiguration, substituteReferences } from './references';
import { clone, validateProperties } from './schema';
import type {
  DmError, DmErrorCode, ExpandInput, ExpandLimits, ExpandOptions, ExpandResult, ImportFile, JinjaJob, Json, JsonObject,
  LayoutResource, Output, ReferenceEdge, ReferenceGraph, Resource, TemplateContext,
} from './types';

/** Steps for one expansion's Jinja templates (calls, operators, range items): far above what 10,000 resources need. */
export const JINJA_STEPS = 1_000_000;

export const DEFAULT_LIMITS: ExpandLimits = {
  templateSource: 1 << 20,
  templateOutput: 4 << 20,
  depth: 32,
  resources: 10_000,
  configSource: 1 << 20,
  templateSteps: JINJA_STEPS,
};

/** Largest `range()` inside a Jinja template. */
const JINJA_RANGE_LIMIT = 100_000;
/** Time a Jinja render may take when the host grants no clock: the sandbox's own limit is what stops it. */
const JINJA_UNTIMED_MS = 600_000;

let expansions = 0;
/** A number for a new expansion: the sandbox keeps one expansion's templates (compiled, their steps and time) together. */
export function newExpansion(): number {
  return ++expansions;
}

export const PYTHON_UNSUPPORTED = 'Python templates are not supported yet';
export const JINJA_UNAVAILABLE = 'no Jinja2 renderer is plugged in (the host plugs server/dm-python in with useJinjaRenderer)';

/**
 * What DM rendered a Jinja template with: the resource itself — its `properties` only when it has
 * them, any other key it carries (`metadata`…) — with `env` and `imports` set (expandybird's
 * `template.render(resource)`). JSON text, integers above 2^53 written exactly and whole floats as floats.
 */
function templateVariables(resource: Resource, context: TemplateContext): string {
  const vars: Record<string, unknown> = { ...resource, env: context.env, imports: context.imports };
  return JSON.stringify(vars, function (this: object, k: string, v: unknown) {
    if (typeof v === 'bigint') return { __keelson_int__: v.toString() };
    // PyYAML's 10.0 is a float (printed 10.0), which a JSON number cannot say.
    if (typeof v === 'number' && isWholeFloat(this, Array.isArray(this) ? Number(k) : k)) return { __keelson_float__: v };
    return v;
  });
}

class ExpansionFailure extends Error {
  constructor(readonly error: DmError) {
    super(error.message);
  }
}

interface Frame {
  name: string;
  type: string;
}

interface Processed {
  config: Resource[];
  layout: LayoutResource;
  /** The template's outputs by name (PR 167), when it declared any. */
  outputs?: JsonObject;
}

function fail(code: DmErrorCode, message: string, stack: Frame[], resource?: string, budget?: DmError['budget']): never {
  // DM appended the resource after a space; a multi-line message (collected schema errors) gets its own line.
  const where = resource === undefined ? '' : `${message.includes('\n') ? '\n' : ' '}Resource: ${resource}`;
  throw new ExpansionFailure({
    code,
    message: `ExpansionError: ${message}${where}`,
    ...(resource !== undefined ? { resource } : {}),
    ...(stack.length ? { path: stack.map((f) => ({ ...f })) } : {}),
    ...(budget ? { budget } : {}),
  });
}

function describeResource(name: string, type: string): string {
  return `${name} (${type})`;
}

class Expander {
  private processed = 0;
  private readonly files: Map<string, string>;
  /** Which expansion the sandbox is rendering for (its templates share steps and time). */
  private readonly expansion: number;
  /** Time the expansion's templates took in the sandbox, on the deadline's clock: the sandbox's own limit's, not the deadline's. */
  private sandboxTime = 0;

  constructor(
    private readonly imports: Map<string, ImportFile>,
    private readonly options: ExpandOptions,
    private readonly limits: ExpandLimits,
  ) {
    this.files = new Map([...imports].map(([k, v]) => [k, v.content]));
    this.expansion = newExpansion();
  }

  /** What is left of the host's deadline (the clock stopped while the sandbox ran), or undefined without one. */
  private timeLeft(): number | undefined {
    const d = this.options.deadline;
    if (!d) return undefined;
    return d.at - (d.now() - this.sandboxTime);
  }

  /** One level's resources: names unique at this level, then each one depth-first. */
  processList(raw: Json[], where: string, stack: Frame[]): Processed[] {
    const seen = new Set<string>();
    for (const r of raw) {
      const name = isObject(r) ? r['name'] : undefined;
      if (typeof name !== 'string') continue;
      if (seen.has(name)) fail('duplicate_name', `Resource name '${name}' is not unique in ${where}.`, stack);
      seen.add(name);
    }
    return raw.map((r) => this.processResource(r, stack));
  }

  processResource(raw: Json, stack: Frame[]): Processed {
    if (!isObject(raw)) fail('config', `Resource is not a mapping: ${JSON.stringify(raw)}.`, stack);
    const resource = clone(raw) as Resource;
    if (resource.name === undefined || resource.name === null || resource.name === '') fail('config', 'Resource does not have a name.', stack, JSON.stringify(raw));
    if (resource.type === undefined || resource.type === null || resource.type === '') fail('config', 'Resource does not have type defined.', stack, String(resource.name));
    if (typeof resource.name !== 'string' || typeof resource.type !== 'string') {
      fail('config', 'Resource name and type must be strings.', stack, String(resource.name));
    }
    if (++this.processed > this.limits.resources) {
      fail('limit', `Expansion produced more than ${this.limits.resources} resources.`, stack, resource.name);
    }
    const { name, type } = resource;
    const file = this.imports.get(type);
    if (!file) return { config: [resource], layout: { name, type } };
    return this.expandTemplate(resource, file, stack);
  }

  private expandTemplate(resource: Resource, file: ImportFile, stack: Frame[]): Processed {
    const { name, type } = resource;
    const here = [...stack, { name, type }];
    const label = describeResource(name, type);
    const ancestor = stack.findIndex((f) => f.type === type);
    if (ancestor >= 0) {
      const cycle = here.slice(ancestor).map((f) => `${f.type} (${f.name})`).join(' -> ');
      fail('template_cycle', `Template cycle: ${cycle}.`, here, label);
    }
    if (here.length > this.limits.depth) {
      fail('limit', `Templates nest deeper than ${this.limits.depth} levels.`, here, label);
    }

    const schemaName = `${type}.schema`;
    if (this.options.validateSchema !== false && this.imports.has(schemaName)) {
      const checked = validateProperties(resource.properties, schemaName, type, this.imports, { intAlias: this.options.intAlias ?? true });
      if (!checked.ok) fail(checked.code, checked.message, here, label);
      resource.properties = checked.properties;
    }

    const context: TemplateContext = {
      properties: resource.properties ?? null,
      env: { ...(this.options.env ?? {}), name, type },
      imports: Object.fromEntries(this.files),
      name,
      type,
    };
    const output = this.render(type, file, context, here, label, resource);

    if (!isObject(output) || !('resources' in output)) fail('template_output', "Template did not return a 'resources:' field.", here, label);
    const children = isEmptyMapping(output['resources']) ? [] : output['resources'] ?? [];
    if (!Array.isArray(children)) fail('template_output', "Template's 'resources:' field is not a list.", here, label);

    const processed = this.processList(children, type, here);
    const layout: LayoutResource = { name, type };
    if ('properties' in resource && processed.length > 0) layout.properties = resource.properties ?? null;
    if (processed.length > 0) layout.resources = processed.map((p) => p.layout);
    const config = processed.flatMap((p) => p.config);
    const result: Processed = { config, layout };
    if (this.options.outputs !== false) this.resolveOutputs(output['outputs'], processed, result, here, label);
    return result;
  }

  /** Runs the template and returns its output, parsed (a template may also return an object). */
  private render(type: string, file: ImportFile, context: TemplateContext, stack: Frame[], label: string, resource: Resource): Json {
    const language = languageOf(type, file);
    if (language === null) fail('unsupported_language', `Unsupported source file: ${file.path ?? type}.`, stack, label);
    if (file.content.length > this.limits.templateSource) {
      fail('limit', `Template '${type}' is ${file.content.length} characters long, over the limit of ${this.limits.templateSource}.`, stack, label);
    }
    if (language === 'python') {
      if (this.options.deferPython) return { resources: [] };
      if (!this.options.runPython) fail('python_unsupported', `${PYTHON_UNSUPPORTED}: '${type}'.`, stack, label);
      const ran = this.inSandbox(() => this.options.runPython!(file.content, { ...context, expansion: this.expansion }, Object.fromEntries(this.files)));
      const clockSaid = !ran.ok && ran.timedOut ? 'time' : undefined;
      if (!ran.ok && ran.reason === 'limit') fail('limit', `Python template '${type}' ${ran.message}.`, stack, label, clockSaid);
      if (!ran.ok && ran.reason === 'unavailable') fail('python_unavailable', `Python template '${type}' could not run: ${ran.message}.`, stack, label, clockSaid);
      if (!ran.ok) fail('template', `Exception in template '${type}': ${ran.message}`, stack, label);
      if (typeof ran.value !== 'string') return ran.value;
      return this.parseOutput(ran.value, type, stack, label);
    }
    const renderJinja = this.options.renderJinja;
    if (!renderJinja) {
      if (this.options.deferJinja) return { resources: [] };
      fail('jinja_unavailable', `Jinja template '${type}' could not render: ${JINJA_UNAVAILABLE}.`, stack, label);
    }
    const left = this.timeLeft();
    if (left !== undefined && left <= 0) fail('limit', `Template '${type}' ran out of time: the expansion's templates had ${this.options.deadline!.ms} ms.`, stack, label, 'time');
    const job: JinjaJob = {
      name: type,
      source: file.content,
      variables: templateVariables(resource, context),
      files: Object.fromEntries(this.files),
      limits: { output: this.limits.templateOutput, range: JINJA_RANGE_LIMIT, steps: this.limits.templateSteps, ms: left ?? JINJA_UNTIMED_MS },
      expansion: this.expansion,
      ...(typeof context.env.project === 'string' ? { project: context.env.project } : {}),
    };
    const rendered = this.inSandbox(() => renderJinja(job));
    if (!rendered.ok) {
      const at = rendered.line ? ` (line ${rendered.line}${rendered.file && rendered.file !== type ? ` of '${rendered.file}'` : ''})` : '';
      // A render stopped by the sandbox's clock ran out of time; one it stopped for memory names no budget of its own.
      const budget = rendered.timedOut ? 'time' : rendered.reason === 'limit' ? (rendered.budget ?? 'volume') : rendered.budget;
      if (rendered.reason === 'unavailable') fail('jinja_unavailable', `Jinja template '${type}' could not render: ${rendered.message}.`, stack, label, budget);
      if (rendered.reason === 'limit') fail('limit', `Template '${type}' ${rendered.message}${at}.`, stack, label, budget);
      fail('template', `Exception in template '${type}': ${rendered.message}${at}`, stack, label);
    }
    return this.parseOutput(rendered.text, type, stack, label);
  }

  /** Runs `f` (a sandbox call) with the deadline's clock stopped: the sandbox's time is its own limit's. */
  private inSandbox<T>(f: () => T): T {
    const clock = this.options.deadline?.now;
    const started = clock?.();
    try {
      return f();
    } finally {
      if (clock && started !== undefined) this.sandboxTime += clock() - started;
    }
  }

  private parseOutput(text: string, type: string, stack: Frame[], label: string): Json {
    if (text.length > this.limits.templateOutput) {
      fail('limit', `Template '${type}' produced ${text.length} characters, over the limit of ${this.limits.templateOutput}.`, stack, label);
    }
    const parsed = parseYaml(text, type);
    if (!parsed.ok) fail('template_output', parsed.message, stack, label);
    return parsed.value ?? null;
  }

  /**
   * PR 167: a template's `outputs:` and its expanded resources' properties may
   * refer to its children's outputs; those references are replaced now, the
   * others stay for deploy time.
   */
  resolveOutputs(declared: Json | undefined, children: Processed[], into: Processed, stack: Frame[], label: string): void {
    const known = new Map<string, Json>();
    for (const child of children) if (child.outputs) known.set(child.layout.name, child.outputs);
    if (known.size > 0) {
      into.config = into.config.map((r) => {
        if (r.properties === undefined) return r;
        const done = substituteReferences(r.properties ?? null, known);
        if (!done.ok) fail('reference', done.message, stack, label);
        return { ...r, properties: done.value as JsonObject | null };
      });
    }
    // DM took outputs only when there were some (`if target['outputs']`): `outputs: []` is none, and leaves no trace in the layout.
    if (pythonFalsy(declared)) return;
    if (!Array.isArray(declared)) fail('template_output', "'outputs:' is not a list.", stack, label);
    const outputs: Output[] = [];
    for (const o of declared) {
      if (!isObject(o) || !Object.hasOwn(o, 'name')) fail('template_output', "Every output needs a 'name'.", stack, label);
      if (typeof o['name'] !== 'string') {
        // DM kept such a name, but `$(ref.NAME.OUTPUT)` looks an output up by its text, so nothing could use it.
        fail('template_output', `Output name ${JSON.stringify(o['name'])} is not text, so no $(ref.NAME.OUTPUT) could name it.`, stack, label);
      }
      if (!Object.hasOwn(o, 'value')) {
        // DM's parent read every child output's value (KeyError 'value'); the configuration's own outputs have no parent and keep none.
        if (stack.length > 0) fail('template_output', `Output '${o['name']}' has no 'value'.`, stack, label);
        outputs.push({ name: o['name'] });
        continue;
      }
      const value = o['value']!;
      const done = known.size > 0 ? substituteReferences(value, known) : { ok: true as const, value };
      if (!done.ok) fail('reference', done.message, stack, label);
      outputs.push({ name: o['name'], value: done.value });
    }
    into.layout.outputs = outputs;
    into.outputs = Object.fromEntries(outputs.map((o) => [o.name, o.value ?? null]));
  }
}

/**
 * PyYAML reads `.inf` and `.nan`, but DM's service carried the expansion as
 * JSON (ghodss/yaml into Go's encoding/json), which has neither, and failed
 * ("json: unsupported value: +Inf"); Keelson's results are JSON too (the
 * console, the API, Kubernetes), where such a number would silently become
 * null. So it is refused, naming the resource and where it sits.
 */
function refuseNonFinite(config: Resource[], layout: { resources: LayoutResource[]; outputs?: Output[] }): void {
  const find = (v: Json | undefined, at: string): { at: string; value: number } | undefined => {
    if (typeof v === 'number') return Number.isFinite(v) ? undefined : { at, value: v };
    const entries: [string, Json][] = Array.isArray(v) ? v.map((x, i) => [`${at}[${i}]`, x]) : isObject(v) ? Object.entries(v).map(([k, x]) => [`${at}.${k}`, x]) : [];
    for (const [where, x] of entries) {
      const found = find(x, where);
      if (found) return found;
    }
    return undefined;
  };
  const refuse = (found: { at: string; value: number } | undefined, resource: string, stack: Frame[]) => {
    if (!found) return;
    const yaml = Number.isNaN(found.value) ? '.nan' : found.value > 0 ? '.inf' : '-.inf';
    fail('config', `${found.at} is ${yaml}, a number JSON cannot carry (DM's service failed on it too); quote it ('${yaml}') if it is meant as text.`, stack, resource);
  };
  for (const r of config) refuse(find(r.properties ?? null, 'properties'), r.name, []);
  const walk = (node: LayoutResource, stack: Frame[]): void => {
    refuse(find(node.properties ?? null, 'properties'), node.name, stack);
    refuse(find((node.outputs ?? null) as Json, 'outputs'), node.name, stack);
    node.resources?.forEach((child) => walk(child, [...stack, { name: child.name, type: child.type }]));
  };
  layout.resources.forEach((node) => walk(node, [{ name: node.name, type: node.type }]));
  refuse(find((layout.outputs ?? null) as Json, 'outputs'), 'config', []);
}

/** Python's falsehood for YAML values: DM tested `if x:`. */
function pythonFalsy(v: Json | undefined): boolean {
  return v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || isEmptyMapping(v);
}

/** Expands a configuration: the engine's one entry point. */
export function expandConfiguration(input: ExpandInput, options: ExpandOptions = {}): ExpandResult {
  const limits: ExpandLimits = { ...DEFAULT_LIMITS, ...(options.limits ?? {}) };
  const empty = (errors: DmError[]): ExpandResult => ({
    config: { resources: [] },
    layout: { resources: [] },
    references: { edges: [], ordering: [], unknown: [], cycles: [], order: [] },
    errors,
  });
  // A configuration given as an object came in an object, which the object loader has already sized.
  if (typeof input.config === 'string' && input.config.length > limits.configSource) {
    return empty([{ code: 'limit', message: `ExpansionError: The configuration is ${input.config.length} characters long, over the limit of ${limits.configSource}.` }]);
  }
  const parsed = parseConfig(input.config);
  if (!parsed.ok) return empty([{ code: parsed.message.startsWith('Error parsing YAML') ? 'yaml' : 'config', message: `ExpansionError: ${parsed.message}` }]);
  if (parsed.value.resources === null) return empty([]);

  const imports = normalizeImports(input.imports);
  const expander = new Expander(imports, options, limits);
  try {
    const processed = expander.processList(parsed.value.resources, 'config', []);
    const top: Processed = {
      config: processed.flatMap((p) => p.config),
      layout: { name: '', type: '', resources: processed.map((p) => p.layout) },
    };
    if (options.outputs !== false) expander.resolveOutputs(parsed.value.outputs, processed, top, [], 'config');
    if (options.uniquePrimitiveNames !== false) {
      const seen = new Set<string>();
      for (const r of top.config) {
        if (seen.has(r.name)) {
          fail('duplicate_name', `Resource name '${r.name}' is used by more than one resource of the expanded configuration.`, [], r.name);
        }
        seen.add(r.name);
      }
    }
    refuseNonFinite(top.config, { resources: top.layout.resources ?? [], ...(top.layout.outputs ? { outputs: top.layout.outputs } : {}) });
    const written = referenceGraph(top.config);
    if (options.resolveReferences) {
      top.config = resolveWithinConfiguration(top.config);
      const fill = (node: LayoutResource): void => {
        if (node.outputs) node.outputs = node.outputs.map((o) => ('value' in o ? { ...o, value: fillFromResources(o.value ?? null, top.config) } : o));
        node.resources?.forEach(fill);
      };
      fill(top.layout);
    }
    // Cycles and order are the written references' (DM refused a cycle even where each value could be read off the configuration).
    const references = { ...referenceGraph(top.config), ordering: written.edges, cycles: written.cycles, order: written.order };
    const layout: ExpandResult['layout'] = { resources: top.layout.resources ?? [] };
    if (top.layout.outputs) layout.outputs = top.layout.outputs;
    return { config: { resources: top.config }, layout, references, errors: [] };
  } catch (err) {
    if (err instanceof ExpansionFailure) return empty([err.error]);
    // A bug or an exhausted JavaScript stack must still come back as data.
    const message = err instanceof RangeError ? 'expansion nested too deeply' : err instanceof Error ? err.message : String(err);
    return empty([{ code: 'limit', message: `ExpansionError: ${message}` }]);
  }
}

/**
 * The references left in the flat configuration: who must be created after
 * whom (DM's resourcifier order), names that are no resource, and cycles,
 * each reported as its path. A malformed reference fails the expansion.
 */
export function referenceGraph(resources: Resource[]): ReferenceGraph {
  const names = new Set(resources.map((r) => r.name));
  const edges: ReferenceEdge[] = [];
  const unknown: ReferenceEdge[] = [];
  const seen = new Set<string>();
  for (const r of resources) {
    const found = collectReferences((r.properties ?? null) as Json);
    if (!found.ok) fail('reference', found.message, [], r.name);
    for (const ref of found.value) {
      const key = `${r.name}\u0000${ref.name}\u0000${ref.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const edge = { from: r.name, to: ref.name, path: ref.path };
      (names.has(ref.name) ? edges : unknown).push(edge);
    }
  }
  const dependsOn = new Map<string, string[]>(resources.map((r) => [r.name, []]));
  for (const e of edges) {
    const list = dependsOn.get(e.from)!;
    if (!list.includes(e.to)) list.push(e.to);
  }
  const cycles = findCycles([...dependsOn.keys()], dependsOn);
  return { edges, ordering: edges, unknown, cycles, order: cycles.length ? null : topologicalOrder([...dependsOn.keys()], dependsOn) };
}

/** One cycle per strongly connected component that has one (self-references included), as a path. */
function findCycles(nodes: string[], next: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const reported = new Set<string>();
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of next.get(n) ?? []) {
      if (state.get(m) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(m)), m];
        const key = [...new Set(cycle)].sort().join('\u0000');
        if (!reported.has(key)) { reported.add(key); cycles.push(cycle); }
      } else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of nodes) if (!state.has(n)) visit(n);
  return cycles;
}

/** Referees before referrers; ties keep configuration order, so the order is stable. */
function topologicalOrder(nodes: string[], dependsOn: Map<string, string[]>): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < nodes.length) {
    const ready = nodes.find((n) => !placed.has(n) && (dependsOn.get(n) ?? []).every((d) => placed.has(d)));
    if (ready === undefined) break;
    placed.add(ready);
    order.push(ready);
  }
  return order;
}
