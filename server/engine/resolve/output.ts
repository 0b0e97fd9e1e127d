/**
 * The `resolve` contract (DESIGN.md "`resolve` output"): what the CLI prints
 * and the REST API returns. Stable key order, claims and instances sorted.
 */
import type { Diagnostic } from '../diagnostics';
import { aptomiOf, type DesiredState } from '../state/types';

export interface ResolveOutput {
  claims: {
    namespace: string;
    name: string;
    user: string;
    service: string;
    status: string;
    errors: string[];
    /** The same failures as Diagnostics: code, object, field (and line inside a template). */
    diagnostics?: Diagnostic[];
    instance?: string;
    instances: string[];
    trace?: unknown[];
  }[];
  instances: {
    key: string;
    namespace: string;
    /** Aptomi instances only (other sources say where they came from in `source`). */
    service?: string;
    context?: string;
    bundle?: string;
    source?: string;
    component: string;
    deployName: string;
    instanceId: string;
    code: { type: string; params: Record<string, unknown> } | null;
    discovery: Record<string, unknown>;
    labels: Record<string, string>;
    target: { cluster: string; clusterNamespace: string; namespace: string } | null;
    dependsOn: string[];
    claims: string[];
    error?: string;
  }[];
  installations: unknown[];
  errors: Diagnostic[];
}

export function toResolveOutput(state: DesiredState, opts: { trace?: boolean } = {}): ResolveOutput {
  return {
    claims: state.claims.map((c) => ({
      namespace: c.namespace,
      name: c.name,
      user: c.user,
      service: c.service,
      status: c.status,
      errors: c.errors,
      ...(c.diagnostics ? { diagnostics: c.diagnostics } : {}),
      ...(c.instance ? { instance: c.instance } : {}),
      instances: c.instances,
      ...(opts.trace ? { trace: c.trace } : {}),
    })),
    instances: state.instances.map((i) => {
      const a = aptomiOf(i);
      return {
      key: i.key,
      namespace: i.namespace,
      ...(a ? { service: a.service, context: a.context, bundle: a.bundle } : { source: i.provenance.source }),
      component: i.component,
      deployName: i.deployName,
      instanceId: i.instanceId,
      code: i.code,
      discovery: i.discovery,
      labels: i.labels,
      target: { cluster: i.target.cluster, clusterNamespace: i.target.clusterNamespace, namespace: i.target.namespace },
      dependsOn: i.dependsOn,
      claims: i.claims,
      ...(i.error ? { error: i.error } : {}),
      };
    }),
    installations: [],
    errors: state.errors,
  };
}
