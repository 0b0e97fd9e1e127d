/**
 * An instance made by a source other than Aptomi (a Capact action, a
 * Landscaper deploy item, a DM primitive): its key from the source's own
 * path, its names derived from the key as for every instance, and the
 * fields such sources leave empty (discovery, labels, edges).
 */
import { deployName, instanceId } from '../lang/hash';
import { instanceKey } from './key';
import type { Instance, InstanceCode, Provenance, Target } from './types';

export function sourceInstance(p: {
  /** The policy namespace that owns it (whose admins accept its changes). */
  namespace: string;
  /** The source's levels, outermost first (action name, installation scope path). */
  path: readonly string[];
  component: string;
  code: InstanceCode;
  target: Target;
  /** What it is part of, for people and grouping. */
  owner: string;
  /** The requests it serves, `ns/name`. */
  claims: string[];
  provenance: Provenance;
  /** Labels the source gives it (e.g. a restart stamp, engine state/restart.ts). */
  labels?: Record<string, string>;
}): Instance {
  const key = instanceKey.forSource({
    source: p.provenance.source,
    clusterNamespace: p.target.clusterNamespace,
    cluster: p.target.cluster,
    k8sNamespace: p.target.namespace,
    namespace: p.namespace,
    path: p.path,
    component: p.component,
  });
  return {
    key,
    deployName: deployName(key),
    instanceId: instanceId(key),
    namespace: p.namespace,
    owner: p.owner,
    component: p.component,
    code: p.code,
    discovery: {},
    labels: p.labels ?? {},
    target: p.target,
    edges: [],
    dependsOn: [],
    claims: p.claims,
    provenance: p.provenance,
  };
}
