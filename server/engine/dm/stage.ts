/**
 * The expand stage (Helm's Deployment Manager): every `deployment` object's
 * configuration is expanded (server/engine/dm) — templates recursively,
 * schemas with defaults, outputs and `$(ref…)` — and each primitive of the
 * flat configuration that is a Kubernetes object becomes an instance of
 * the shared desired state (raw code: the object as the template wrote it,
 * named after its resource when it has no name), on the deployment's
 * cluster. References the configuration answers are filled in; the ones
 * that remain need the cluster's values: they become ordering (a primitive
 * waits for the ones it refers to) and hold the revision's section back
 * (plan/index.ts). Unknown names and cycles are the deployment's errors. Other primitive types (GCP's `compute.v1.instance`
 * and the like) deploy nothing Keelson can apply, and are said so in the
 * deployment's trace. A deployment's outcome is reported like a claim's.
 */
import { stringify } from 'yaml';
import { wholeStage, type EngineObject, type SourceStage, type StageOutput } from '../stage';
import { dmDiagnostic, expandDeployment, referenceProblems, type DmError, type JsonObject, type LayoutResource } from './index';
import { errorAt, failuresOf, objectRef, type Diagnostic } from '../diagnostics';
import type { Cluster } from '../model/kinds';
import { deploymentEnv, DM_KINDS, type Deployment } from '../model/sources/dm';
import { sourceInstance, type ClaimOutcome, type Instance, type TraceStep } from '../state';

const READS = new Set<string>([...DM_KINDS, 'cluster']);

/** The Kubernetes object a primitive stands for, or why it is none. */
export function kubernetesObject(r: { name: string; type: string; properties?: unknown }): Record<string, unknown> | undefined {
  const p = r.properties;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return undefined;
  const o = p as Record<string, unknown>;
  // DM's Kubernetes primitives are typed by their kind (`Service`, `ReplicationController`) and carry the object whole.
  const kind = typeof o.kind === 'string' ? o.kind : /^[A-Z][A-Za-z0-9]*$/.test(r.type) ? r.type : undefined;
  if (!kind || typeof o.apiVersion !== 'string') return undefined;
  const metadata = typeof o.metadata === 'object' && o.metadata !== null ? (o.metadata as Record<string, unknown>) : {};
  return { ...o, kind, metadata: { ...metadata, name: typeof metadata.name === 'string' ? metadata.name : r.name } };
}

/** Each primitive's path of template names in the layout, outermost first (the first place a name appears). */
function layoutPaths(layout: readonly LayoutResource[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (nodes: readonly LayoutResource[], path: string[]) => {
    for (const n of nodes) {
      if (n.resources?.length) walk(n.resources, [...path, n.name]);
      else if (!out.has(n.name)) out.set(n.name, path);
    }
  };
  walk(layout, []);
  return out;
}

/** The deployment's field an expansion error is about: the top-level resource its chain starts from, when the configuration lists it. */
function fieldOf(e: DmError, configuration: unknown): (string | number)[] | undefined {
  const top = e.path?.[0]?.name ?? e.resource;
  const resources = (configuration as { resources?: unknown } | undefined)?.resources;
  const index = Array.isArray(resources) ? resources.findIndex((r) => (r as { name?: unknown } | null)?.name === top) : -1;
  return index < 0 ? undefined : ['configuration', 'resources', index];
}

function expandOutput(objects: readonly EngineObject[]): StageOutput {
  const deployments = objects.filter((o) => o.kind === 'deployment');
  if (deployments.length === 0) return { instances: [], claims: [], errors: [] };
  const clusters = new Map(objects.filter((o) => o.kind === 'cluster').map((o) => [`${o.namespace}/${o.name}`, o.spec as Cluster]));
  const instances: Instance[] = [];
  const claims: ClaimOutcome[] = [];
  for (const o of deployments) {
    const d = o.spec as Deployment;
    const ref = `${o.namespace}/${o.name}`;
    const trace: TraceStep[] = [];
    const failures: Diagnostic[] = [];
    const object = objectRef('deployment', o.namespace, o.name);
    const keys: string[] = [];
    const r = expandDeployment({ config: d.configuration as JsonObject, imports: d.imports ?? {} }, deploymentEnv(o.namespace, o.name), { validateSchema: d.validateSchema });
    failures.push(...r.errors.map((e) => dmDiagnostic(e, { object, path: fieldOf(e, d.configuration) })));
    const clusterKey = d.target.includes('/') ? d.target : `system/${d.target}`;
    const cluster = clusters.get(clusterKey);
    if (r.errors.length === 0 && !cluster) failures.push(errorAt('invalid_reference', `target "${d.target}" is not a Keelson cluster`, { object, path: ['target'] }));
    failures.push(
      ...referenceProblems({ cycles: r.references.cycles, unknown: [] }).map((m) => errorAt('cycle', m, { object })),
      ...referenceProblems({ cycles: [], unknown: r.references.unknown }).map((m) => errorAt('invalid_reference', m, { object })),
    );
    const paths = layoutPaths(r.layout.resources);
    const keyOf = new Map<string, string>();
    if (cluster && failures.length === 0) {
      const [clusterNamespace, clusterName] = clusterKey.split('/') as [string, string];
      for (const res of r.config.resources) {
        const obj = kubernetesObject(res);
        const path = paths.get(res.name) ?? [];
        if (!obj) {
          trace.push({ depth: path.length, kind: 'component', message: `primitive ${res.name} (${res.type}) is no Kubernetes object: nothing is deployed for it` });
          continue;
        }
        const k8sNamespace = String((obj.metadata as { namespace?: unknown }).namespace ?? d.k8sNamespace ?? cluster.config?.defaultnamespace ?? 'default');
        const inst = sourceInstance({
          namespace: o.namespace,
          path: [o.name, ...path],
          component: res.name,
          code: { type: 'raw', params: { manifest: stringify(obj) } },
          target: { clusterNamespace, cluster: clusterName, namespace: k8sNamespace },
          owner: ref,
          claims: [ref],
          provenance: { source: 'dm', deployment: o.name, layout: [...path, res.name] },
        });
        trace.push({ depth: path.length, kind: 'instance', message: `primitive ${res.name} (${res.type}) → ${inst.key}`, data: { instance: inst.key, layout: [...path, res.name] } });
        keyOf.set(res.name, inst.key);
        keys.push(inst.key);
        instances.push(inst);
      }
      // A primitive that refers to another waits for it, as in DM, even when the value came from the configuration.
      for (const e of r.references.ordering) {
        const from = instances.find((i) => i.key === keyOf.get(e.from));
        const to = keyOf.get(e.to);
        if (from && to && !from.dependsOn.includes(to)) from.dependsOn.push(to);
      }
    }
    claims.push({
      kind: 'deployment',
      namespace: o.namespace,
      name: o.name,
      user: '',
      service: `configuration of deployment ${o.name}`,
      status: failures.length === 0 ? 'resolved' : 'error',
      ...failuresOf(failures),
      instances: [...keys].sort(),
      ...(keys[0] ? { instance: [...keys].sort()[0] } : {}),
      trace,
      // Its templates ran out of their time (Jinja on the host's clock, Python on the sandbox's): not kept.
      ...(r.errors.some((e) => e.budget === 'time') ? { timedOut: true as const } : {}),
    });
  }
  instances.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  return { instances, claims, errors: [] };
}

export const DM_EXPAND: SourceStage = wholeStage('dm', 'expand', READS, expandOutput);
