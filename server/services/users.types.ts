/**
 * Responses of the user service, shared by tRPC
 * (`server/api/routers/users.ts`), the REST API and the CLI.
 */
import { z } from 'zod';

export const profileOutput = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.string(),
  email: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
});

export type Profile = z.infer<typeof profileOutput>;
