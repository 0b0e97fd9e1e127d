/**
 * Golden cases per stage, as data: server/engine/testdata/<source>/<stage>/*.yaml.
 * Each file holds a `note`, the stage's input and `want`, the expected
 * output and diagnostics. One runner per stage (RUNNERS below) turns a
 * case's input into the shape of its `want`:
 *
 *   validate  `input` (YAML text) → loadObjects: the objects loaded and the
 *             diagnostics (code, severity, object, path, line, column, message)
 *   resolve   `users`, `domainAdmins`, `policy` (objects as written) →
 *             runEngine: per claim its outcome, per instance its code,
 *             discovery, dependencies and claims
 *   select    `policy` (Capact objects and actions as written) → runEngine
 *             once per merge mode (the Global policy's `merge.mode` set to
 *             each): per action its outcome, the Implementation chosen and
 *             what the merged policy injected
 *   install   (Landscaper) `objects` (Landscaper's documents), `blueprints`
 *             (name → files), `clusters` (Keelson clusters the Targets
 *             name) → the install engine's run (order, per installation
 *             its scope, phases, errors and deploy items, the data objects
 *             written) and the install stage's output (per root
 *             installation its outcome, per instance its code)
 *   expand    (DM) `config` (YAML text), `imports`, `env`, `options` → DM's
 *             expansion: config, layout, references left (for the cluster,
 *             unknown, cycles) and the creation order, errors
 *   place     (Axebow) `rules`, `tenant`, `user`, `service`, `resources`,
 *             `candidates` → environment selection: the environment chosen,
 *             every candidate's outcome and reasons, and the save-time
 *             problems of the rules
 *
 * A case reads the corpus (the repository's corpus/) where its input is
 * there already, rather than copying it: `{$file: corpus/…}` stands for a
 * file's text, `{$doc: corpus/…}` for a YAML file read (with the mapping's
 * other entries added, when it has any), `{$dir: corpus/…}`
 * for a folder's files (path → text), and in a list `{$docs: corpus/…}`
 * for a YAML file's documents, or those of every .yaml file in a folder (or the same
 * under server/engine/testdata/fixtures/, for input several cases share).
 *
 * Every case is its own test, and every entry of `want` (a claim, an
 * instance, a diagnostic) its own subtest, so one difference does not hide
 * the rest. A stage folder without a runner fails the run, so a new stage's
 * cases cannot be silently ignored.
 *
 * Run with KEELSON_UPDATE_GOLDEN=1 to rewrite every `want` from the current
 * engine (notes, comments and inputs are kept) — then review the diff
 * before committing.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseDocument, stringify } from 'yaml';
import { selectEnvironment, checkRules, type Candidate, type NeededResource, type Rules } from './axebow/stage';
import { formatDiagnostic, formatPath, hasErrors, type Diagnostic } from './diagnostics';
import { expand as expandDm, type ExpandInput, type ExpandOptions } from './dm';
import { runEngine, STAGE_ORDER, type EngineObject } from './index';
import { installOutputOf } from './landscaper/stage';
import { installAll, parseYamlDocuments, type BlueprintStore, type LandscaperError } from './landscaper';
import type { Cluster } from './model/kinds';
import { planRevision } from './plan';
import type { PolicyUser } from './model/users';
import { loadObjects } from './model/validate';
import { resolvePolicy } from './resolve';
import type { ClaimOutcome, DesiredState } from './state';
import { plugTemplateSandbox, pythonSandbox } from '../dm-python';

// DM's Jinja and Python templates render in the sandbox, as on every server thread that expands them.
plugTemplateSandbox();

const HERE = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const ROOT = join(HERE, 'testdata');
/** The repository, whose corpus/ cases read through `$file`, `$dir` and `$docs`. */
const REPO = join(HERE, '..', '..');
const UPDATE = process.env.KEELSON_UPDATE_GOLDEN === '1';

/**
 * Folders of testdata/ that hold fixtures read by other tests by path, not
 * golden cases (fixtures/plan: plan/cost.test.ts and plan/corpus.test.ts).
 * Every other folder is a source.
 */
const NOT_CASES = new Set(['fixtures']);

/** What running a case gives: its result in the shape of `want`, and checks that are not part of `want`. */
interface Run {
  got: Record<string, unknown>;
  checks?: Record<string, () => void>;
}

interface StageRunner {
  /** A sanity floor: fewer cases than this in one source's stage folder means files went missing. */
  minimum: number;
  run(c: Record<string, unknown>, file: string): Run;
}

// ---------------------------------------------------------------- validate

interface ValidateCase {
  input: string;
}

/** A diagnostic as a case states it: the fields a user sees, without the file name. */
function diagnosticRow(d: Diagnostic) {
  return {
    code: d.code,
    severity: d.severity,
    ...(d.object !== undefined ? { object: d.object } : {}),
    ...(d.path !== undefined ? { path: d.path } : {}),
    ...(d.line !== undefined ? { line: d.line } : {}),
    ...(d.column !== undefined ? { column: d.column } : {}),
    message: d.message,
  };
}

const validate: StageRunner = {
  minimum: 6,
  run(raw) {
    const c = raw as unknown as ValidateCase;
    assert.equal(typeof c.input, 'string', 'a validate case needs `input`, the YAML text');
    const r = loadObjects(c.input);
    return {
      got: {
        objects: r.objects.map((o) => `${o.kind}/${o.namespace}/${o.name}`),
        diagnostics: r.diagnostics.map(diagnosticRow),
      },
    };
  },
};

// ---------------------------------------------------------------- resolve

interface ResolveCase {
  users: { name: string; labels?: Record<string, string | number | boolean>; domainadmin?: boolean }[];
  domainAdmins?: string[];
  /**
   * Claims resolved in the deployed generation (PolicyInput.deployedClaims):
   * their keys, deployed as `policy` has them, or a list of claim objects as
   * they were deployed.
   */
  deployed?: (string | Record<string, unknown>)[];
  policy: unknown[];
}

/** A request's failures as its stage reports them: one Diagnostic per message shown (code, the words, and where: object, field, line). */
function failures(c: ClaimOutcome) {
  assert.deepEqual(c.diagnostics?.map((d) => d.message) ?? [], c.errors, `${c.namespace}/${c.name}: one diagnostic per error, in the same words`);
  return (c.diagnostics ?? []).map((d) => ({
    code: d.code,
    message: d.message,
    ...(d.object ? { object: d.object } : {}),
    ...(d.path ? { path: formatPath(d.path) } : {}),
    ...(d.line !== undefined ? { line: d.line, column: d.column } : {}),
  }));
}

/** What a case pins down: outcomes per claim, and per instance its code, discovery, dependencies and claims. */
function summary(state: DesiredState) {
  return {
    claims: Object.fromEntries(
      state.claims.map((c) => [
        `${c.namespace}/${c.name}`,
        { status: c.status, ...(c.instance ? { instance: c.instance } : {}), ...(c.errors.length ? { errors: failures(c) } : {}) },
      ]),
    ),
    instances: Object.fromEntries(
      state.instances.map((i) => [
        i.key,
        {
          claims: i.claims,
          ...(i.code ? { code: i.code } : {}),
          ...(Object.keys(i.discovery).length ? { discovery: i.discovery } : {}),
          ...(i.dependsOn.length ? { dependsOn: i.dependsOn } : {}),
          ...(i.error ? { error: i.error } : {}),
        },
      ]),
    ),
  };
}

const resolve: StageRunner = {
  minimum: 8,
  run(raw, file) {
    const c = raw as unknown as ResolveCase;
    const loaded = loadObjects(stringify(c.policy), file);
    assert.ok(!hasErrors(loaded.diagnostics), loaded.diagnostics.map(formatDiagnostic).join('\n'));
    const users: PolicyUser[] = c.users.map((u) => ({
      name: u.name,
      labels: Object.fromEntries(Object.entries(u.labels ?? {}).map(([k, v]) => [k, String(v)])),
      secrets: {},
      domainAdmin: u.domainadmin,
    }));
    const input = { objects: loaded.objects, users, domainAdmins: c.domainAdmins, ...(c.deployed ? { deployedClaims: deployedOf(c.deployed, loaded.objects, file) } : {}) };
    const got = summary(runEngine(input));
    return {
      got,
      checks: {
        // Memoised and plain walks must agree on every case too.
        'memoised and plain walks agree': () => assert.deepEqual(summary(resolvePolicy({ ...input, memo: false })), got),
      },
    };
  },
};

/** A case's `deployed` as the engine takes it: claim key → its spec as deployed (JSON). */
function deployedOf(deployed: NonNullable<ResolveCase['deployed']>, objects: readonly { kind: string; namespace: string; name: string; spec: unknown }[], file: string): Map<string, string> {
  const claims = deployed.map((d) => {
    if (typeof d !== 'string') return loadObjects(stringify([d]), file).objects[0]!;
    const found = objects.find((o) => o.kind === 'claim' && `${o.namespace}/${o.name}` === d);
    assert.ok(found, `${file}: deployed claim ${d} is not in the policy`);
    return found;
  });
  return new Map(claims.map((o) => [`${o.namespace}/${o.name}`, JSON.stringify(o.spec)]));
}

// ---------------------------------------------------------------- plan

interface PlanCase {
  users: ResolveCase['users'];
  /** The applied policy (absent: nothing applied yet). */
  before?: unknown[];
  after: unknown[];
}

function stateOf(policy: unknown[], users: ResolveCase['users'], file: string) {
  const loaded = loadObjects(stringify(policy), file);
  assert.ok(!hasErrors(loaded.diagnostics), loaded.diagnostics.map(formatDiagnostic).join('\n'));
  const people: PolicyUser[] = users.map((u) => ({
    name: u.name,
    labels: Object.fromEntries(Object.entries(u.labels ?? {}).map(([k, v]) => [k, String(v)])),
    secrets: {},
  }));
  const clusters = loaded.objects.filter((o) => o.kind === 'cluster').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as Cluster }));
  return { state: runEngine({ objects: loaded.objects, users: people }), clusters };
}

const plan: StageRunner = {
  minimum: 3,
  run(raw, file) {
    const c = raw as unknown as PlanCase;
    const after = stateOf(c.after, c.users, file);
    const before = c.before ? stateOf(c.before, c.users, file).state : null;
    const p = planRevision({ before, after: after.state, clusters: after.clusters });
    return {
      got: {
        counts: Object.fromEntries(Object.entries(p.counts).filter(([, n]) => n > 0)),
        // What an actuator runs, in order: action, instance, the earlier steps it waits for.
        steps: p.steps.map((st) => `${st.index} ${st.action} ${st.key}${st.code ? ` (${st.code.type})` : ''}${st.waitsFor.length ? ` after ${st.waitsFor.join(',')}` : ''}`),
        sections: Object.fromEntries(
          p.sections.map((sec) => [
            sec.namespace,
            {
              counts: Object.fromEntries(Object.entries(sec.counts).filter(([, n]) => n > 0)),
              ...(sec.overMarks ? { overMarks: true } : {}),
              ...(sec.needsDomainAdmin.length ? { needsDomainAdmin: sec.needsDomainAdmin } : {}),
            },
          ]),
        ),
        changedClaims: p.changedClaims,
        notes: p.notes.map((n) => JSON.parse(JSON.stringify(n)) as unknown),
      },
    };
  },
};

// ---------------------------------------------------------------- select

interface SelectCase {
  policy: Record<string, unknown>[];
}

const MERGE_MODES = ['documented', 'capact-compat'] as const;

const isGlobalPolicy = (o: Record<string, unknown>) => {
  const md = o.metadata as { namespace?: string; name?: string } | undefined;
  return String(o.kind).toLowerCase() === 'policy' && md?.namespace === 'system' && md.name === 'global';
};

/** Per action: its outcome, and from its trace the Implementation chosen and what was injected. */
function actionSummary(state: DesiredState) {
  return Object.fromEntries(
    state.claims
      .filter((c) => c.kind === 'action')
      .map((c) => {
        const chosen = c.trace.find((s) => s.kind === 'service' && s.data?.implementation !== undefined)?.data;
        return [
          `${c.namespace}/${c.name}`,
          {
            status: c.status,
            ...(chosen ? { implementation: chosen.implementation, injected: chosen.injected } : {}),
            ...(c.errors.length ? { errors: failures(c) } : {}),
          },
        ];
      }),
  );
}

const select: StageRunner = {
  minimum: 4,
  run(raw, file) {
    const c = raw as unknown as SelectCase;
    assert.ok(c.policy.some(isGlobalPolicy), 'a select case needs the Global policy (policy/system/global): it carries the merge mode');
    const got = Object.fromEntries(
      MERGE_MODES.map((mode) => {
        const policy = c.policy.map((o) => (isGlobalPolicy(o) ? { ...o, merge: { ...(o.merge as object | undefined), mode } } : o));
        const loaded = loadObjects(stringify(policy), file);
        assert.ok(!hasErrors(loaded.diagnostics), loaded.diagnostics.map(formatDiagnostic).join('\n'));
        return [mode, actionSummary(runEngine({ objects: loaded.objects, users: [] }))];
      }),
    );
    return { got };
    },
  };

// ---------------------------------------------------------------- expand (DM)

interface ExpandCase {
  /** The configuration's YAML text, as DM's client sent it. */
  config: string;
  /** The files it imports, by import name (templates, schemas). */
  imports?: ExpandInput['imports'];
  env?: Record<string, string>;
  /** DM's switches where a case departs from Keelson's defaults (e.g. `validateSchema: false`, as DM shipped). */
  options?: Pick<ExpandOptions, 'validateSchema' | 'outputs' | 'intAlias' | 'uniquePrimitiveNames' | 'resolveReferences'>;
}

const expandStage: StageRunner = {
  minimum: 3,
  run(raw) {
    const c = raw as unknown as ExpandCase;
    // As a deployment is expanded for deploying: references the configuration answers filled in.
    // Python templates run in this thread's sandbox, as a deployment's do (expandDeployment's host runner).
    const runPython: ExpandOptions['runPython'] = (source, context, modules) => pythonSandbox().run(source, context, modules);
    const r = expandDm({ config: c.config, imports: c.imports ?? {} }, { env: { deployment: 'golden', project: 'golden', ...c.env }, resolveReferences: true, runPython, ...c.options });
    // Through JSON, as the layout reaches the GitOps renderer and the API.
    return {
      got: JSON.parse(
        JSON.stringify({
          config: r.config,
          layout: r.layout,
          // Left for the cluster (edges), naming no resource (unknown), and cycles among them.
          references: { edges: r.references.edges, unknown: r.references.unknown, cycles: r.references.cycles, order: r.references.order },
          // Each error with its code (template, properties, limit…), as the editor and the API report it.
          errors: r.errors.map((e) => `${e.code}: ${e.message}`),
        }),
      ) as Record<string, unknown>,
    };
  },
};

// ---------------------------------------------------------------- install (Landscaper)

interface InstallCase {
  /** Landscaper's documents as written: Installations, DataObjects, Targets, Contexts. */
  objects: Record<string, unknown>[];
  /** The blueprint store: a blueprint's name (or `cd://` reference) → its files. */
  blueprints?: BlueprintStore;
  /** Keelson clusters (in `system`) the Targets name: with them, deploy items become instances. */
  clusters?: string[];
}

/** Landscaper's root documents as the install stage holds them: Keelson objects of their kind. */
function installObjects(c: InstallCase): EngineObject[] {
  const clusters = (c.clusters ?? []).map((name) => ({ kind: 'cluster', namespace: 'system', name, spec: { type: 'kubernetes', config: {} } }));
  const installations = c.objects
    .filter((o) => o.kind === 'Installation')
    .map((o) => {
      const md = (o.metadata ?? {}) as { name?: string; namespace?: string };
      return { kind: 'installation', namespace: md.namespace ?? 'default', name: md.name ?? '', spec: o };
    });
  return [...clusters, ...installations];
}

const install: StageRunner = {
  minimum: 3,
  run(raw) {
    const c = raw as unknown as InstallCase;
    assert.ok(Array.isArray(c.objects), 'an install case needs `objects`, Landscaper documents');
    const run = installAll({ objects: c.objects, blueprints: c.blueprints ?? {} });
    // An error as a caller reads it: its code and line, and the cycle or the exporters it names.
    const errorText = (e: LandscaperError) => ({ code: e.code, message: e.message, ...(e.path ? { path: e.path } : {}), ...(e.cycle ? { cycle: e.cycle } : {}), ...(e.exportedBy ? { exportedBy: e.exportedBy } : {}) });
    const got: Record<string, unknown> = {
      order: run.order,
      installations: Object.fromEntries(
        run.installations.map((i) => [
          i.name,
          {
            scope: i.scope,
            // Each phase with why, as the console's installation page lists them.
            phases: i.phases.map((p) => `${p.phase}${p.reason ? `: ${p.reason}` : ''}`),
            ...(i.errors.length ? { errors: i.errors.map(errorText) } : {}),
            ...(Object.keys(i.imports).length ? { imports: i.imports } : {}),
            ...(Object.keys(i.exports).length ? { exports: i.exports } : {}),
            ...(i.deployItems.length
              ? {
                  deployItems: Object.fromEntries(
                    i.deployItems.map((d) => [d.name, { type: d.type, phase: d.phase, config: d.config, ...(Object.keys(d.exports).length ? { exports: d.exports } : {}), ...(d.note ? { note: d.note } : {}) }]),
                  ),
                }
              : {}),
          },
        ]),
      ),
      dataObjects: run.dataObjects,
      errors: run.errors.map(errorText),
    };
    if (c.clusters) {
      // The stage over the same run: what a revision would deploy, and each root's outcome.
      const out = installOutputOf(installObjects(c), run);
      got.outcomes = Object.fromEntries(
        out.claims.map((o) => [`${o.namespace}/${o.name}`, { status: o.status, ...(o.errors.length ? { errors: failures(o) } : {}), ...(o.instances.length ? { instances: o.instances } : {}) }]),
      );
      got.instances = Object.fromEntries(out.instances.map((i) => [i.key, { target: `${i.target.cluster}/${i.target.namespace}`, ...(i.code ? { code: i.code } : {}), ...(i.labels && Object.keys(i.labels).length ? { labels: i.labels } : {}) }]));
    }
    return { got: JSON.parse(JSON.stringify(got)) as Record<string, unknown> };
  },
};

// ---------------------------------------------------------------- place (Axebow)

interface PlaceCase {
  rules?: Rules;
  tenant?: Record<string, unknown>;
  user: Record<string, unknown>;
  /** `$.service`, the same wherever it lands, unless `services` names a candidate. */
  service: Record<string, unknown>;
  /** `$.service` on a candidate, by its name (the cost where it lands). */
  services?: Record<string, Record<string, unknown>>;
  resources?: NeededResource[];
  /** Candidates; `info` defaults to `{id, name, meta, labels: {}}`, `over` to none, `free` is freeVcpuMillisAfter. */
  candidates: { id: number; name: string; free: number | null; meta?: Record<string, unknown>; info?: Record<string, unknown>; over?: Candidate['over'] }[];
}

const place: StageRunner = {
  minimum: 4,
  run(raw) {
    const c = raw as unknown as PlaceCase;
    assert.ok(Array.isArray(c.candidates), 'a place case needs `candidates`');
    const rules = c.rules ?? {};
    const s = selectEnvironment({
      rules,
      tenant: c.tenant ?? { name: 'acme' },
      user: c.user,
      service: (cand) => c.services?.[cand.name] ?? c.service,
      resources: c.resources ?? [],
      candidates: c.candidates.map((x) => ({
        id: x.id,
        name: x.name,
        info: x.info ?? { id: x.id, name: x.name, meta: x.meta ?? {}, labels: {} },
        over: x.over ?? [],
        freeVcpuMillisAfter: x.free,
      })),
    });
    return {
      got: {
        chosen: s.chosen,
        table: s.table,
        problems: checkRules(rules).map((p) => `${p.path}: ${p.message}`),
      },
    };
  },
};

// ---------------------------------------------------------------- corpus references

/**
 * A case's input with its corpus references read: `{$file}` → the file's
 * text, `{$doc}` → its YAML (plus the mapping's other entries), `{$dir}` → the folder's files by relative path,
 * `{$docs}` in a list → the YAML documents of the file (or the folder's
 * .yaml files) in its place. Paths are the repository's.
 */
function withCorpus(x: unknown, file: string): unknown {
  if (Array.isArray(x)) return x.flatMap((v) => (isMapping(v) && typeof v.$docs === 'string' ? docsAt(v.$docs, file) : [withCorpus(v, file)]));
  if (!isMapping(x)) return x;
  if (typeof x.$file === 'string') return readRepo(x.$file, file);
  if (typeof x.$doc === 'string') {
    // The document, with the mapping's other entries added (e.g. the envelope a corpus policy lacks).
    const { $doc, ...rest } = x;
    const doc = parseYamlDocuments(readRepo($doc, file))[0];
    if (Object.keys(rest).length === 0) return doc;
    assert.ok(isMapping(doc), `${file}: ${$doc} is no mapping to add entries to`);
    return { ...doc, ...(withCorpus(rest, file) as Record<string, unknown>) };
  }
  if (typeof x.$dir === 'string') return filesUnder(join(REPO, repoPath(x.$dir, file)), '');
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, withCorpus(v, file)]));
}

/** A YAML file's documents, or every document of the .yaml files under a folder (by path). */
function docsAt(path: string, file: string): unknown[] {
  const abs = join(REPO, repoPath(path, file));
  if (!statSync(abs).isDirectory()) return parseYamlDocuments(readRepo(path, file));
  return Object.entries(filesUnder(abs, ''))
    .filter(([name]) => name.endsWith('.yaml'))
    .flatMap(([, text]) => parseYamlDocuments(text));
}

function readRepo(path: string, file: string): string {
  return readFileSync(join(REPO, repoPath(path, file)), 'utf8');
}

/** A case reads the corpus, or fixtures several cases and tests share (testdata/fixtures/). */
function repoPath(path: string, file: string): string {
  assert.ok(/^(corpus|server\/engine\/testdata\/fixtures)\/[^]*$/.test(path) && !path.split('/').includes('..'), `${file}: ${path}: a case reads only corpus/ and server/engine/testdata/fixtures/`);
  return path;
}

function filesUnder(dir: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) Object.assign(out, filesUnder(p, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(p, 'utf8');
  }
  return out;
}

/**
 * One runner per stage; a stage folder not listed here fails the run.
 * Axebow's placement is no stage of the policy engine (a service is placed
 * when it is deployed), so it has a name of its own.
 */
const RUNNERS: Partial<Record<(typeof STAGE_ORDER)[number] | 'place', StageRunner>> = { validate, select, resolve, install, expand: expandStage, plan, place };

// ---------------------------------------------------------------- the walk

interface StageFolder {
  source: string;
  stage: string;
  dir: string;
  files: string[];
}

/** Every testdata/<source>/<stage>/ folder, and what in the layout is not where a case belongs. */
function walk(): { folders: StageFolder[]; problems: string[] } {
  const folders: StageFolder[] = [];
  const problems: string[] = [];
  for (const s of readdirSync(ROOT, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (NOT_CASES.has(s.name)) continue;
    if (!s.isDirectory()) {
      problems.push(`testdata/${s.name}: cases belong in testdata/<source>/<stage>/`);
      continue;
    }
    const sourceDir = join(ROOT, s.name);
    for (const st of readdirSync(sourceDir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const where = `testdata/${s.name}/${st.name}`;
      if (!st.isDirectory()) {
        problems.push(`${where}: cases belong in a stage folder, testdata/${s.name}/<stage>/`);
        continue;
      }
      if (!Object.hasOwn(RUNNERS, st.name)) {
        problems.push(`${where}: no runner for stage "${st.name}" (runners: ${Object.keys(RUNNERS).join(', ')})`);
        continue;
      }
      const dir = join(sourceDir, st.name);
      const entries = readdirSync(dir, { withFileTypes: true });
      for (const e of entries) if (!e.isFile() || !e.name.endsWith('.yaml')) problems.push(`${where}/${e.name}: not a .yaml case`);
      const files = entries.filter((e) => e.isFile() && e.name.endsWith('.yaml')).map((e) => e.name).sort();
      folders.push({ source: s.name, stage: st.name, dir, files });
    }
  }
  return { folders, problems };
}

/**
 * The subtests of a case: one per entry of each section of `want` or of the
 * result (a mapping's key, a list's index), so a missing or extra entry is
 * one failure and a changed one names itself.
 */
function rows(got: Record<string, unknown>, want: Record<string, unknown>): [string, () => void][] {
  const out: [string, () => void][] = [];
  const keys = (x: unknown) => (x && typeof x === 'object' ? Object.keys(x) : []);
  for (const section of union(Object.keys(want), Object.keys(got))) {
    const w = want[section];
    const g = got[section];
    if (Array.isArray(w) || Array.isArray(g)) {
      const wl = Array.isArray(w) ? w : [];
      const gl = Array.isArray(g) ? g : [];
      if (wl.length === 0 && gl.length === 0) out.push([`${section}: none`, () => assert.deepEqual(g, w)]);
      for (let i = 0; i < Math.max(wl.length, gl.length); i++) out.push([`${section}[${i}]`, () => assert.deepEqual(gl[i], wl[i])]);
    } else if (isMapping(w) || isMapping(g)) {
      const ks = union(keys(w), keys(g));
      if (ks.length === 0) out.push([`${section}: none`, () => assert.deepEqual(g, w)]);
      for (const k of ks) {
        out.push([`${section}: ${k}`, () => assert.deepEqual((g as Record<string, unknown> | undefined)?.[k], (w as Record<string, unknown> | undefined)?.[k])]);
      }
    } else out.push([section, () => assert.deepEqual(g, w)]);
  }
  return out;
}

function isMapping(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...a, ...b.filter((x) => !a.includes(x))];
}

const { folders, problems } = walk();

describe('golden cases: the layout', () => {
  test('every folder is testdata/<source>/<stage>/ with a runner for the stage, holding .yaml cases', () => {
    assert.deepEqual(problems, []);
  });
  test('every stage with a runner has cases', () => {
    assert.deepEqual(Object.keys(RUNNERS).filter((st) => !folders.some((f) => f.stage === st)), []);
  });
});

for (const folder of folders) {
  const runner = RUNNERS[folder.stage as keyof typeof RUNNERS]!;
  describe(`golden cases: ${folder.source}/${folder.stage}`, () => {
    test(`there are cases (at least ${runner.minimum})`, () => assert.ok(folder.files.length >= runner.minimum, `${folder.files.length} cases`));
    for (const f of folder.files) {
      test(f.replace(/\.yaml$/, ''), async (t) => {
        const path = join(folder.dir, f);
        const text = readFileSync(path, 'utf8');
        const c = parseDocument(text).toJS() as Record<string, unknown>;
        const { want, ...input } = c;
        const { got, checks = {} } = runner.run({ ...(withCorpus(input, f) as Record<string, unknown>), want }, f);
        // Only a case whose result changed is rewritten: the others keep their layout as written.
        if (UPDATE && JSON.stringify(c.want) !== JSON.stringify(got)) {
          const doc = parseDocument(text);
          // Written out in full: YAML anchors would make the expectations hard to read.
          doc.set('want', doc.createNode(got, { aliasDuplicateObjects: false }));
          writeFileSync(path, doc.toString({ lineWidth: 0 }));
          for (const [name, check] of Object.entries(checks)) await t.test(name, check);
          return;
        }
        assert.ok(isMapping(c.want), `${f} has no want: run with KEELSON_UPDATE_GOLDEN=1 and review`);
        for (const [name, check] of [...rows(got, c.want), ...Object.entries(checks)]) await t.test(name, check);
      });
    }
  });
}
