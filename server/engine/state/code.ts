/**
 * The code types an instance can deploy — one registry for every source.
 * Validation (the kinds' schemas), cost, reach checks, the graphs and the
 * GitOps renderer read this list instead of naming types themselves; a
 * source that brings a new type (Landscaper's container deployer, DM's
 * primitives) adds one entry here and its renderer.
 */

export const CODE_TYPES = {
  helm: {
    description: 'a chart (chartRepo, chartName, chartVersion)',
    /** Parameters the platform itself reads; the rest are chart values. */
    params: ['chartRepo', 'chartName', 'chartVersion'],
  },
  raw: {
    description: 'Kubernetes manifests',
    params: ['manifest'],
  },
} as const satisfies Record<string, { description: string; params: readonly string[] }>;

export type CodeType = keyof typeof CODE_TYPES;

/** Every code type, in registry order (a zod enum needs a non-empty tuple). */
export const CODE_TYPE_NAMES = Object.keys(CODE_TYPES) as [CodeType, ...CodeType[]];

export function isCodeType(t: unknown): t is CodeType {
  return typeof t === 'string' && Object.hasOwn(CODE_TYPES, t);
}

/** One line per type, for schema descriptions and error messages. */
export function describeCodeTypes(): string {
  return CODE_TYPE_NAMES.map((t) => `${t}: ${CODE_TYPES[t].description}`).join('; ');
}
