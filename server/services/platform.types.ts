import { z } from 'zod';
import { parseQuantity } from '../engine/model/quantity';

/** Resource consumption limits (#Limits), written as marks are: vCPU in cores, memory and storage as quantities, counts as counts. */
export const limitsOutput = z.record(z.string(), z.union([z.number(), z.string()]));
export type Limits = z.infer<typeof limitsOutput>;

/** The dimensions a limit may name: those marks take (estate.types.ts). */
export const LIMIT_DIMENSIONS = ['vcpu', 'memory', 'storage', 'instances', 'services'] as const;

/**
 * What an instance configured with nothing says: Axebow's one public quota
 * (a freemium user gets 2 vCPU and 4 GB of memory, reference/axebow.md),
 * Kubernetes' NodePort range for ports, and the host the console serves.
 */
export const PLATFORM_DEFAULTS = {
  freemiumLimits: 'vcpu=2,memory=4Gi',
  portRange: '30000-32767',
} as const;

/**
 * `vcpu=2,memory=4Gi`: each dimension once, each value a quantity (vCPU in
 * cores, memory and storage in bytes) or, for instances and services, a
 * whole number. Plain numbers answer as numbers, the rest as written.
 */
export function parseLimits(text: string): { ok: true; value: Limits } | { ok: false; error: string } {
  const value: Limits = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*(\S+)$/.exec(part);
    if (!m) return { ok: false, error: `"${part}" is not dimension=value (e.g. vcpu=2,memory=4Gi)` };
    const [, dim, raw] = m as unknown as [string, string, string];
    if (!(LIMIT_DIMENSIONS as readonly string[]).includes(dim)) return { ok: false, error: `"${dim}" is not a dimension (${LIMIT_DIMENSIONS.join(', ')})` };
    if (Object.hasOwn(value, dim)) return { ok: false, error: `${dim} is given twice` };
    const counted = dim === 'instances' || dim === 'services';
    if (counted ? !/^\d+$/.test(raw) : !parseQuantity(raw, dim === 'vcpu' ? 'milli' : 'unit').ok) {
      return { ok: false, error: `${dim}=${raw}: ${counted ? 'must be a whole number' : 'must be a quantity such as 2, 500m or 4Gi'}` };
    }
    value[dim] = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  }
  return { ok: true, value };
}

/** `first-last`, both ports, first ≤ last. */
export function parsePortRange(text: string): { ok: true; value: [number, number] } | { ok: false; error: string } {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const first = Number(m?.[1]);
  const last = Number(m?.[2]);
  if (!m || first < 1 || last > 65535 || first > last) return { ok: false, error: 'must be first-last, two ports (1-65535) with first ≤ last, e.g. 30000-32767' };
  return { ok: true, value: [first, last] };
}

export const platformInfoOutput = z.object({
  apiVersions: z.array(z.string()),
  instanceName: z.string(),
  platformVersion: z.string(),
  oidProviders: z.array(z.string()),
  iaasProviders: z.record(z.string(), z.record(z.string(), z.unknown())),
  freemiumAdvancedLimits: limitsOutput.describe('Resource consumption limits of advanced freemium accounts (KEELSON_FREEMIUM_ADVANCED_LIMITS)'),
  freemiumLimits: limitsOutput.describe('Resource consumption limits of basic freemium accounts (KEELSON_FREEMIUM_LIMITS)'),
  portRange: z.array(z.number().int()).describe('The range of ports available, [first, last] (KEELSON_PORT_RANGE)'),
  referenceDomain: z.string().describe("The platform's reference domain (KEELSON_REFERENCE_DOMAIN)"),
});
export type PlatformInfo = z.infer<typeof platformInfoOutput>;
