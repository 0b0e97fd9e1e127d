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

/** A user as operators see them in a list: no secrets. */
export const userSummaryOutput = z.object({ name: z.string(), provider: z.string(), labels: z.record(z.string(), z.string()) });
export type UserSummary = z.infer<typeof userSummaryOutput>;
