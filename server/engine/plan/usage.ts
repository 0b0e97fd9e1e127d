/**
 * What a tenant's services use on one environment of a desired state, and
 * what one service's instances cost: Axebow's marks admission in numbers.
 * Pure, so it runs where the state is — on a resolver thread for a service
 * being placed (the state never crosses to the request thread), or on the
 * request thread for a stored generation.
 */
import type { DesiredState, Instance } from '../state';
import { costAndQuota, type ClusterRef } from './cost';

/** In integer units: millicores, bytes, counts. */
export interface UsageTotals {
  vcpu: number;
  memory: number;
  storage: number;
  instances: number;
  services: number;
}

/** Whose usage, where: a tenant's namespaces on an environment's cluster (and Kubernetes namespace, when it has one). */
export interface UsageAsk {
  namespaces: readonly string[];
  /** `namespace/name` of the cluster object. */
  cluster: string;
  k8sNamespace: string | null;
  /** The cluster object (its defaults fill in unset requests); absent when it no longer exists. */
  clusterRef?: ClusterRef;
  /**
   * The tenant's claims (`ns/name`) that are not this environment's: placed
   * in another environment on the same cluster, or naming none where the
   * cluster holds several. Without it, the tenant's whole use of the cluster.
   */
  elsewhere?: readonly string[];
}

/**
 * The instances on the environment that a claim in one of the tenant's
 * namespaces placed there uses — an instance shared with others counts in
 * full, once.
 * Aptomi instances live in the offering's namespace, so the claims, not
 * the instances' namespaces, say whose they are.
 */
export function tenantUsage(state: DesiredState | null, ask: UsageAsk): UsageTotals {
  const namespaces = new Set(ask.namespaces);
  const elsewhere = new Set(ask.elsewhere ?? []);
  const [cns, cname] = ask.cluster.split('/', 2) as [string, string];
  const onEnv = (i: Instance) => i.target.clusterNamespace === cns && i.target.cluster === cname && (ask.k8sNamespace === null || i.target.namespace === ask.k8sNamespace);
  const ours = (c: string) => namespaces.has(c.slice(0, c.indexOf('/'))) && !elsewhere.has(c);
  const mine = (state?.instances ?? []).filter((i) => onEnv(i) && i.claims.some(ours));
  const services = new Set(mine.flatMap((i) => i.claims.filter(ours)));
  const t = costAndQuota([], mine, ask.clusterRef ? [ask.clusterRef] : []).cost.total.after;
  return { vcpu: t.cpuMillis, memory: t.memoryBytes, storage: t.storageBytes, instances: t.instances, services: services.size };
}

/** What the instances one claim (`ns/name`) uses cost, without cluster defaults: one service's own requests. */
export function claimUsage(state: DesiredState, claimRef: string): UsageTotals {
  const c = costAndQuota([], state.instances.filter((i) => i.claims.includes(claimRef)), []).cost.total.after;
  return { vcpu: c.cpuMillis, memory: c.memoryBytes, storage: c.storageBytes, instances: c.instances, services: 1 };
}

/** What a probe measures: the usage per ask and the cost per claim, in the order asked. */
export interface ProbeMeasure {
  usage: readonly UsageAsk[];
  claims: readonly string[];
}

export interface ProbeMeasured {
  usage: UsageTotals[];
  claims: UsageTotals[];
}

export function measure(state: DesiredState, m: ProbeMeasure): ProbeMeasured {
  return { usage: m.usage.map((a) => tenantUsage(state, a)), claims: m.claims.map((c) => claimUsage(state, c)) };
}
