/**
 * Instance keys, made and read in one place. A key is Aptomi's:
 *
 *   clusterNamespace#cluster#k8sNamespace#namespace#service#context#allocationKey…#component
 *
 * (`root` as the component for a bundle instance). Other sources use
 *
 *   clusterNamespace#cluster#k8sNamespace#namespace#@source#path…#component
 *
 * where `@` cannot start an Aptomi service name, so keys of different
 * sources never collide. Everything that needs a part of a key — the
 * policy namespace for a tenant check, the readable middle for a screen —
 * asks here instead of splitting on `#`.
 */

export interface InstanceKeyParts {
  clusterNamespace: string;
  cluster: string;
  /** Kubernetes namespace on the cluster. */
  k8sNamespace: string;
  /** Policy namespace of the service. */
  namespace: string;
  service: string;
  context: string;
  allocationKeys: string[];
  /** Component name, `root` for the bundle instance. */
  component: string;
}

/** A key of a source other than Aptomi: its own path (action, scope path, layout path) instead of service/context/keys. */
export interface SourceKeyParts {
  source: string;
  clusterNamespace: string;
  cluster: string;
  k8sNamespace: string;
  namespace: string;
  /** The source's own levels, outermost first; none may contain `#`. */
  path: readonly string[];
  component: string;
}

const SEP = '#';
const SOURCE_MARK = '@';
/** The component name of a bundle instance. */
export const ROOT = 'root';
/** clusterNamespace, cluster, k8sNamespace, namespace, service, context. */
const FIXED = 6;

/** The key of a level (everything but the component), ending in `#`. */
function prefix(p: Omit<InstanceKeyParts, 'component'>): string {
  let out = [p.clusterNamespace, p.cluster, p.k8sNamespace, p.namespace, p.service, p.context].join(SEP) + SEP;
  for (const k of p.allocationKeys) out += k + SEP;
  return out;
}

function make(p: InstanceKeyParts): string {
  return prefix(p) + p.component;
}

/** The key of an instance produced by a source other than Aptomi. */
function forSource(p: SourceKeyParts): string {
  const parts = [p.clusterNamespace, p.cluster, p.k8sNamespace, p.namespace, SOURCE_MARK + p.source, ...p.path, p.component];
  for (const x of parts) if (x.includes(SEP)) throw new Error(`instance key part "${x}" contains "${SEP}"`);
  return parts.join(SEP);
}

/** The source that made a key: `aptomi`, or the name after `@`. */
function sourceOf(key: string): string {
  const s = key.split(SEP, 5)[4] ?? '';
  return s.startsWith(SOURCE_MARK) ? s.slice(1) : 'aptomi';
}

/** The parts of an Aptomi key; undefined when it is not one. */
function parse(key: string): InstanceKeyParts | undefined {
  const parts = key.split(SEP);
  if (parts.length < FIXED + 1 || parts[4]!.startsWith(SOURCE_MARK)) return undefined;
  const [clusterNamespace, cluster, k8sNamespace, namespace, service, context] = parts as [string, string, string, string, string, string];
  return { clusterNamespace, cluster, k8sNamespace, namespace, service, context, allocationKeys: parts.slice(FIXED, -1), component: parts[parts.length - 1]! };
}

/** The level prefix of a key (up to and including the last `#`) and its component. */
function splitComponent(key: string): { prefix: string; component: string } {
  const cut = key.lastIndexOf(SEP) + 1;
  return { prefix: key.slice(0, cut), component: key.slice(cut) };
}

/** The bundle instance a component belongs to: the same key with `root` as component (a key without `#` is returned as is). */
function rootOf(key: string): string {
  const cut = key.lastIndexOf(SEP);
  return cut < 0 ? key : key.slice(0, cut + 1) + ROOT;
}

/** Policy namespace of the instance's service. */
function namespaceOf(key: string): string {
  return key.split(SEP, 4)[3] ?? '';
}

/**
 * The one name screens give an instance — the revision plan, the apply
 * events and the graph alike: the readable middle of its key (namespace,
 * service, context, keys, component; a source's own path), without the
 * `root` of a bundle instance. Cluster and Kubernetes namespace are left to
 * the places that group by them.
 */
function displayName(key: string): string {
  const all = key.split(SEP);
  // Not a full key (a hand-made one, or a stored one from before): shown as it is.
  if (all.length <= FIXED - 2) return key;
  const parts = all.slice(3).map((p) => (p.startsWith(SOURCE_MARK) ? p.slice(1) : p));
  if (parts.length > 1 && parts[parts.length - 1] === ROOT) parts.pop();
  return parts.join(' · ');
}

/** Service, context and keys — the part a cycle message names (without target and component). */
function levelName(key: string): string {
  return key.split(SEP).slice(3, -1).join(SEP);
}

export const instanceKey = { make, prefix, parse, forSource, sourceOf, splitComponent, rootOf, namespaceOf, displayName, levelName, ROOT };
