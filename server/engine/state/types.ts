/**
 * The desired state every source produces: instances to deploy, where, with
 * which code. Plan, graphs, cost, redaction and apply read these types.
 */
import type { Diagnostic } from '../diagnostics';
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

/**
 * Where an instance came from, per source. Plan, graphs, cost, redaction and
 * apply never look inside: they read the common fields of `Instance`. The
 * source's own screens (a claim's trace, an installation's scope) do.
 *
 * A source adds its entry here — or, for a source defined outside this
 * folder (a test's toy source), by augmenting this interface — and the
 * `Provenance` union grows with it.
 */
export interface ProvenanceBySource {
  /** Aptomi: a service's context instantiated a bundle for some claims. */
  aptomi: {
    service: string;
    context: string;
    allocationKeys: string[];
    bundle: string;
    /** Claim (`ns/name`) → depth at which it reached the instance. */
    claimDepth: Record<string, number>;
  };
  /** Capact: an action's interface was served by an implementation. */
  capact: { action: string; interface: string; implementation: string };
  /** Landscaper: a deploy item of an installation, by scope path (root installation first). */
  landscaper: { installation: string[]; deployItem: string };
  /** Deployment Manager: a primitive resource of a deployment, by layout path (outermost template first). */
  dm: { deployment: string; layout: string[] };
}

export type SourceName = keyof ProvenanceBySource;
export type Provenance = { [S in SourceName]: { source: S } & ProvenanceBySource[S] }[SourceName];
export type ProvenanceOf<S extends SourceName> = Extract<Provenance, { source: S }>;

/** One deployable instance (or a grouping root such as an Aptomi bundle instance) of the desired state. */
export interface Instance {
  /** See `instanceKey` (./key): made and read only there. */
  key: string;
  /** Deploy name (Aptomi's: `a-` + base32 FNV-64a of the key; every source uses the same function). */
  deployName: string;
  /** Instance id (FNV-32a of the key, decimal). */
  instanceId: string;
  /** Policy namespace that owns the instance: its tenant, and whose admins accept its changes. */
  namespace: string;
  /**
   * What the instance is part of, for people and for grouping in plans and
   * graphs: Aptomi's service, Capact's action, Landscaper's root
   * installation, DM's deployment.
   */
  owner: string;
  /** Component name, or `root` for a grouping instance that deploys nothing itself. */
  component: string;
  code: InstanceCode | null;
  discovery: Record<string, unknown>;
  labels: Record<string, string>;
  target: Target;
  /** Structural edges (grouping root → its members, consumer → what it consumes). */
  edges: string[];
  /** Instances that must exist first: `edges` plus ordering within the group. */
  dependsOn: string[];
  /**
   * The requests that need this instance, `ns/name`, sorted: Aptomi's claims
   * (the word is kept: an Axebow service, a Capact action, a Landscaper root
   * installation or a DM deployment is a claim on the platform too).
   */
  claims: string[];
  provenance: Provenance;
  /** Set when the instance cannot be deployed (conflicting parameters, or every claim using it failed). */
  error?: string;
  /**
   * Its parameters or discovery were rendered from credentials, and who may
   * see them whole: a user's own secrets, that namespace's admins; platform
   * credentials (Hub TypeInstances, Targets, clusters), domain admins only.
   * States stored before audiences were recorded say `true`: read as the
   * stricter audience (see `audienceOf`).
   */
  sensitive?: SecretAudience;
}

/**
 * Who may see a credential whole (besides the platform itself): a user's
 * own secrets are seen by the admins of the namespace they were used in,
 * and by domain admins; credentials of the platform — a Capact Hub
 * TypeInstance, a Landscaper Target, an Aptomi cluster's kubeconfig — by
 * domain admins only. Kinds declare theirs in the kind registry
 * (`KindSpec.credentials`); the engine gives an instance the strictest
 * audience of what its templates could read.
 */
export type SecretAudience = 'namespace-admins' | 'domain-admins';

/** An instance's or a step's audience as stored; anything but a known one (`true` from older states) is the strictest. */
export function audienceOf(sensitive: unknown): SecretAudience | undefined {
  if (sensitive === undefined || sensitive === null || sensitive === false) return undefined;
  return sensitive === 'namespace-admins' ? 'namespace-admins' : 'domain-admins';
}

/** The stricter of two audiences (undefined: not sensitive). */
export function strictestAudience(a: unknown, b: unknown): SecretAudience | undefined {
  const x = audienceOf(a);
  const y = audienceOf(b);
  return x === 'domain-admins' || y === 'domain-admins' ? 'domain-admins' : (x ?? y);
}

/** The Aptomi provenance of an instance, or undefined for other sources. */
export function aptomiOf(i: Pick<Instance, 'provenance'>): ProvenanceOf<'aptomi'> | undefined {
  return i.provenance.source === 'aptomi' ? (i.provenance as ProvenanceOf<'aptomi'>) : undefined;
}

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

export interface ClaimOutcome {
  /** Set for requests that are not Aptomi claims: a Capact action, a Landscaper root installation, a DM deployment. */
  kind?: 'action' | 'installation' | 'deployment';
  namespace: string;
  name: string;
  user: string;
  service: string;
  status: ClaimStatus;
  errors: string[];
  /**
   * The same failures, structured: code, the object and field to open, and
   * the line and column inside a template or expression. Absent when the
   * claim resolved.
   */
  diagnostics?: Diagnostic[];
  /** The claim's bundle instance (depth 0), when it got that far. */
  instance?: string;
  /** Every instance key the claim uses, sorted. */
  instances: string[];
  trace: TraceStep[];
  /**
   * It failed because it ran out of its time on the host's clock
   * (engine/host-clock.ts), not because of anything in the policy: time
   * depends on load, so the outcome is never kept — the next update
   * resolves it again — and a revision holds back what it ran
   * (plan/timed-out.ts) rather than removing it.
   */
  timedOut?: true;
}

export interface DesiredState {
  claims: ClaimOutcome[];
  instances: Instance[];
  /** Problems not tied to one claim (bad ACL rules…). */
  errors: Diagnostic[];
}
