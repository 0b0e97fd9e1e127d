/**
 * The desired state every source produces: instances to deploy, where, with
 * which code. Plan, graphs, cost, redaction and apply read these types.
 */
import type { CodeType } from './code';

export interface Target {
  clusterNamespace: string;
  cluster: string;
  /** Kubernetes namespace. */
  namespace: string;
}

export interface InstanceCode {
  type: CodeType;
  params: Record<string, unknown>;
}

/** One component instance (or bundle root) of the desired state. */
export interface Instance {
  /** See `instanceKey` (./key): made and read only there. */
  key: string;
  /** Aptomi's deploy name (`a-` + base32 FNV-64a of the key). */
  deployName: string;
  /** Aptomi's instance id (FNV-32a of the key, decimal). */
  instanceId: string;
  /** Namespace of the service (and bundle). */
  namespace: string;
  service: string;
  context: string;
  allocationKeys: string[];
  bundle: string;
  /** Component name, or `root` for the bundle instance itself. */
  component: string;
  code: InstanceCode | null;
  discovery: Record<string, unknown>;
  labels: Record<string, string>;
  target: Target;
  /**
   * Structural edges as Aptomi records them: bundle root → its components,
   * service component → the bundle instance it consumes.
   */
  edges: string[];
  /** Instances that must exist first: `edges` plus intra-bundle `dependencies`. */
  dependsOn: string[];
  /** `ns/name` of every claim using the instance, sorted. */
  claims: string[];
  /** Claim (`ns/name`) → depth at which it reached the instance. */
  claimDepth: Record<string, number>;
  /** Set when the instance cannot be deployed (conflicting parameters, or every claim using it failed). */
  error?: string;
  /** Its parameters or discovery were rendered from user secrets: shown only to those who may manage it. */
  sensitive?: boolean;
}
