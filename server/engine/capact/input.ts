/** Capact's input reader: what of a policy Capact reads, read once for every stage and view that chooses Implementations. */
import { loadHub, parsePolicy, type CapactError, type Hub, type Policy } from './index';
import type { Component } from '../model/kinds';
import { mergeSettings, toHubManifest } from '../model/sources/capact';

/** The kinds Capact reads from the policy. */
export const CAPACT_INPUT_KINDS: ReadonlySet<string> = new Set(['interface', 'implementation', 'type', 'attribute', 'typeinstance', 'policy']);

/**
 * Capact's part of a policy, read once: the Hub built from the stored
 * manifests and TypeInstances, the Global policy (`policy/system/global`)
 * with its merge settings, and each Implementation's Keelson code. The
 * Aptomi stage, the select stage (actions) and the console's "Try it" all
 * start from this.
 */
export interface CapactInput {
  hub: Hub;
  hubErrors: string[];
  global: Policy | undefined;
  /** Why the Global policy cannot be read, with the field of each (inside `policy/system/global`). */
  globalErrors: CapactError[];
  settings: ReturnType<typeof mergeSettings>;
  /** `path:revision` of an Implementation → its `spec.keelson.code`. */
  keelsonCode(implementation: string): Component['code'] | undefined;
}

export function capactInputOf(objects: readonly { kind: string; namespace: string; name: string; spec: unknown }[]): CapactInput {
  const manifests: unknown[] = [];
  const keelson = new Map<string, unknown>();
  let globalSpec: Record<string, unknown> | undefined;
  for (const o of objects) {
    if (!CAPACT_INPUT_KINDS.has(o.kind)) continue;
    const spec = o.spec as Record<string, unknown>;
    if (o.kind === 'policy') {
      if (o.namespace === 'system' && o.name === 'global') globalSpec = spec;
      continue;
    }
    manifests.push(toHubManifest(o.kind, spec));
    if (o.kind === 'implementation') keelson.set(o.name, (spec.spec as { keelson?: unknown } | undefined)?.keelson);
  }
  const loaded = loadHub(manifests);
  const parsed = globalSpec ? parsePolicy({ interface: globalSpec.interface, typeInstance: globalSpec.typeInstance }) : undefined;
  return {
    hub: loaded.hub,
    hubErrors: loaded.errors.map((e) => e.message),
    global: parsed?.policy ?? undefined,
    globalErrors: parsed?.errors ?? [],
    settings: mergeSettings(globalSpec),
    keelsonCode: (impl) => (keelson.get(impl) as { code?: Component['code'] } | undefined)?.code ?? undefined,
  };
}
