import { z } from 'zod';

/** Resource consumption limits (#Limits), written as marks are: vCPU in cores, memory and storage as quantities, counts as counts. */
export const limitsOutput = z.record(z.string(), z.union([z.number(), z.string()]));
export type Limits = z.infer<typeof limitsOutput>;

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
