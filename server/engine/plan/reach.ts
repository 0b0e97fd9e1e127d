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
import { TextMemo } from './text-memo';
import type { Cluster } from '../model/kinds';
import type { CodeType } from '../state/code';
import { kindScope, landingNamespace, readManifest } from '../state/manifest';
import type { Instance } from '../state/types';
import type { ClusterRef } from './cost';

/** At most this many reasons per section: the page explains, it does not list thousands of instances. */
export const MAX_REACH_REASONS = 20;

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

export { kindScope, type KindScope } from '../state/manifest';

/** One object of a raw manifest, as far as its reach goes. */
interface ManifestObject {
  kind: string;
  group: string;
  name: string;
  /** As written; null when none (`landingNamespace` decides where it lands). */
  namespace: string | null;
}

export type ManifestRead = { objects: ManifestObject[] } | { error: string };

/** Manifests read across calls (a read is never changed by its users). */
const MANIFESTS = new TextMemo((text: string) => manifestObjects(text), 32 * 2 ** 20);

/**
 * The objects of a raw manifest, read as the GitOps renderer reads them
 * (state/manifest.ts), or why it cannot be read (then nobody can tell what
 * it reaches). Only what reach needs is kept, not the parsed documents.
 */
export function manifestObjects(text: string): ManifestRead {
  const read = readManifest(text);
  if ('error' in read) return read;
  return { objects: read.objects.map(({ kind, group, name, namespace }) => ({ kind, group, name, namespace })) };
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
      const what = `${obj.kind}${obj.name && !inst.sensitive ? ` ${JSON.stringify(obj.name)}` : ''}`;
      const kindOf = obj.group ? `${obj.kind} (${obj.group})` : obj.kind;
      const scope = kindScope(obj.kind, obj.group);
      // Where the renderer puts it: the namespace written, else the target's.
      const lands = landingNamespace(obj, k8sNs);
      if (scope !== 'namespaced') rec?.kind(kindOf);
      else if (lands !== k8sNs) rec?.otherNamespace(inst.sensitive ? WITHHELD : String(lands));
      if (scope === 'cluster') out.push(`raw manifest of instance ${inst.key} has cluster-scoped kind ${kindOf}: ${what}`);
      else if (scope === 'unknown') out.push(`raw manifest of instance ${inst.key} has kind ${kindOf}, whose scope is unknown (custom resources may be cluster-scoped)`);
      else if (lands === null || !okNamespace(lands)) {
        out.push(`raw manifest of instance ${inst.key} puts ${what} in Kubernetes namespace ${show(String(lands))}, not ${k8sNs}`);
      }
    }
  },
};
