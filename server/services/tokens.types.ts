/** Requests and responses of API tokens, shared by the REST API (and the console and CLI to come). */
import { z } from 'zod';

export const createTokenInput = z.object({
  name: z.string().min(1).max(100),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type CreateTokenInput = z.infer<typeof createTokenInput>;

export const tokenOutput = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string(),
  createdAt: z.date(),
  lastUsedAt: z.date().nullable(),
  expiresAt: z.date().nullable(),
  revokedAt: z.date().nullable(),
});
export type TokenView = z.infer<typeof tokenOutput>;

/** A new token: the only time its value is shown. */
export const newTokenOutput = tokenOutput.pick({ id: true, name: true, prefix: true, createdAt: true, expiresAt: true }).extend({ token: z.string() });
export type NewToken = z.infer<typeof newTokenOutput>;

export const passwordGrantInput = z.object({ username: z.string().min(1).max(200), password: z.string().min(1).max(200) });
export const passwordGrantOutput = z.object({ token: z.string(), expiresAt: z.date().nullable() });

/** Revoking one token, by its id (the console; REST takes it in the path). */
export const revokeTokenInput = z.object({ id: z.number().int().min(1) });
export type RevokeTokenInput = z.infer<typeof revokeTokenInput>;
