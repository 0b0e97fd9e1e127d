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
  /** Tenant name → the user's role there (Axebow's UserInfo.tenants). */
  tenants: z.record(z.string(), z.string()),
  /** What the user gave when registering; null when they have not. */
  registration: z.object({ name: z.string(), surname: z.string(), registeredAt: z.date() }).catchall(z.union([z.string(), z.date()])).nullable(),
  /** Provider → profile (Axebow's UserInfo.profiles): the one signed up with (`native`) and linked identities. */
  profiles: z.record(z.string(), z.object({ subject: z.string(), email: z.string().nullable(), native: z.boolean(), addedAt: z.date().nullable() })),
});

/** Axebow's registration body. */
export const registerInput = z.object({
  name: z.string().min(1).max(200),
  surname: z.string().min(1).max(200),
  discoveryMethod: z.string().max(200).optional(),
  companyName: z.string().max(200).optional(),
  companyRole: z.string().max(200).optional(),
});
export type RegisterInput = z.infer<typeof registerInput>;

export type Profile = z.infer<typeof profileOutput>;

/** A user as operators see them in a list: no secrets. */
export const userSummaryOutput = z.object({ name: z.string(), provider: z.string(), labels: z.record(z.string(), z.string()) });
export type UserSummary = z.infer<typeof userSummaryOutput>;
