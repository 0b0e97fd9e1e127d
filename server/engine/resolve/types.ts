/**
 * What resolution produces: per-claim outcomes with decision traces, and the
 * desired state as instances. Plain data, stable order, JSON-serialisable.
 */

export type ClaimStatus = 'resolved' | 'rejected' | 'error';

export interface TraceStep {
  /** 0 for the claim's own service, +1 per service component followed. */
  depth: number;
  kind:
    | 'claim'
    | 'user'
    | 'service'
    | 'acl'
    | 'labels'
    | 'context'
    | 'bundle'
    | 'keys'
    | 'rule'
    | 'target'
    | 'instance'
    | 'component'
    | 'reject'
    | 'error';
  message: string;
  /** Structured details (context name, rule, labels changed…). */
  data?: Record<string, unknown>;
}

export interface Target {
  clusterNamespace: string;
  cluster: string;
  /** Kubernetes namespace. */
  namespace: string;
}

export interface InstanceCode {
  type: 'helm' | 'raw';
  params: Record<string, unknown>;
}

/** One component instance (or bundle root) of the desired state. */
export interface Instance {
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

export interface ClaimOutcome {
  namespace: string;
  name: string;
  user: string;
  service: string;
  status: ClaimStatus;
  errors: string[];
  /** The claim's bundle instance (depth 0), when it got that far. */
  instance?: string;
  /** Every instance key the claim uses, sorted. */
  instances: string[];
  trace: TraceStep[];
}

export interface DesiredState {
  claims: ClaimOutcome[];
  instances: Instance[];
  /** Problems not tied to one claim (bad ACL rules…). */
  errors: { object: string; message: string }[];
}
