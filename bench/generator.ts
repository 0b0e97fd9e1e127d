/**
 * Seeded generator of Aptomi's benchmark policies.
 *
 * It reproduces the shape of Aptomi's own generator
 * (`pkg/engine/enginetest/policy_generator.go`, parameters from
 * `pkg/engine/apply/benchmark_test.go`), so that Keelson's resolver is
 * measured on the same kind of input Aptomi was, and so that the emitted YAML
 * can be fed to Aptomi itself for a side-by-side run:
 *
 * - every user carries the same `labels` random labels (Aptomi: 30);
 * - every bundle has `codeComponents` helm components (6), each with a fixed
 *   `target` param plus `codeParams` params (6) of the form
 *   `prefix-{{ .Labels.X }}-suffix`, X being one of the user labels, so every
 *   template renders;
 * - bundle i may get one service component `dep-i → service-j` with j > i
 *   (so the service graph is acyclic), unless that would make a chain longer
 *   than `maxChain` (4) service hops;
 * - service i exposes bundle i through `contextsPerService` contexts (2): all
 *   but the last require labels nobody has, so only the last one matches;
 * - `rules` rules (25): `rules - 1` claim rejections whose criteria never hold,
 *   and one that sets `target` to the single cluster `system/cluster-test`;
 * - `claims` claims, each for a random user and a random service.
 *
 * Go's math/rand sequence is not reproduced (the names and picks differ from
 * Aptomi's run with seed 239); the sizes and structure are. Our PRNG is
 * mulberry32: tiny, fast and good enough for picking indices.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { z } from 'zod';
import type { KIND_SCHEMAS } from '../server/engine/model/kinds';
import type { PolicyUser } from '../server/engine/model/users';
import type { PolicyObjectInput } from '../server/engine/resolve';

export interface GeneratorParams {
  seed: number;
  /** Labels per user (every user has the same set, as in Aptomi). */
  labels: number;
  bundles: number;
  /** Code components per bundle. */
  codeComponents: number;
  /** Templated params per code component (besides the fixed `target`). */
  codeParams: number;
  /** Longest allowed chain of service components (hops between bundles). */
  maxChain: number;
  contextsPerService: number;
  rules: number;
  users: number;
  claims: number;
}

/** Aptomi's fixed parameters, shared by every preset. */
const APTOMI_SHAPE = {
  seed: 239,
  labels: 30,
  codeComponents: 6,
  codeParams: 6,
  maxChain: 4,
  contextsPerService: 2,
  rules: 25,
} as const;

/**
 * small and medium are Aptomi's BenchmarkEngineSmall / BenchmarkEngineMedium.
 * large is the 1,000-bundle / 20,000-claim run of reference/aptomi.md §9,
 * which records no user count. We use 20,000 users, one per claim on average:
 * users are identical (same labels), so their number only changes how many
 * distinct users claims spread over and the size of the user table, and one
 * per claim keeps the users file at a realistic size (between small's 5 claims
 * per user and medium's 5 users per claim) without making user loading the
 * dominant cost.
 *
 * huge (issue 16) is large scaled up: 10,000 bundles and 100,000 claims, with
 * large's proportion of one user per claim (100,000 users). Bundles grow 10×
 * but claims only 5×, so each service gets about 10 claims instead of 20 and
 * the state has about 10× the instances (75,000); everything else (labels,
 * components, contexts, rules, chain length) is Aptomi's shape, as for the
 * others. It takes tens of seconds to resolve, so benchmarks run it only
 * when asked (HEAVY_PRESET_NAMES).
 */
export const PRESETS = {
  small: { ...APTOMI_SHAPE, bundles: 50, users: 100, claims: 500 },
  medium: { ...APTOMI_SHAPE, bundles: 100, users: 10_000, claims: 2_000 },
  large: { ...APTOMI_SHAPE, bundles: 1_000, users: 20_000, claims: 20_000 },
  huge: { ...APTOMI_SHAPE, bundles: 10_000, users: 100_000, claims: 100_000 },
} as const satisfies Record<string, GeneratorParams>;

export type PresetName = keyof typeof PRESETS;
/** Presets too slow for every `npm run bench`: only benchmarks selected by name run them. */
export const HEAVY_PRESET_NAMES = ['huge'] as const satisfies readonly PresetName[];
export type HeavyPresetName = (typeof HEAVY_PRESET_NAMES)[number];
/** The presets a default run measures (all but the heavy ones), smallest first. */
export const PRESET_NAMES = (Object.keys(PRESETS) as PresetName[]).filter((p): p is Exclude<PresetName, HeavyPresetName> => !(HEAVY_PRESET_NAMES as readonly string[]).includes(p));

export function isPresetName(s: string): s is PresetName {
  return Object.hasOwn(PRESETS, s);
}

// ---------------------------------------------------------------- objects

export const NAMESPACE = 'main';
export const CLUSTER_NAMESPACE = 'system';
export const CLUSTER_NAME = 'cluster-test';

export interface Metadata {
  namespace: string;
  name: string;
}

export interface GeneratedCodeComponent {
  name: string;
  code: { type: 'helm'; params: Record<string, string> };
}
export interface GeneratedServiceComponent {
  name: string;
  /** A service in the bundle's own namespace. */
  service: string;
}
export type GeneratedComponent = GeneratedCodeComponent | GeneratedServiceComponent;

export interface GeneratedBundle {
  kind: 'bundle';
  metadata: Metadata;
  components: GeneratedComponent[];
}

export interface GeneratedContext {
  name: string;
  criteria: { 'require-all': string[]; 'require-any'?: string[] };
  allocation: { bundle: string };
}

export interface GeneratedService {
  kind: 'service';
  metadata: Metadata;
  contexts: GeneratedContext[];
}

export interface GeneratedRule {
  kind: 'rule';
  metadata: Metadata;
  weight: number;
  criteria: { 'require-all': string[] };
  actions: { claim: 'reject' } | { 'change-labels': { set: Record<string, string> } };
}

export interface GeneratedClaim {
  kind: 'claim';
  metadata: Metadata;
  user: string;
  service: string;
}

export interface GeneratedCluster {
  kind: 'cluster';
  metadata: Metadata;
  type: 'kubernetes';
  config: { defaultnamespace: string };
}

export type GeneratedObject = GeneratedBundle | GeneratedService | GeneratedRule | GeneratedClaim | GeneratedCluster;

// The generated shapes are narrower than the schemas' inputs; these fail to
// compile if a schema change makes generated objects invalid.
type SchemaInput<K extends keyof typeof KIND_SCHEMAS> = z.input<(typeof KIND_SCHEMAS)[K]>;
type Assignable<T extends U, U> = T;
export type SchemaChecks = [
  Assignable<GeneratedBundle, SchemaInput<'bundle'>>,
  Assignable<GeneratedService, SchemaInput<'service'>>,
  Assignable<GeneratedRule, SchemaInput<'rule'>>,
  Assignable<GeneratedClaim, SchemaInput<'claim'>>,
  Assignable<GeneratedCluster, SchemaInput<'cluster'>>,
];

export interface GeneratedStats {
  bundles: number;
  services: number;
  contexts: number;
  /** Bundles that got a service component (`dep-i`). */
  serviceComponents: number;
  /** Longest chain of service components actually generated. */
  longestChain: number;
  rules: number;
  claims: number;
  clusters: number;
  users: number;
  labelsPerUser: number;
  objects: number;
}

export interface GeneratedPolicy {
  params: GeneratorParams;
  objects: GeneratedObject[];
  users: PolicyUser[];
  stats: GeneratedStats;
}

/**
 * The generated objects as the engine takes them. The generator's shapes are
 * checked against the kinds' schemas (SchemaChecks), so the cast only drops
 * the generator's narrower types.
 */
export function toPolicyInput(g: GeneratedPolicy, users: readonly PolicyUser[] = g.users): { objects: PolicyObjectInput[]; users: readonly PolicyUser[] } {
  const objects = g.objects.map((o) => ({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, spec: o })) as unknown as PolicyObjectInput[];
  return { objects, users };
}

// ---------------------------------------------------------------- PRNG

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** `length` random lower-case letters: always a valid Aptomi identifier. */
  id(length: number): string;
}

/** mulberry32: a 32-bit state PRNG; same seed, same sequence, on every platform. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  const id = (length: number): string => {
    let s = '';
    for (let i = 0; i < length; i++) s += String.fromCharCode(97 + int(26));
    return s;
  };
  return { next, int, id };
}

// ---------------------------------------------------------------- generation

/**
 * Generate a policy from a preset name or explicit parameters. The same
 * parameters always give the same objects and users.
 */
export function generatePolicy(preset: PresetName | GeneratorParams, overrides: Partial<GeneratorParams> = {}): GeneratedPolicy {
  const params: GeneratorParams = { ...(typeof preset === 'string' ? PRESETS[preset] : preset), ...overrides };
  checkParams(params);
  const rng = createRng(params.seed);

  const labels = makeUserLabels(rng, params.labels);
  const labelNames = Object.keys(labels);
  const { bundles, serviceComponents, longestChain } = makeBundles(rng, params, labelNames);
  const services = makeServices(rng, params);
  const rules = makeRules(params);
  const claims = makeClaims(rng, params);
  const cluster: GeneratedCluster = {
    kind: 'cluster',
    metadata: { namespace: CLUSTER_NAMESPACE, name: CLUSTER_NAME },
    type: 'kubernetes',
    config: { defaultnamespace: 'default' },
  };

  // Aptomi hands every user the very same label map, and so do we: copying 30
  // labels for 20,000 users took about 2/3 of the large preset's generation
  // time and would weigh on the resolve benchmarks' memory figures. Frozen,
  // so a consumer that mutates user labels (instead of copying them, as
  // resolution must) fails loudly rather than changing every user at once.
  const sharedLabels = Object.freeze(labels);
  const users: PolicyUser[] = new Array(params.users);
  for (let i = 0; i < params.users; i++) {
    users[i] = { name: `user-${i}`, labels: sharedLabels, secrets: {}, domainAdmin: true };
  }

  // Same order as Aptomi adds them: bundles, services, rules, claims, cluster.
  const objects: GeneratedObject[] = [...bundles, ...services, ...rules, ...claims, cluster];
  return {
    params,
    objects,
    users,
    stats: {
      bundles: bundles.length,
      services: services.length,
      contexts: services.length * params.contextsPerService,
      serviceComponents,
      longestChain,
      rules: rules.length,
      claims: claims.length,
      clusters: 1,
      users: users.length,
      labelsPerUser: labelNames.length,
      objects: objects.length,
    },
  };
}

function checkParams(p: GeneratorParams): void {
  for (const [k, v] of Object.entries(p)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`generator parameter ${k} must be a non-negative integer, got ${v}`);
  }
  // Each of these is indexed into: a zero would make the policy unresolvable.
  for (const k of ['labels', 'bundles', 'contextsPerService', 'rules', 'users'] as const) {
    if (p[k] < 1) throw new RangeError(`generator parameter ${k} must be at least 1`);
  }
  // Distinct 10-letter names: 26^10 leaves plenty of room, this only guards absurd inputs.
  if (p.labels > 100_000) throw new RangeError('generator parameter labels must be at most 100000');
}

function makeUserLabels(rng: Rng, count: number): Record<string, string> {
  // Aptomi draws names into a Go map, so a collision silently yields fewer
  // labels; we draw again so that users always have exactly `count` labels.
  const labels: Record<string, string> = {};
  let n = 0;
  while (n < count) {
    const name = rng.id(10);
    const value = rng.id(25);
    if (Object.hasOwn(labels, name)) continue;
    labels[name] = value;
    n++;
  }
  return labels;
}

function makeBundles(
  rng: Rng,
  p: GeneratorParams,
  labelNames: readonly string[],
): { bundles: GeneratedBundle[]; serviceComponents: number; longestChain: number } {
  const bundles: GeneratedBundle[] = new Array(p.bundles);
  for (let b = 0; b < p.bundles; b++) {
    const components: GeneratedComponent[] = new Array(p.codeComponents);
    for (let c = 0; c < p.codeComponents; c++) {
      // One label per component, used by all of its params (as Aptomi does).
      const label = labelNames[rng.int(labelNames.length)]!;
      const value = `prefix-{{ .Labels.${label} }}-suffix`;
      const params: Record<string, string> = { target: CLUSTER_NAME };
      for (let k = 0; k < p.codeParams; k++) params[`param-${k}`] = value;
      components[c] = { name: `component-${c}`, code: { type: 'helm', params } };
    }
    bundles[b] = { kind: 'bundle', metadata: { namespace: NAMESPACE, name: `bundle-${b}` }, components };
  }

  // depth[i] = longest chain of service components reaching bundle i. Edges
  // only go from i to a larger j, so depth[i] is final by the time we reach i
  // and the graph cannot have a cycle.
  const depth = new Array<number>(p.bundles).fill(0);
  let serviceComponents = 0;
  let longestChain = 0;
  for (let i = 0; i < p.bundles; i++) {
    const d = depth[i]!;
    if (d > longestChain) longestChain = d;
    if (d + 1 > p.maxChain) continue;
    // At most one dependency per bundle; a draw at or below i is simply lost,
    // which is what keeps dependencies sparse (about half the bundles).
    const j = rng.int(p.bundles);
    if (j <= i) continue;
    if (depth[j]! < d + 1) depth[j] = d + 1;
    bundles[i]!.components.push({ name: `dep-${i}`, service: `service-${j}` });
    serviceComponents++;
  }
  return { bundles, serviceComponents, longestChain };
}

function makeServices(rng: Rng, p: GeneratorParams): GeneratedService[] {
  const services: GeneratedService[] = new Array(p.bundles);
  for (let s = 0; s < p.bundles; s++) {
    const allocation = { bundle: `bundle-${s}` };
    const contexts: GeneratedContext[] = [];
    // These contexts require one of three random labels to hold a random
    // value; no user has those labels, so the criteria are always false and
    // the resolver must evaluate and reject them before the matching one.
    for (let c = 0; c < p.contextsPerService - 1; c++) {
      const name = `context-${rng.id(20)}`;
      const requireAny: string[] = [];
      for (let k = 0; k < 3; k++) requireAny.push(`${rng.id(20)}=='${rng.id(20)}'`);
      contexts.push({ name, criteria: { 'require-all': ['true'], 'require-any': requireAny }, allocation: { ...allocation } });
    }
    contexts.push({ name: `context-${rng.id(20)}`, criteria: { 'require-all': ['true'] }, allocation: { ...allocation } });
    services[s] = { kind: 'service', metadata: { namespace: NAMESPACE, name: `service-${s}` }, contexts };
  }
  return services;
}

function makeRules(p: GeneratorParams): GeneratedRule[] {
  const rules: GeneratedRule[] = [];
  // Rejections that never fire: no bundle is called `some-name-i`. They make
  // the resolver evaluate rules at every level of every chain.
  for (let i = 0; i < p.rules - 1; i++) {
    rules.push({
      kind: 'rule',
      metadata: { namespace: NAMESPACE, name: `rule-${i}` },
      weight: i,
      criteria: { 'require-all': [`bundle.Name == 'some-name-${i}'`] },
      actions: { claim: 'reject' },
    });
  }
  // Placement for everything. Aptomi names it `rule-<rules>` (skipping
  // `rule-<rules-1>`) and weights it last; kept so the files match.
  rules.push({
    kind: 'rule',
    metadata: { namespace: NAMESPACE, name: `rule-${p.rules}` },
    weight: p.rules,
    criteria: { 'require-all': ['true'] },
    actions: { 'change-labels': { set: { target: CLUSTER_NAME } } },
  });
  return rules;
}

function makeClaims(rng: Rng, p: GeneratorParams): GeneratedClaim[] {
  const claims: GeneratedClaim[] = new Array(p.claims);
  for (let i = 0; i < p.claims; i++) {
    const user = rng.int(p.users);
    const service = rng.int(p.bundles);
    claims[i] = {
      kind: 'claim',
      metadata: { namespace: NAMESPACE, name: `claim-${i}` },
      user: `user-${user}`,
      service: `service-${service}`,
    };
  }
  return claims;
}

// ---------------------------------------------------------------- description

const count = (n: number): string => n.toLocaleString('en-US');

/** One line naming the seed and the sizes, for benchmark tables. */
export function describeInput(g: GeneratedPolicy): string {
  const { params: p, stats: s } = g;
  return (
    `seed ${p.seed}: ${count(s.bundles)} bundles (${p.codeComponents} code components × ${p.codeParams} params, ` +
    `${count(s.serviceComponents)} service components, chains ≤ ${s.longestChain}), ` +
    `${count(s.services)} services × ${p.contextsPerService} contexts, ${s.rules} rules, ` +
    `${count(s.claims)} claims, ${count(s.users)} users × ${s.labelsPerUser} labels, ${s.clusters} cluster`
  );
}

// ---------------------------------------------------------------- YAML

export interface EmittedFiles {
  /** The policy folder (bundles, services, claims, rules, clusters). */
  policyDir: string;
  /** Aptomi's users file format: `- name, domainadmin, labels`. */
  usersFile: string;
  files: string[];
}

/**
 * Write the policy as Aptomi-style YAML: `DIR/policy/{bundles,services,
 * claims,rules,clusters}.yaml` (each a list of objects) and `DIR/users.yaml`.
 * The users file sits outside `policy/` because Aptomi (and `keelson resolve
 * --users`) read users separately from policy.
 */
export async function emitPolicy(dir: string, generated: GeneratedPolicy): Promise<EmittedFiles> {
  const policyDir = join(dir, 'policy');
  await mkdir(policyDir, { recursive: true });
  const header = `# Generated by Keelson's bench/generator.ts — ${describeInput(generated)}\n`;
  const byKind: Record<GeneratedObject['kind'], GeneratedObject[]> = { bundle: [], service: [], claim: [], rule: [], cluster: [] };
  for (const o of generated.objects) byKind[o.kind].push(o);

  const files: string[] = [];
  for (const [kind, list] of Object.entries(byKind)) {
    const file = join(policyDir, `${kind}s.yaml`);
    await writeFile(file, header + toYaml(list));
    files.push(file);
  }
  const usersFile = join(dir, 'users.yaml');
  const users = generated.users.map((u) => ({
    name: u.name,
    ...(u.domainAdmin ? { domainadmin: true } : {}),
    labels: u.labels,
    ...(Object.keys(u.secrets).length > 0 ? { secrets: u.secrets } : {}),
  }));
  await writeFile(usersFile, header + toYaml(users));
  files.push(usersFile);
  return { policyDir, usersFile, files };
}

function toYaml(value: unknown): string {
  // No anchors/aliases: Keelson caps aliases per file, and plain repetition is
  // what Aptomi's own files look like. No line folding, so expressions and
  // templates stay on one line.
  return stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
}
