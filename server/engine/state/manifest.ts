/**
 * A raw manifest (code type `raw`) as every reader of it sees it. The reach
 * check (what a namespace admin may accept) and the GitOps renderer (what is
 * written for the applier) both read manifests here and ask
 * `landingNamespace` where each object lands, so they cannot disagree about
 * which objects a manifest holds or where they go: a `kind: List` whose
 * items name no namespace was once passed by the one as landing in the
 * target namespace and written by the other with only the List's own
 * namespace set, leaving its items to the applier's default.
 *
 * Lists are expanded into their items (the renderer writes the items, never
 * the List: appliers differ in how they read one), and anything appliers
 * read differently is refused: kubectl takes any object with `items` for a
 * list, kustomize only a kind ending in `List`.
 *
 * Pure: text in, objects or an error out.
 */
import { isAlias, isMap, isScalar, isSeq, parseAllDocuments, visit, type Document, type Node, type YAMLMap } from 'yaml';
import { isRecord } from '../lang/data';

/** Like every manifest reading: an alias bomb is an unreadable manifest, not a hang. */
export const MAX_MANIFEST_ALIASES = 100;
/** `kind: List` nesting followed; deeper lists are unreadable (kubectl does not nest them either). */
export const MAX_LIST_DEPTH = 3;

/** One Kubernetes object of a manifest. */
export interface ManifestObject {
  /** Where it is written, for messages: `document 2`, `document 2 item 3` (1-based). */
  where: string;
  kind: string;
  apiVersion: string;
  /** API group: '' is the core group (`v1`), `apps` for `apps/v1`. */
  group: string;
  /** metadata.name, or '' when it has none. */
  name: string;
  /** metadata.namespace as written; null when absent or empty. Where it lands: `landingNamespace`. */
  namespace: string | null;
  /** The object as an applier reads it: aliases and merge keys resolved. */
  value: Record<string, unknown>;
  /**
   * The object's YAML node, when writing it back as written means exactly
   * `value` (its document has no aliases); null: write `value`. Keeps the
   * author's comments and formatting.
   */
  node: YAMLMap | null;
  /** The parsed document, when the object is the whole of it and `node` is set. */
  document: Document.Parsed | null;
}

export type ManifestRead = { objects: ManifestObject[] } | { error: string };

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

export type KindScope = 'cluster' | 'namespaced' | 'unknown';

export function kindScope(kind: string, group: string): KindScope {
  if (CLUSTER_SCOPED[kind]?.includes(group)) return 'cluster';
  if (NAMESPACED[kind]?.includes(group)) return 'namespaced';
  return 'unknown';
}

/**
 * The Kubernetes namespace `obj` lands in when its instance targets
 * `target`: the one it names, else the target's (the renderer writes it in).
 * Null for cluster-scoped kinds, which live in none. A custom resource of
 * unknown scope is placed like a namespaced kind (the common case; the API
 * server ignores the field on cluster-scoped ones), and its reach needs a
 * domain admin anyway.
 */
export function landingNamespace(obj: Pick<ManifestObject, 'kind' | 'group' | 'namespace'>, target: string): string | null {
  if (kindScope(obj.kind, obj.group) === 'cluster') return null;
  return obj.namespace ?? target;
}

/** First line of a yaml error, which already names the line and column. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/:$/, '');
}

function hasAlias(node: Node): boolean {
  let found = false;
  visit(node, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * The Kubernetes objects of a manifest, Lists expanded, in order; or why it
 * cannot be read (one line: `document 2 needs string apiVersion and kind`),
 * for its readers to prefix with the instance. Read in YAML 1.1, as kubectl
 * and Flux read manifests: the same text must mean the same objects.
 */
export function readManifest(text: string): ManifestRead {
  let docs;
  try {
    docs = parseAllDocuments(text, { version: '1.1', prettyErrors: true });
  } catch (e) {
    return { error: `is not valid YAML: ${firstLine(e instanceof Error ? e.message : String(e))}` };
  }
  const parsed: Document.Parsed[] = [...docs];
  // A stream without documents reports its (directive-level) errors on the stream itself.
  const errors = 'empty' in docs ? docs.errors : parsed.flatMap((d) => d.errors);
  if (errors.length) {
    const shown = errors.slice(0, 3).map((e) => firstLine(e.message));
    const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
    return { error: `is not valid YAML: ${shown.join('; ')}${more}` };
  }
  const objects: ManifestObject[] = [];
  for (const [n, doc] of parsed.entries()) {
    const where = `document ${n + 1}`;
    const contents = doc.contents;
    // Leading/trailing `---` and comment-only documents hold nothing to apply.
    if (contents === null || (isScalar(contents) && contents.value === null)) continue;
    if (!isMap(contents)) return { error: `${where} is not a Kubernetes object (expected a mapping)` };
    let value: unknown;
    try {
      // Also catches what the parser leaves for later, such as an alias to an undefined anchor.
      value = doc.toJS({ maxAliasCount: MAX_MANIFEST_ALIASES });
    } catch (e) {
      return { error: `${where} is not valid YAML: ${firstLine(e instanceof Error ? e.message : String(e))}` };
    }
    // With an alias anywhere (a merge key too), nodes and value may differ: only the value is written then.
    const node = hasAlias(contents) ? null : contents;
    const problem = collect(value, node, node ? doc : null, where, objects, 0);
    if (problem) return { error: problem };
  }
  return { objects };
}

function collect(
  value: unknown,
  node: YAMLMap | null,
  document: Document.Parsed | null,
  where: string,
  out: ManifestObject[],
  depth: number,
): string | undefined {
  if (!isRecord(value)) return `${where} is not a Kubernetes object (expected a mapping)`;
  const { apiVersion, kind, metadata } = value;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) return `${where} needs string apiVersion and kind`;
  if (Object.hasOwn(value, 'items')) {
    // kubectl reads any object with `items` as a list, kustomize only a `…List` kind: write only what both read alike.
    if (!kind.endsWith('List')) return `${where} (${kind}) has "items", which kubectl reads as a list; only a kind ending in List may have them`;
    if (!Array.isArray(value.items)) return `${where} (${kind}): items must be a sequence`;
    if (depth >= MAX_LIST_DEPTH) return `${where}: lists nested too deep`;
    const seq = node?.get('items', true);
    for (const [i, item] of value.items.entries()) {
      const itemNode = isSeq(seq) ? seq.items[i] : undefined;
      const p = collect(item, isMap(itemNode) && !isAlias(itemNode) ? itemNode : null, null, `${where} item ${i + 1}`, out, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  if (metadata !== undefined && metadata !== null && !isRecord(metadata)) return `${where} (${kind}): metadata must be a mapping`;
  const md = metadata ?? {};
  if (md.labels !== undefined && md.labels !== null && !isRecord(md.labels)) return `${where} (${kind}): metadata.labels must be a mapping`;
  const ns = md.namespace;
  // YAML 1.1 reads `namespace: on` as true: kubectl refuses it, so nobody can tell where it would land.
  if (ns !== undefined && ns !== null && typeof ns !== 'string') return `${where} (${kind}): metadata.namespace must be a string`;
  // `v1` is the core group; `apps/v1` is group `apps`.
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  out.push({
    where,
    kind,
    apiVersion,
    group,
    name: typeof md.name === 'string' ? md.name : '',
    namespace: typeof ns === 'string' && ns !== '' ? ns : null,
    value,
    node,
    document: node ? document : null,
  });
  return undefined;
}
