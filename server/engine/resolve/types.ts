/**
 * What resolution produces: per-claim outcomes with decision traces, and the
 * desired state as instances. Plain data, stable order, JSON-serialisable.
 */
// The desired state and request outcomes live with the shared desired state (every source produces them).
export type { ClaimOutcome, ClaimStatus, DesiredState, Instance, InstanceCode, Target, TraceStep } from '../state/types';

