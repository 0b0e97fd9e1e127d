/**
 * What a revision section reaches: the clusters, Kubernetes namespaces,
 * cluster-scoped kinds and chart repositories that the section's changed
 * instances deploy to or from, checked against what each target cluster
 * allows for the section's policy namespace.
 *
 * A namespace admin's acceptance only covers their own policy namespace. A
 * section that reaches past it (a cluster that does not list the namespace,
 * a Kubernetes namespace not allowed for it, a ClusterRole, a manifest object
 * in someone else's Kubernetes namespace, a chart from a repository the
 * cluster does not trust) needs a domain admin; each such finding is one
 * reason in `RevisionSection.needsDomainAdmin`, worded for the revision page.
 *
 * Pure: clusters and instances in, reasons out.
 */
import { parseAllDocuments } from 'yaml';
import { TextMemo } from './text-memo';
import type { Cluster } from '../model/kinds';
import type { CodeType } from '../state/code';
import type { Instance } from '../state/types';
import type { ClusterRef } from './cost';

/** At most this many reasons per section: the page explains, it does not list thousands of instances. */
export const MAX_REACH_REASONS = 20;
/** Like cost's manifest reading: an alias bomb is an unreadable manifest, not a hang. */
const MAX_ALIASES = 100;
/** `kind: List` nesting followed; deeper lists are unreadable (kubectl does not nest them either). */
const MAX_LIST_DEPTH = 3;

/**
 * Built-in cluster-scoped kinds, by API group ('' is the core group). A
 * manifest object of one of these acts on the whole cluster.
 */
const CLUSTER_SCOPED: Record<string, readonly string[]> = {
  APIService: ['apiregistration.k8s.io'],
  CertificateSigningRequest: ['certificates.k8s.io'],
  ClusterRole: ['rbac.authorization.k8s.io'],
  ClusterRoleBinding: ['rbac.authorization.k8s.io'],
  ClusterTrustBundle: ['certificates.k8s.io'],
  ComponentStatus: [''],
  CSIDriver: ['storage.k8s.io'],
  CSINode: ['storage.k8s.io'],
  CustomResourceDefinition: ['apiextensions.k8s.io'],
  FlowSchema: ['flowcontrol.apiserver.k8s.io'],
  IngressClass: ['networking.k8s.io'],
  IPAddress: ['networking.k8s.io'],
  MutatingAdmissionPolicy: ['admissionregistration.k8s.io'],
  MutatingAdmissionPolicyBinding: ['admissionregistration.k8s.io'],
  MutatingWebhookConfiguration: ['admissionregistration.k8s.io'],
  Namespace: [''],
  Node: [''],
  PersistentVolume: [''],
  PodSecurityPolicy: ['policy', 'extensions'],
  PriorityClass: ['scheduling.k8s.io'],
  PriorityLevelConfiguration: ['flowcontrol.apiserver.k8s.io'],
  RuntimeClass: ['node.k8s.io'],
  ServiceCIDR: ['networking.k8s.io'],
  StorageClass: ['storage.k8s.io'],
  ValidatingAdmissionPolicy: ['admissionregistration.k8s.io'],
  ValidatingAdmissionPolicyBinding: ['admissionregistration.k8s.io'],
  ValidatingWebhookConfiguration: ['admissionregistration.k8s.io'],
  VolumeAttachment: ['storage.k8s.io'],
};

/**
 * Built-in namespaced kinds, by API group. Any other kind is a custom
 * resource whose scope only its CustomResourceDefinition knows (a
 * `ClusterIssuer` is cluster-scoped, a `Certificate` is not), and a kind name
 * alone proves nothing: a CRD may call a cluster-scoped kind `Deployment` in
 * its own group. So only these kinds in these groups count as namespaced.
 */
const NAMESPACED: Record<string, readonly string[]> = {
  ConfigMap: [''],
  ControllerRevision: ['apps'],
  CronJob: ['batch'],
  CSIStorageCapacity: ['storage.k8s.io'],
  DaemonSet: ['apps', 'extensions'],
  Deployment: ['apps', 'extensions'],
  Endpoints: [''],
  EndpointSlice: ['discovery.k8s.io'],
  Event: ['', 'events.k8s.io'],
  HorizontalPodAutoscaler: ['autoscaling'],
  Ingress: ['networking.k8s.io', 'extensions'],
  Job: ['batch'],
  Lease: ['coordination.k8s.io'],
  LimitRange: [''],
  NetworkPolicy: ['networking.k8s.io', 'extensions'],
  PersistentVolumeClaim: [''],
  Pod: [''],
  PodDisruptionBudget: ['policy'],
  PodTemplate: [''],
  ReplicaSet: ['apps', 'extensions'],
  ReplicationController: [''],
  ResourceQuota: [''],
  Role: ['rbac.authorization.k8s.io'],
  RoleBinding: ['rbac.authorization.k8s.io'],
  Secret: [''],
  Service: [''],
  ServiceAccount: [''],
  StatefulSet: ['apps'],
};

/** `*` matches any run of characters; everything else literally. */
export function globMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const parts = pattern.split('*');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const i = value.indexOf(middle, at);
    if (i < 0 || i + middle.length > end) return false;
    at = i + middle.length;
  }
  return true;
}

/** A chart repository as compared and shown: no credentials, no trailing slash. */
export function chartRepoForDisplay(url: string): string {
  return url.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1').replace(/\/+$/, '');
}

/**
 * Kubernetes namespaces (patterns) policy namespace `ns` may deploy into on
 * `cluster`, or null when the cluster restricts nothing (no
 * `allowedNamespaces`: open, as before the field existed). An empty list: the
 * cluster does not admit `ns` at all.
 */
export function allowedKubernetesNamespaces(cluster: Cluster, ns: string): string[] | null {
  const entries = cluster.allowedNamespaces;
  if (!entries) return null;
  const out: string[] = [];
  for (const e of entries) {
    const entry = typeof e === 'string' ? { namespace: e, kubernetes: undefined } : e;
    if (!globMatch(entry.namespace, ns)) continue;
    // Without a list, the policy namespace deploys into the Kubernetes namespace of its own name.
    for (const k of entry.kubernetes ?? ['{namespace}']) out.push(k.split('{namespace}').join(ns));
  }
  return out;
}

/** Whether `repo` is one the cluster lets any namespace admin deploy charts from (no list: any). */
export function chartRepoAllowed(cluster: Cluster, repo: string): boolean {
  const list = cluster.chartRepositories;
  if (!list) return true;
  const want = chartRepoForDisplay(repo);
  return list.some((p) => globMatch(chartRepoForDisplay(p), want));
}

/** One object of a raw manifest, as far as its reach goes. */
interface ManifestObject {
  kind: string;
  group: string;
  name: string;
  namespace: string | null;
}

export type ManifestRead = { objects: ManifestObject[] } | { error: string };

/** Manifests read across calls (a read is never changed by its users). */
const MANIFESTS = new TextMemo((text: string) => manifestObjects(text), 32 * 2 ** 20);

/** The objects of a raw manifest, or why it cannot be read (then nobody can tell what it reaches). */
export function manifestObjects(text: string): ManifestRead {
  const objects: ManifestObject[] = [];
  let docs;
  try {
    // YAML 1.1, as the GitOps renderer (and kubectl) read manifests: the same text must mean the same objects.
    docs = parseAllDocuments(text, { version: '1.1' });
  } catch (e) {
    return { error: e instanceof Error ? e.message.split('\n')[0]! : String(e) };
  }
  const list = Array.isArray(docs) ? docs : [docs];
  for (const [n, doc] of list.entries()) {
    if (doc.errors.length > 0) return { error: `document ${n + 1} is not valid YAML` };
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch {
      return { error: `document ${n + 1} could not be read (aliases?)` };
    }
    if (value === null || value === undefined) continue;
    const problem = collect(value, objects, 0);
    if (problem) return { error: `document ${n + 1}: ${problem}` };
  }
  return { objects };
}

function collect(value: unknown, out: ManifestObject[], depth: number): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a Kubernetes object';
  const o = value as Record<string, unknown>;
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  // `v1` is the core group; `apps/v1` is group `apps`.
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  if ((kind === 'List' || kind.endsWith('List')) && Array.isArray(o.items)) {
    if (depth >= MAX_LIST_DEPTH) return 'lists nested too deep';
    for (const item of o.items) {
      const p = collect(item, out, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  const md = typeof o.metadata === 'object' && o.metadata !== null ? (o.metadata as Record<string, unknown>) : {};
  const ns = md.namespace;
  out.push({
    kind,
    group,
    name: typeof md.name === 'string' ? md.name : '',
    // An empty namespace is defaulted to the instance's target when rendered.
    namespace: ns === undefined || ns === null || ns === '' ? null : String(ns),
  });
  return undefined;
}

export type KindScope = 'cluster' | 'namespaced' | 'unknown';

export function kindScope(kind: string, group: string): KindScope {
  if (CLUSTER_SCOPED[kind]?.includes(group)) return 'cluster';
  if (NAMESPACED[kind]?.includes(group)) return 'namespaced';
  return 'unknown';
}

/**
 * Why deploying `inst` (an instance of policy namespace `ns`) reaches past
 * that namespace; empty when a namespace admin of `ns` may accept it.
 * `deleting`: the instance goes away; only what its manifest acts on counts
 * then (removing your own release from a cluster that no longer admits you
 * is cleaning up; removing a ClusterRole or a Namespace is not).
 */
export function instanceReach(
  inst: Instance,
  ns: string,
  clusters: ReadonlyMap<string, Cluster>,
  deleting = false,
  manifests: Map<string, ManifestRead> = new Map(),
  record?: DeploysRecorder,
): string[] {
  const out: string[] = [];
  const clusterId = `${inst.target.clusterNamespace}/${inst.target.cluster}`;
  const cluster = clusters.get(clusterId);
  const k8sNs = inst.target.namespace;
  // Values rendered from secrets stay out of reasons (anyone who sees the revision reads them).
  const show = (v: string) => (inst.sensitive ? WITHHELD : JSON.stringify(v));
  const rec = deleting ? undefined : record;
  rec?.target(clusterId, k8sNs);
  let allowed: string[] | null = null;
  if (!cluster) {
    if (!deleting) out.push(`cluster ${clusterId} is not defined`);
  } else {
    allowed = allowedKubernetesNamespaces(cluster, ns);
    if (!deleting && allowed !== null) {
      if (allowed.length === 0) out.push(`cluster ${clusterId} does not allow policy namespace ${ns}`);
      else if (!allowed.some((p) => globMatch(p, k8sNs))) {
        out.push(`Kubernetes namespace ${k8sNs} on cluster ${clusterId} is not allowed for policy namespace ${ns}`);
      }
    }
  }
  const code = inst.code;
  if (!code) return out;
  REACH_BY_CODE_TYPE[code.type]({ inst, code, clusterId, cluster, k8sNs, allowed, deleting, manifests, rec, show, out });
  return out;
}

const WITHHELD = '(withheld: rendered from secrets)';
/** Entries kept per list of `SectionDeploys`: a summary for reviewers, bounded however large the section. */
const MAX_DEPLOYS_ENTRIES = 50;

/** What a section deploys (its created and changed instances), for reviewers; sorted lists. */
export interface SectionDeploys {
  /** Target clusters (`namespace/name`) with the Kubernetes namespaces deployed into there. */
  targets: { cluster: string; namespaces: string[] }[];
  /** Chart repositories of helm code, without credentials. */
  chartRepositories: string[];
  /** Raw manifest kinds that are cluster-scoped or of unknown scope, as `Kind (group)`. */
  clusterKinds: string[];
  /** Kubernetes namespaces that raw manifest objects name, other than their instance's target. */
  otherNamespaces: string[];
}

export class DeploysRecorder {
  private readonly targets = new Map<string, Set<string>>();
  private readonly repos = new Set<string>();
  private readonly kinds = new Set<string>();
  private readonly others = new Set<string>();

  target(cluster: string, namespace: string): void {
    let set = this.targets.get(cluster);
    if (!set) {
      if (this.targets.size >= MAX_DEPLOYS_ENTRIES) return;
      this.targets.set(cluster, (set = new Set()));
    }
    if (set.size < MAX_DEPLOYS_ENTRIES) set.add(namespace);
  }
  chartRepository(url: string): void {
    if (this.repos.size < MAX_DEPLOYS_ENTRIES) this.repos.add(url);
  }
  kind(kind: string): void {
    if (this.kinds.size < MAX_DEPLOYS_ENTRIES) this.kinds.add(kind);
  }
  otherNamespace(ns: string): void {
    if (this.others.size < MAX_DEPLOYS_ENTRIES) this.others.add(ns);
  }
  result(): SectionDeploys {
    return {
      targets: [...this.targets.keys()].sort().map((cluster) => ({ cluster, namespaces: [...this.targets.get(cluster)!].sort() })),
      chartRepositories: [...this.repos].sort(),
      clusterKinds: [...this.kinds].sort(),
      otherNamespaces: [...this.others].sort(),
    };
  }
}

/** Adds `reasons` to a section's list, distinct, at most `MAX_REACH_REASONS` (then one "and more" line). */
export function addReasons(list: string[], seen: Set<string>, reasons: readonly string[]): void {
  for (const r of reasons) {
    if (seen.has(r)) continue;
    seen.add(r);
    if (list.length < MAX_REACH_REASONS) list.push(r);
  }
}

export function finishReasons(list: string[], seen: Set<string>): string[] {
  const more = seen.size - list.length;
  return more > 0 ? [...list, `and ${more} more`] : list;
}

export function clusterIndex(clusters: readonly ClusterRef[]): Map<string, Cluster> {
  return new Map(clusters.map((c) => [`${c.namespace}/${c.name}`, c.spec]));
}

interface ReachContext {
  inst: Instance;
  code: NonNullable<Instance['code']>;
  clusterId: string;
  cluster: Cluster | undefined;
  k8sNs: string;
  /** Kubernetes namespaces the policy namespace may use on the cluster; null: no list (only the target's own). */
  allowed: string[] | null;
  deleting: boolean;
  manifests: Map<string, ManifestRead>;
  rec: DeploysRecorder | undefined;
  show: (v: string) => string;
  /** Reasons found, appended to. */
  out: string[];
}

/**
 * What an instance of each code type reaches beyond its namespace. Typed
 * over every code type (state/code.ts): a new type does not compile until
 * it says what it may touch here, rather than passing as another type.
 */
const REACH_BY_CODE_TYPE: { [T in CodeType]: (c: ReachContext) => void } = {
  helm({ inst, code, cluster, clusterId, deleting, rec, show, out }) {
    const repo = code.params.chartRepo;
    if (typeof repo === 'string' && repo.trim() !== '') rec?.chartRepository(inst.sensitive ? WITHHELD : chartRepoForDisplay(repo));
    if (!deleting && cluster && typeof repo === 'string' && repo.trim() !== '' && !chartRepoAllowed(cluster, repo)) {
      out.push(`chart repository ${inst.sensitive ? show(repo) : chartRepoForDisplay(repo)} is not allowed on cluster ${clusterId} (instance ${inst.key})`);
    }
  },
  raw({ inst, code, k8sNs, allowed, manifests, rec, show, out }) {
    const manifest = code.params.manifest;
    if (typeof manifest !== 'string') return; // nothing will be rendered: the apply step fails
    // Instances of one bundle share their manifest text: read it once per plan.
    let read = manifests.get(manifest);
    if (!read) manifests.set(manifest, (read = MANIFESTS.get(manifest)));
    if ('error' in read) {
      out.push(`raw manifest of instance ${inst.key} cannot be read, so what it deploys is unknown (${read.error})`);
      return;
    }
    // Manifest objects may name a namespace that the policy namespace is allowed on this cluster; on a cluster without the list, only the target's own.
    const okNamespace = (v: string) => v === k8sNs || (allowed !== null && allowed.some((p) => globMatch(p, v)));
    for (const obj of read.objects) {
      const what = `${obj.kind || '(no kind)'}${obj.name && !inst.sensitive ? ` ${JSON.stringify(obj.name)}` : ''}`;
      const kindOf = obj.group ? `${obj.kind} (${obj.group})` : obj.kind;
      const scope = kindScope(obj.kind, obj.group);
      if (scope !== 'namespaced') rec?.kind(kindOf || '(none)');
      else if (obj.namespace !== null && obj.namespace !== k8sNs) rec?.otherNamespace(inst.sensitive ? WITHHELD : obj.namespace);
      if (scope === 'cluster') out.push(`raw manifest of instance ${inst.key} has cluster-scoped kind ${kindOf}: ${what}`);
      else if (scope === 'unknown') out.push(`raw manifest of instance ${inst.key} has kind ${kindOf || '(none)'}, whose scope is unknown (custom resources may be cluster-scoped)`);
      else if (obj.namespace !== null && !okNamespace(obj.namespace)) {
        out.push(`raw manifest of instance ${inst.key} puts ${what} in Kubernetes namespace ${show(obj.namespace)}, not ${k8sNs}`);
      }
    }
  },
};
