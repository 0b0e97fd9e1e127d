/**
 * Deploy items and the offline deployer: the items an execution's output
 * lists, and what a deployer would do with them without a cluster (mock
 * items apply their config, kubernetes-manifest items apply in memory and
 * export by jsonPath, other types deploy and export nothing).
 */
import type { Rec } from './load';
import type { DeployItem } from './types';
import { isRecord } from '../lang/data';

export function readDeployItems(out: Rec[]): DeployItem[] {
  return out.flatMap((o) =>
    (Array.isArray(o.deployItems) ? o.deployItems : []).filter(isRecord).map((d) => ({
      name: String(d.name ?? ''),
      type: String(d.type ?? ''),
      ...(isRecord(d.target) ? { target: { import: String(d.target.import ?? d.target.name ?? ''), ...(d.target.key !== undefined ? { key: String(d.target.key) } : {}) } } : {}),
      config: d.config ?? {},
      dependsOn: Array.isArray(d.dependsOn) ? d.dependsOn.map(String) : [],
      phase: 'Succeeded' as const,
      exports: {},
    })),
  );
}

/** `.a.b` / `{.a.b}` JSON paths over a manifest. */
function jsonPath(obj: unknown, path: string): unknown {
  let v = obj;
  for (const seg of path.replace(/^\{|\}$/g, '').split('.').filter(Boolean)) v = isRecord(v) ? v[seg] : undefined;
  return v;
}

/**
 * What a deployer would do, offline: `mock` items apply their config
 * (`phase`, `export`) verbatim, as Landscaper's mock deployer does;
 * `kubernetes-manifest` items "apply" their manifests in memory and export
 * by jsonPath from them; other types cannot run offline and export nothing.
 * Items run in `dependsOn` order; after a failure nothing new starts.
 */
export function deployOffline(items: DeployItem[]): { items: DeployItem[]; error?: string } {
  const byName = new Map(items.map((i) => [i.name, i]));
  const done = new Set<string>();
  let failed = false;
  for (let progress = true; progress && !failed; ) {
    progress = false;
    for (const item of items) {
      if (done.has(item.name) || !item.dependsOn.every((d) => done.has(d) || !byName.has(d))) continue;
      done.add(item.name);
      progress = true;
      const config = isRecord(item.config) ? item.config : {};
      if (item.type === 'landscaper.gardener.cloud/mock') {
        item.phase = config.phase === 'Failed' ? 'Failed' : 'Succeeded';
        item.exports = isRecord(config.export) ? config.export : {};
      } else if (item.type === 'landscaper.gardener.cloud/kubernetes-manifest') {
        const manifests = (Array.isArray(config.manifests) ? config.manifests : []).map((m) => (isRecord(m) && 'manifest' in m ? m.manifest : m)).filter(isRecord);
        const exportsDef = isRecord(config.exports) && Array.isArray(config.exports.exports) ? config.exports.exports.filter(isRecord) : [];
        for (const e of exportsDef) {
          const from = isRecord(e.fromResource) ? e.fromResource : {};
          const m = manifests.find((x) => x.apiVersion === from.apiVersion && x.kind === from.kind && isRecord(x.metadata) && x.metadata.name === from.name && (from.namespace === undefined || x.metadata.namespace === from.namespace));
          if (m) item.exports[String(e.key)] = jsonPath(m, String(e.jsonPath ?? ''));
        }
        item.note = `${manifests.length} manifest(s) applied in memory`;
      } else {
        item.note = `no ${item.type} deployer in an offline run: nothing deployed, nothing exported`;
      }
      if (item.phase === 'Failed') failed = true;
      break;
    }
  }
  const stuck = items.filter((i) => !done.has(i.name));
  if (failed) return { items, error: `deploy item(s) failed: ${items.filter((i) => i.phase === 'Failed').map((i) => i.name).join(', ')}` };
  if (stuck.length > 0) {
    for (const i of stuck) i.phase = 'Failed';
    return { items, error: `deploy items wait for each other (dependsOn cycle): ${stuck.map((i) => i.name).join(', ')}` };
  }
  return { items };
}
