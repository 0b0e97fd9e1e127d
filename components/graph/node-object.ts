/**
 * The policy object a graph node comes from, for its link to the editor
 * (objects/links.ts objectHref). Contexts live in their service and
 * components in their bundle; an instance comes from what it is part of —
 * Aptomi's service, Capact's action, Landscaper's root installation, DM's
 * deployment. Users are not policy objects (the users file): no link.
 */
import type { GraphNode } from './types';

export interface ObjectRef {
  kind: string;
  namespace: string;
  name: string;
}

/** The kind of object an instance's `owner` names, per source (engine/state/types.ts Instance.owner). */
const OWNER_KIND: Record<string, string> = { aptomi: 'service', capact: 'action', landscaper: 'installation', dm: 'deployment' };

export function nodeObject(n: GraphNode): ObjectRef | null {
  switch (n.kind) {
    case 'user':
      return null;
    case 'claim':
      return { kind: 'claim', namespace: n.namespace, name: n.name };
    case 'service':
    case 'bundle':
      return { kind: n.kind, namespace: n.namespace, name: n.name };
    case 'context':
      return { kind: 'service', namespace: n.namespace, name: n.service };
    case 'component':
      return { kind: 'bundle', namespace: n.namespace, name: n.bundle };
    case 'instance': {
      const kind = OWNER_KIND[n.source];
      if (!kind) return null;
      // Aptomi's owner is a service of the instance's namespace; the other sources name theirs `ns/name`.
      const slash = n.owner.indexOf('/');
      return slash < 0 ? { kind, namespace: n.namespace, name: n.owner } : { kind, namespace: n.owner.slice(0, slash), name: n.owner.slice(slash + 1) };
    }
  }
}
