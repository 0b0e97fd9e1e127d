/**
 * Cost and quota of a revision (Axebow §3, adapted to Keelson instances).
 *
 * Units are integers: CPU in millicores, memory and storage in bytes; prices
 * apply only when totals become money. Only code instances cost: bundle roots
 * and service components are bookkeeping.
 *
 * What an instance requests:
 * - helm: `replicas` (or `replicaCount`) × per-replica `resources.requests`
 *   (or `resources.{cpu,memory}`, or `resources.limits`, which Kubernetes
 *   uses as the request when none is given); storage from `persistence.size`
 *   (0 when `persistence.enabled` is false) or `resources.requests.storage`,
 *   counted per replica, as a StatefulSet chart's volume claim templates
 *   would be: the conservative reading for a quota.
 * - raw: the `manifest` text, every `---` document: Deployment, StatefulSet,
 *   ReplicaSet, ReplicationController, DaemonSet (counted as one replica: the
 *   node count is not known here) and Pod containers' requests × replicas,
 *   init containers the Kubernetes way (max of their requests vs the sum of
 *   the containers'), PersistentVolumeClaims and StatefulSet
 *   volumeClaimTemplates × replicas. `List` objects are looked into.
 * - Whatever the parameters leave out comes from the cluster's `defaults`
 *   (per replica, or per pod for raw workloads; storage defaults apply to
 *   helm only, since a raw manifest names every volume it has), else 0.
 *   Replicas default to `defaults.replicas`, else 1; an instance labelled
 *   `resilience: r` (Axebow) counts at least r + 1 replicas per pod set.
 * Parameters that cannot be read (bad quantity, junk YAML) cost 0 and leave a
 * note, so a typo shows in the review instead of failing the revision.
 */
import { parseAllDocuments } from 'yaml';
import { TextMemo } from './text-memo';
import type { Cluster, ClusterDefaults } from '../model/kinds';
import type { CodeType } from '../state/code';
import type { Instance, InstanceCode } from '../state/types';
import { bytesToGiB, millisToVcpu, parseBytes, parseCpuMillis, type QuantityResult } from '../model/quantity';
import { isRecord } from '../lang/data';

export interface ResourceTotals {
  cpuMillis: number;
  memoryBytes: number;
  storageBytes: number;
  /** Code instances (not replicas): what `marks.instances` limits. */
  instances: number;
  /** Monthly price in the target's currency, rounded to cents. */
  monthly: number;
}

export interface CostTarget {
  cluster: string;
  clusterNamespace: string;
  /** Kubernetes namespace. */
  namespace: string;
  /** Currency of `monthly` (the cluster's pricing; the report's when the cluster has none). */
  currency: string;
  before: ResourceTotals;
  after: ResourceTotals;
  delta: ResourceTotals;
}

export interface CostNote {
  /** Instance key, or `cluster:ns/name` for a cluster's settings, or absent for the whole report. */
  key?: string;
  note: string;
}

export interface CostReport {
  /** The clusters' currency, or `mixed` when targets are priced in several (then total `monthly` is 0: no sum across currencies). */
  currency: string;
  targets: CostTarget[];
  total: { before: ResourceTotals; after: ResourceTotals; delta: ResourceTotals };
  /** Values that could not be read (costed as 0). */
  notes: CostNote[];
}

export interface QuotaCheck {
  cluster: string;
  clusterNamespace: string;
  dimension: 'vcpu' | 'memory' | 'storage' | 'instances';
  /** In `unit`: vCPU (cores, may be fractional), bytes, or instances. */
  mark: number;
  before: number;
  after: number;
  /** after ≤ mark (compared in integer millicores / bytes). */
  ok: boolean;
  unit: 'vCPU' | 'bytes' | 'instances';
}

export interface ClusterRef {
  namespace: string;
  name: string;
  spec: Cluster;
}

/** Requested resources of one code instance. */
export interface InstanceResources {
  cpuMillis: number;
  memoryBytes: number;
  storageBytes: number;
  notes: string[];
}

export const DEFAULT_CURRENCY = 'EUR';
export const MIXED_CURRENCY = 'mixed';

type Obj = Record<string, unknown>;
const at = (v: unknown, ...path: string[]): unknown => {
  let cur = v;
  for (const p of path) {
    if (!isRecord(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
};

/** Cluster defaults, parsed once per cluster. */
interface Defaults {
  cpuMillis?: number;
  memoryBytes?: number;
  storageBytes?: number;
  replicas?: number;
  /** Axebow's resilience r: every pod set counts at least r + 1 replicas (`n = max(scale, r + 1)`). */
  minReplicas?: number;
}

/** Per-call caches: raw manifests are parsed once even when both states hold them (JSON-loaded states share no objects). */
export class CostCalculator {
  private readonly manifests = new Map<string, RawSummary>();
  private readonly byCode = new WeakMap<InstanceCode, Map<Defaults, InstanceResources>>();

  resources(code: InstanceCode, defaults: Defaults): InstanceResources {
    let perDefaults = this.byCode.get(code);
    const hit = perDefaults?.get(defaults);
    if (hit) return hit;
    const r = RESOURCES_BY_CODE_TYPE[code.type](this, code.params, defaults);
    if (!perDefaults) this.byCode.set(code, (perDefaults = new Map()));
    perDefaults.set(defaults, r);
    return r;
  }

  /** Requests of a raw manifest's pods (parsed once per calculator). */
  raw(params: Obj, defaults: Defaults): InstanceResources {
    const manifest = params.manifest;
    if (typeof manifest !== 'string') {
      return { cpuMillis: 0, memoryBytes: 0, storageBytes: 0, notes: manifest === undefined ? ['raw code has no manifest: costed as 0'] : ['raw manifest is not text: costed as 0'] };
    }
    let summary = this.manifests.get(manifest);
    if (!summary) this.manifests.set(manifest, (summary = SUMMARIES.get(manifest)));
    let cpu = 0;
    let memory = 0;
    const min = defaults.minReplicas ?? 0;
    for (const pod of summary.pods) {
      const replicas = Math.max(pod.replicas, min);
      cpu += replicas * (pod.cpuMillis ?? defaults.cpuMillis ?? 0);
      memory += replicas * (pod.memoryBytes ?? defaults.memoryBytes ?? 0);
    }
    const raised = summary.pods.some((p) => p.replicas < min);
    return { cpuMillis: cpu, memoryBytes: memory, storageBytes: summary.storageBytes, notes: raised ? [...summary.notes, resilienceNote(min)] : summary.notes };
  }
}

function helmResources(params: Obj, defaults: Defaults): InstanceResources {
  const notes: string[] = [];
  let replicas = defaults.replicas ?? 1;
  const rawReplicas = params.replicas ?? params.replicaCount;
  if (rawReplicas !== undefined && rawReplicas !== null) {
    const n = parseReplicas(rawReplicas);
    if (n === undefined) notes.push(`replicas ${JSON.stringify(rawReplicas)} is not a whole number: using ${replicas}`);
    else replicas = n;
  }
  if (defaults.minReplicas !== undefined && replicas < defaults.minReplicas) {
    replicas = defaults.minReplicas;
    notes.push(resilienceNote(replicas));
  }
  const res = params.resources;
  const pick = (name: string) => at(res, 'requests', name) ?? at(res, name) ?? at(res, 'limits', name);
  const cpu = quantityOr(pick('cpu'), parseCpuMillis, defaults.cpuMillis, 'cpu', notes);
  const memory = quantityOr(pick('memory'), parseBytes, defaults.memoryBytes, 'memory', notes);
  let storage = 0;
  if (at(params, 'persistence', 'enabled') !== false) {
    storage = quantityOr(at(params, 'persistence', 'size') ?? at(res, 'requests', 'storage'), parseBytes, defaults.storageBytes, 'storage', notes);
  }
  return { cpuMillis: replicas * cpu, memoryBytes: replicas * memory, storageBytes: replicas * storage, notes };
}

function resilienceNote(replicas: number): string {
  return `resilience ${replicas - 1}: counted as at least ${replicas} replicas`;
}

/** The `resilience` label as a whole number, or undefined (absent or not one). */
function resilienceOf(labels: Readonly<Record<string, string>>): number | undefined {
  const v = labels.resilience;
  if (v === undefined || !/^\d{1,3}$/.test(v)) return undefined;
  return Number(v);
}

function quantityOr(v: unknown, parse: (q: unknown) => QuantityResult, fallback: number | undefined, what: string, notes: string[]): number {
  if (v === undefined || v === null || v === '') return fallback ?? 0;
  const r = parse(v);
  if (r.ok) return r.value;
  notes.push(`${what}: ${r.error}; costed as 0`);
  return 0;
}

/** Replica counts arrive as numbers, or as strings once templated ("3"). */
function parseReplicas(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v : undefined;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

interface PodSummary {
  replicas: number;
  /** Undefined when no container states it (the cluster default applies). */
  cpuMillis?: number;
  memoryBytes?: number;
}
interface RawSummary {
  pods: PodSummary[];
  storageBytes: number;
  notes: string[];
}

const REPLICATED = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);
const MAX_ALIASES = 100;

/** Manifest summaries across calls (a summary is read, never changed, by its users). */
const SUMMARIES = new TextMemo(summariseManifest, 32 * 2 ** 20);

function summariseManifest(text: string): RawSummary {
  const out: RawSummary = { pods: [], storageBytes: 0, notes: [] };
  let docs;
  try {
    docs = parseAllDocuments(text);
  } catch (e) {
    out.notes.push(`raw manifest could not be read (${e instanceof Error ? e.message : String(e)}): costed as 0`);
    return out;
  }
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, n) => {
    if (doc.errors.length > 0) {
      out.notes.push(`raw manifest document ${n + 1} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}): costed as 0`);
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (e) {
      out.notes.push(`raw manifest document ${n + 1} could not be read (${e instanceof Error ? e.message : String(e)}): costed as 0`);
      return;
    }
    summariseObject(value, `document ${n + 1}`, out, 0);
  });
  return out;
}

function summariseObject(o: unknown, where: string, out: RawSummary, depth: number): void {
  if (!isRecord(o)) return;
  const kind = o.kind;
  const name = typeof at(o, 'metadata', 'name') === 'string' ? `${String(kind)} ${String(at(o, 'metadata', 'name'))}` : `${String(kind)} (${where})`;
  if (kind === 'List' && Array.isArray(o.items) && depth < 3) {
    o.items.forEach((item, i) => summariseObject(item, `${where} item ${i + 1}`, out, depth + 1));
    return;
  }
  if (kind === 'PersistentVolumeClaim') {
    out.storageBytes += quantityOr(at(o, 'spec', 'resources', 'requests', 'storage'), parseBytes, 0, `${name} storage`, out.notes);
    return;
  }
  let replicas = 1;
  let pod: unknown;
  if (typeof kind === 'string' && REPLICATED.has(kind)) {
    const r = at(o, 'spec', 'replicas');
    if (r !== undefined && r !== null) {
      const n = parseReplicas(r);
      if (n === undefined) out.notes.push(`${name}: replicas ${JSON.stringify(r)} is not a whole number: counted as 1`);
      else replicas = n;
    }
    pod = at(o, 'spec', 'template', 'spec');
  } else if (kind === 'DaemonSet') {
    pod = at(o, 'spec', 'template', 'spec');
  } else if (kind === 'Pod') {
    pod = o.spec;
  } else {
    return;
  }
  out.pods.push({ replicas, ...podRequests(pod, name, out.notes) });
  if (kind === 'StatefulSet') {
    const templates = at(o, 'spec', 'volumeClaimTemplates');
    if (Array.isArray(templates)) {
      for (const t of templates) {
        out.storageBytes += replicas * quantityOr(at(t, 'spec', 'resources', 'requests', 'storage'), parseBytes, 0, `${name} volume claim storage`, out.notes);
      }
    }
  }
}

/** A pod's effective requests: max(sum of containers, largest init container), per resource. */
function podRequests(spec: unknown, name: string, notes: string[]): { cpuMillis?: number; memoryBytes?: number } {
  const sum = (list: unknown, combine: (acc: number, v: number) => number, resource: string, parse: (q: unknown) => QuantityResult) => {
    if (!Array.isArray(list)) return undefined;
    let acc: number | undefined;
    for (const c of list) {
      const v = at(c, 'resources', 'requests', resource) ?? at(c, 'resources', 'limits', resource);
      if (v === undefined || v === null) continue;
      acc = combine(acc ?? 0, quantityOr(v, parse, 0, `${name} ${resource}`, notes));
    }
    return acc;
  };
  const effective = (resource: string, parse: (q: unknown) => QuantityResult) => {
    const main = sum(at(spec, 'containers'), (a, v) => a + v, resource, parse);
    const init = sum(at(spec, 'initContainers'), Math.max, resource, parse);
    return main === undefined && init === undefined ? undefined : Math.max(main ?? 0, init ?? 0);
  };
  const r: { cpuMillis?: number; memoryBytes?: number } = {};
  const cpu = effective('cpu', parseCpuMillis);
  const memory = effective('memory', parseBytes);
  if (cpu !== undefined) r.cpuMillis = cpu;
  if (memory !== undefined) r.memoryBytes = memory;
  return r;
}

/** Parse a cluster's defaults once; unreadable values (schemas normally stop them) are noted and ignored. */
function parseDefaults(d: ClusterDefaults | undefined, clusterKey: string, notes: CostNote[]): Defaults {
  const out: Defaults = {};
  if (!d) return out;
  const one = (v: unknown, parse: (q: unknown) => QuantityResult, field: string): number | undefined => {
    if (v === undefined || v === null) return undefined;
    const r = parse(v);
    if (r.ok) return r.value;
    notes.push({ key: `cluster:${clusterKey}`, note: `defaults.${field}: ${r.error}; ignored` });
    return undefined;
  };
  const cpu = one(d.cpu, parseCpuMillis, 'cpu');
  const memory = one(d.memory, parseBytes, 'memory');
  const storage = one(d.storage, parseBytes, 'storage');
  if (cpu !== undefined) out.cpuMillis = cpu;
  if (memory !== undefined) out.memoryBytes = memory;
  if (storage !== undefined) out.storageBytes = storage;
  if (typeof d.replicas === 'number' && Number.isInteger(d.replicas) && d.replicas >= 0) out.replicas = d.replicas;
  return out;
}

interface Acc {
  cpuMillis: number;
  memoryBytes: number;
  storageBytes: number;
  instances: number;
}

interface TargetAcc {
  cluster: string;
  clusterNamespace: string;
  namespace: string;
  clusterKey: string;
  before: Acc;
  after: Acc;
}

const newAcc = (): Acc => ({ cpuMillis: 0, memoryBytes: 0, storageBytes: 0, instances: 0 });

/** Cost report and quota checks for one revision. */
export function costAndQuota(
  before: Iterable<Instance>,
  after: Iterable<Instance>,
  clusters: readonly ClusterRef[],
): { cost: CostReport; quota: QuotaCheck[]; overMarksClusters: Set<string> } {
  const notes: CostNote[] = [];
  const clusterByKey = new Map<string, ClusterRef>();
  for (const c of clusters) clusterByKey.set(`${c.namespace}/${c.name}`, c);
  const defaultsByCluster = new Map<string, Defaults>();
  const defaultsOf = (clusterKey: string): Defaults => {
    let d = defaultsByCluster.get(clusterKey);
    if (!d) defaultsByCluster.set(clusterKey, (d = parseDefaults(clusterByKey.get(clusterKey)?.spec.defaults, clusterKey, notes)));
    return d;
  };

  // One Defaults object per (cluster, resilience): the calculator caches by its identity.
  const withResilience = new Map<string, Defaults>();
  const defaultsWithResilience = (clusterKey: string, resilience: number | undefined): Defaults => {
    if (resilience === undefined) return defaultsOf(clusterKey);
    const k = `${clusterKey}\u0000${resilience}`;
    let d = withResilience.get(k);
    if (!d) withResilience.set(k, (d = { ...defaultsOf(clusterKey), minReplicas: resilience + 1 }));
    return d;
  };
  const calc = new CostCalculator();
  const targets = new Map<string, TargetAcc>();
  const noted = new Set<string>();
  const add = (inst: Instance, side: 'before' | 'after') => {
    if (!inst.code) return;
    const t = inst.target;
    const clusterKey = `${t.clusterNamespace}/${t.cluster}`;
    const tk = `${clusterKey}\u0000${t.namespace}`;
    let acc = targets.get(tk);
    if (!acc) {
      acc = { cluster: t.cluster, clusterNamespace: t.clusterNamespace, namespace: t.namespace, clusterKey, before: newAcc(), after: newAcc() };
      targets.set(tk, acc);
    }
    const r = calc.resources(inst.code, defaultsWithResilience(clusterKey, resilienceOf(inst.labels)));
    const s = acc[side];
    s.cpuMillis += r.cpuMillis;
    s.memoryBytes += r.memoryBytes;
    s.storageBytes += r.storageBytes;
    s.instances += 1;
    for (const note of r.notes) {
      const id = `${inst.key}\u0000${note}`;
      if (!noted.has(id)) {
        noted.add(id);
        notes.push({ key: inst.key, note });
      }
    }
  };
  for (const i of before) add(i, 'before');
  for (const i of after) add(i, 'after');

  const sorted = [...targets.values()].sort(
    (a, b) => cmp(a.clusterNamespace, b.clusterNamespace) || cmp(a.cluster, b.cluster) || cmp(a.namespace, b.namespace),
  );

  // Currency: that of the priced clusters the revision touches, else of any priced cluster.
  const pricingOf = (clusterKey: string) => clusterByKey.get(clusterKey)?.spec.pricing;
  const touched = new Set(sorted.filter((t) => pricingOf(t.clusterKey)).map((t) => pricingOf(t.clusterKey)!.currency));
  const anyPriced = new Set(clusters.filter((c) => c.spec.pricing).map((c) => c.spec.pricing!.currency));
  const currencies = touched.size > 0 ? touched : anyPriced;
  const currency = currencies.size === 0 ? DEFAULT_CURRENCY : currencies.size === 1 ? [...currencies][0]! : MIXED_CURRENCY;
  if (currency === MIXED_CURRENCY) notes.push({ note: `targets are priced in several currencies (${[...currencies].sort().join(', ')}): no money total` });

  const total = { before: newAcc(), after: newAcc() };
  let totalBeforeMonthly = 0;
  let totalAfterMonthly = 0;
  const costTargets: CostTarget[] = sorted.map((t) => {
    const pricing = pricingOf(t.clusterKey);
    const price = (a: Acc) =>
      pricing ? cents(millisToVcpu(a.cpuMillis) * (pricing.vcpu ?? 0) + bytesToGiB(a.memoryBytes) * (pricing.memory ?? 0) + bytesToGiB(a.storageBytes) * (pricing.storage ?? 0)) : 0;
    const b: ResourceTotals = { ...t.before, monthly: price(t.before) };
    const a: ResourceTotals = { ...t.after, monthly: price(t.after) };
    addInto(total.before, t.before);
    addInto(total.after, t.after);
    totalBeforeMonthly += b.monthly;
    totalAfterMonthly += a.monthly;
    return {
      cluster: t.cluster,
      clusterNamespace: t.clusterNamespace,
      namespace: t.namespace,
      currency: pricing?.currency ?? (currency === MIXED_CURRENCY ? DEFAULT_CURRENCY : currency),
      before: b,
      after: a,
      delta: delta(b, a),
    };
  });
  const mixed = currency === MIXED_CURRENCY;
  const tb: ResourceTotals = { ...total.before, monthly: mixed ? 0 : cents(totalBeforeMonthly) };
  const ta: ResourceTotals = { ...total.after, monthly: mixed ? 0 : cents(totalAfterMonthly) };
  const cost: CostReport = { currency, targets: costTargets, total: { before: tb, after: ta, delta: delta(tb, ta) }, notes };

  // Quota: per cluster, the after totals against its marks.
  const perCluster = new Map<string, { before: Acc; after: Acc }>();
  for (const t of sorted) {
    let c = perCluster.get(t.clusterKey);
    if (!c) perCluster.set(t.clusterKey, (c = { before: newAcc(), after: newAcc() }));
    addInto(c.before, t.before);
    addInto(c.after, t.after);
  }
  const quota: QuotaCheck[] = [];
  const overMarksClusters = new Set<string>();
  const byName = [...clusters].sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.name, b.name));
  for (const c of byName) {
    const marks = c.spec.marks;
    if (!marks) continue;
    const clusterKey = `${c.namespace}/${c.name}`;
    const usage = perCluster.get(clusterKey) ?? { before: newAcc(), after: newAcc() };
    const check = (dimension: QuotaCheck['dimension'], raw: unknown, parse: ((q: unknown) => QuantityResult) | null, field: keyof Acc) => {
      if (raw === undefined || raw === null) return;
      let mark: number;
      if (parse) {
        const r = parse(raw);
        if (!r.ok) {
          notes.push({ key: `cluster:${clusterKey}`, note: `marks.${dimension}: ${r.error}; not checked` });
          return;
        }
        mark = r.value;
      } else {
        if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0) {
          notes.push({ key: `cluster:${clusterKey}`, note: `marks.${dimension}: ${JSON.stringify(raw)} is not a whole number; not checked` });
          return;
        }
        mark = raw;
      }
      const b = usage.before[field];
      const a = usage.after[field];
      const ok = a <= mark;
      if (!ok && a > b) overMarksClusters.add(clusterKey);
      const scale = dimension === 'vcpu' ? millisToVcpu : (x: number) => x;
      quota.push({
        cluster: c.name,
        clusterNamespace: c.namespace,
        dimension,
        mark: scale(mark),
        before: scale(b),
        after: scale(a),
        ok,
        unit: dimension === 'vcpu' ? 'vCPU' : dimension === 'instances' ? 'instances' : 'bytes',
      });
    };
    check('vcpu', marks.vcpu, parseCpuMillis, 'cpuMillis');
    check('memory', marks.memory, parseBytes, 'memoryBytes');
    check('storage', marks.storage, parseBytes, 'storageBytes');
    check('instances', marks.instances, null, 'instances');
  }
  return { cost, quota, overMarksClusters };
}

function addInto(into: Acc, from: Acc): void {
  into.cpuMillis += from.cpuMillis;
  into.memoryBytes += from.memoryBytes;
  into.storageBytes += from.storageBytes;
  into.instances += from.instances;
}

function delta(b: ResourceTotals, a: ResourceTotals): ResourceTotals {
  return {
    cpuMillis: a.cpuMillis - b.cpuMillis,
    memoryBytes: a.memoryBytes - b.memoryBytes,
    storageBytes: a.storageBytes - b.storageBytes,
    instances: a.instances - b.instances,
    monthly: cents(a.monthly - b.monthly),
  };
}

/** Money to cents; `+ 0` turns -0 into 0 so reports never show "-0". */
function cents(x: number): number {
  return Math.round(x * 100) / 100 + 0;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What an instance of each code type requests. Typed over every code type
 * (state/code.ts), so a type added there does not compile until its cost is
 * said here — instead of being costed as some other type.
 */
const RESOURCES_BY_CODE_TYPE: { [T in CodeType]: (calc: CostCalculator, params: Obj, defaults: Defaults) => InstanceResources } = {
  helm: (_calc, params, defaults) => helmResources(params, defaults),
  raw: (calc, params, defaults) => calc.raw(params, defaults),
};
