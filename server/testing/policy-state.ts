/**
 * Shared helpers for the plan and GitOps tests: load policy text and resolve
 * it. Only tests import this, so it lives with the test helpers rather than
 * in the engine; it stays pure like the engine it drives.
 */
import { loadObjects } from '../engine/model/validate';
import type { Cluster } from '../engine/model/kinds';
import type { PolicyUser } from '../engine/model/users';
import { resolvePolicy, type DesiredState } from '../engine/resolve';
import type { PolicyObjectInput } from '../engine/resolve';

export const EMPTY_STATE: DesiredState = { claims: [], instances: [], errors: [] };

export function load(yaml: string): PolicyObjectInput[] {
  const r = loadObjects(yaml);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((d) => `${d.line}:${d.column} ${d.message}`).join('\n'));
  return r.objects as unknown as PolicyObjectInput[];
}

export function resolveYaml(yaml: string, users: readonly PolicyUser[]): DesiredState {
  return resolvePolicy({ objects: load(yaml), users });
}

export function clustersOf(objects: readonly PolicyObjectInput[]): { namespace: string; name: string; spec: Cluster }[] {
  return objects.filter((o) => o.kind === 'cluster').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as Cluster }));
}

export function user(name: string, labels: Record<string, string> = {}): PolicyUser {
  return { name, labels, secrets: {} };
}
