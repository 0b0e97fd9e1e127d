/**
 * The install stage (Gardener Landscaper): every root Installation runs
 * through the install engine (server/engine/landscaper) — scopes, imports,
 * exports, order, executions — and each deploy item it produces becomes an
 * instance of the shared desired state, so revisions, acceptance, apply
 * and graphs treat installations like any other source:
 *
 *  - `landscaper.gardener.cloud/helm` → helm code (an OCI `chart.ref`
 *    becomes chartRepo/chartName/chartVersion; `values` are chart values);
 *  - `landscaper.gardener.cloud/kubernetes-manifest` → raw code (the
 *    manifests, one YAML document each);
 *  - other types (mock, container) deploy nothing Keelson can apply and
 *    are reported in the installation's outcome.
 *
 * A deploy item's Target is a Keelson cluster of the same name; its
 * Kubernetes namespace is the item's `namespace`, else the installation's.
 * A root installation's outcome is reported like a claim's.
 */
import { stringify } from 'yaml';
import { wholeStage, type EngineObject, type SourceStage, type StageOutput } from '../stage';
import { errorAt, failuresOf, objectRef, type Diagnostic } from '../diagnostics';
import { landscaperDiagnostic } from './types';
import { RECONCILE_LABEL } from '../state/restart';
import { installAll, type InstallationResult, type InstallInput, type InstallRun } from './index';
import type { Cluster } from '../model/kinds';
import { blueprintFilesystem, LANDSCAPER_KINDS } from '../model/sources/landscaper';
import { sourceInstance, type ClaimOutcome, type Instance, type InstanceCode, type TraceStep } from '../state';

const READS = new Set<string>([...LANDSCAPER_KINDS, 'cluster']);
/** Landscaper's operation annotation (reference landscaper.md §10). */
export const RECONCILE_ANNOTATION = 'landscaper.gardener.cloud/operation';

/** `registry/path/name:version` → Keelson's helm params. */
function chartOf(config: Record<string, unknown>): Record<string, unknown> | string {
  const chart = (config.chart ?? {}) as Record<string, unknown>;
  const values = (config.values ?? {}) as Record<string, unknown>;
  if (typeof chart.ref === 'string') {
    const m = /^(.*)\/([^/:]+):([^/:]+)$/.exec(chart.ref);
    if (!m) return `chart.ref "${chart.ref}" is not registry/path/name:version`;
    return { ...values, chartRepo: `oci://${m[1]}`, chartName: m[2], chartVersion: m[3] };
  }
  const repo = chart.helmChartRepo as Record<string, unknown> | undefined;
  if (repo && typeof repo.helmChartRepoUrl === 'string' && typeof repo.helmChartName === 'string') {
    return { ...values, chartRepo: repo.helmChartRepoUrl, chartName: repo.helmChartName, ...(typeof repo.helmChartVersion === 'string' ? { chartVersion: repo.helmChartVersion } : {}) };
  }
  return 'the chart is neither chart.ref nor chart.helmChartRepo (archives are not deployed by Keelson)';
}

function codeOf(type: string, config: unknown): InstanceCode | string | null {
  const c = (config ?? {}) as Record<string, unknown>;
  if (type === 'landscaper.gardener.cloud/helm') {
    const params = chartOf(c);
    return typeof params === 'string' ? params : { type: 'helm', params };
  }
  if (type === 'landscaper.gardener.cloud/kubernetes-manifest') {
    const manifests = (Array.isArray(c.manifests) ? c.manifests : []).map((m) => ((m as { manifest?: unknown }).manifest ?? m) as unknown);
    if (manifests.length === 0) return 'the manifest deploy item lists no manifests';
    return { type: 'raw', params: { manifest: manifests.map((m) => stringify(m)).join('---\n') } };
  }
  return null;
}

/** Keelson's stored Landscaper objects as the install engine reads them: documents in Landscaper's spelling, and blueprint filesystems by name. */
export function installInputOf(objects: readonly EngineObject[]): InstallInput {
  const blueprints: Record<string, Record<string, string>> = {};
  for (const o of objects) if (o.kind === 'blueprint') blueprints[o.name] = blueprintFilesystem(o.spec as Record<string, unknown>);
  const docs = objects
    .filter((o) => (LANDSCAPER_KINDS as readonly string[]).includes(o.kind) && o.kind !== 'blueprint')
    .map((o) => {
      // The stored spec carries Keelson's canonical kind; the engine reads Landscaper's spelling and namespace.
      const spec = o.spec as Record<string, unknown>;
      const kind = { installation: 'Installation', dataobject: 'DataObject', target: 'Target', context: 'Context' }[o.kind] ?? o.kind;
      return { ...spec, kind, metadata: { ...(spec.metadata as object), namespace: o.namespace } };
    });
  return { objects: docs, blueprints };
}

function installOutput(objects: readonly EngineObject[]): StageOutput {
  if (!objects.some((o) => o.kind === 'installation')) return { instances: [], claims: [], errors: [] };
  return installOutputOf(objects, installAll(installInputOf(objects)));
}

/** The stage's output from a run of `objects` already made (the scope graph runs them once for both). */
export function installOutputOf(objects: readonly EngineObject[], run: InstallRun): StageOutput {
  const installations = objects.filter((o) => o.kind === 'installation');
  const clusters = new Map(objects.filter((o) => o.kind === 'cluster').map((o) => [o.name, o.spec as Cluster]));

  const instances: Instance[] = [];
  const claims: ClaimOutcome[] = [];
  const byRoot = new Map<string, InstallationResult[]>();
  for (const r of run.installations) {
    const rootName = r.name.split('/')[0]!;
    const key = `${r.namespace}/${rootName}`;
    byRoot.set(key, [...(byRoot.get(key) ?? []), r]);
  }
  // Landscaper's `operation: reconcile` on a root starts its next job: here, the revision that adds it re-applies the root's deploy items.
  const reconciling = new Set(
    installations.filter((o) => ((o.spec as { metadata?: { annotations?: Record<string, unknown> } }).metadata?.annotations ?? {})[RECONCILE_ANNOTATION] === 'reconcile').map((o) => `${o.namespace}/${o.name}`),
  );
  for (const [ref, results] of byRoot) {
    const [namespace, name] = ref.split('/') as [string, string];
    const trace: TraceStep[] = [];
    const failures: Diagnostic[] = [];
    const object = objectRef('installation', namespace, name);
    const keys: string[] = [];
    for (const r of results) {
      // The run's Succeeded is a simulation (deploy items by the mock deployer): what is deployed follows the revision, and the trace says so.
      const simulated = r.phase === 'Succeeded' ? " in the install engine's run; its deploy items are deployed when its revision is applied" : '';
      trace.push({ depth: r.name.split('/').length - 1, kind: 'instance', message: `installation ${r.name}: ${r.phase}${r.phases.at(-1)?.reason ? ` (${r.phases.at(-1)!.reason})` : ''}${simulated}`, data: { installation: r.name, scope: r.scope } });
      // A root's own fields are in its stored object; a subinstallation's are in a blueprint, which the message names.
      for (const e of r.errors) failures.push({ ...landscaperDiagnostic(e, r.name === name ? { object } : { object, path: undefined }), message: `installation ${r.name}: ${e.message}` });
      for (const di of r.deployItems) {
        const code = codeOf(di.type, di.config);
        if (code === null) {
          trace.push({ depth: r.name.split('/').length, kind: 'component', message: `deploy item ${di.name} (${di.type}) deploys nothing Keelson applies` });
          continue;
        }
        if (typeof code === 'string') {
          failures.push(errorAt('schema', `installation ${r.name}: deploy item ${di.name}: ${code}`, { object }));
          continue;
        }
        const target = di.target ? (r.imports[di.target.import] as { metadata?: { name?: string } } | undefined) : undefined;
        const clusterName = target?.metadata?.name;
        if (!clusterName || !clusters.has(clusterName)) {
          failures.push(errorAt('invalid_reference', `installation ${r.name}: deploy item ${di.name}: its target ${clusterName ? `"${clusterName}" is not a Keelson cluster` : 'is not set'}`, { object }));
          continue;
        }
        const cluster = clusters.get(clusterName)!;
        const k8sNamespace = String((di.config as { namespace?: unknown } | undefined)?.namespace ?? cluster.config?.defaultnamespace ?? namespace);
        const inst = sourceInstance({
          namespace,
          path: r.name.split('/'),
          component: di.name,
          code,
          target: { clusterNamespace: 'system', cluster: clusterName, namespace: k8sNamespace },
          owner: `${namespace}/${name}`,
          claims: [ref],
          provenance: { source: 'landscaper', installation: r.name.split('/'), deployItem: di.name },
          ...(reconciling.has(ref) ? { labels: { [RECONCILE_LABEL]: 'reconcile' } } : {}),
        });
        keys.push(inst.key);
        instances.push(inst);
      }
    }
    claims.push({
      kind: 'installation',
      namespace,
      name,
      user: '',
      service: `blueprint of installation ${name}`,
      status: failures.length === 0 && results.every((r) => r.phase === 'Succeeded') ? 'resolved' : 'error',
      ...failuresOf(failures),
      instances: keys.sort(),
      ...(keys[0] ? { instance: keys[0] } : {}),
      trace,
      ...(results.some((r) => r.timedOut) ? { timedOut: true as const } : {}),
    });
  }
  instances.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  return { instances, claims, errors: run.errors.map((e) => landscaperDiagnostic(e, { object: 'landscaper' })) };
}

export const LANDSCAPER_INSTALL: SourceStage = wholeStage('landscaper', 'install', READS, installOutput);
