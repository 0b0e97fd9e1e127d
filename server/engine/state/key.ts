/**
 * Instance keys, made and read in one place. A key is Aptomi's:
 *
 *   clusterNamespace#cluster#k8sNamespace#namespace#service#context#allocationKey…#component
 *
 * (`root` as the component for a bundle instance). Everything that needs a
 * part of a key — the policy namespace for a tenant check, the readable
 * middle for a screen — asks here instead of splitting on `#`.
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

const SEP = '#';
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

/** The parts of a key; undefined when it is not an instance key. */
function parse(key: string): InstanceKeyParts | undefined {
  const parts = key.split(SEP);
  if (parts.length < FIXED + 1) return undefined;
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

/** The readable middle: namespace, service, context, keys and component, joined by `sep`. */
function readable(key: string, sep = ' · '): string {
  return key.split(SEP).slice(3).join(sep);
}

/** Service, context and keys — the part a cycle message names (without target and component). */
function levelName(key: string): string {
  return key.split(SEP).slice(3, -1).join(SEP);
}

export const instanceKey = { make, prefix, parse, splitComponent, rootOf, namespaceOf, readable, levelName, ROOT };
