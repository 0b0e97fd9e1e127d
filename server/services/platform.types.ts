import { z } from 'zod';

export const platformInfoOutput = z.object({
  apiVersions: z.array(z.string()),
  instanceName: z.string(),
  platformVersion: z.string(),
  oidProviders: z.array(z.string()),
  iaasProviders: z.record(z.string(), z.record(z.string(), z.unknown())),
});
export type PlatformInfo = z.infer<typeof platformInfoOutput>;
