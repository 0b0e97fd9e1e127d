/**
 * What resolution produces: per-claim outcomes with decision traces, and the
 * desired state as instances. Plain data, stable order, JSON-serialisable.
 */
import type { Instance } from '../state/types';

// The instance types live with the shared desired state (every source produces them).
export type { Instance, InstanceCode, Target } from '../state/types';

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
