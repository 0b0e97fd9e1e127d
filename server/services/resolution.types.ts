/**
 * Requests and responses of the resolution procedures (claims' outcomes,
 * one claim with its decision trace and instances), shared by tRPC
 * (`server/api/routers/resolution.ts`), the REST API and the CLI. Served by
 * `ClaimService` (claims.ts) over `ResolutionService`.
 */
import { z } from 'zod';
import type { ClaimOutcome } from '../engine/state';
import { claimOutcomeOutput, engineRecord, generation, instanceOutput, name } from './common.types';

// ---- requests

export const claimsInput = z.object({ generation: generation.optional() });
/** What is listed with the claims; a claim and a DM deployment (say) may share a namespace and a name. */
export const REQUEST_KINDS = ['claim', 'action', 'installation', 'deployment'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
/** `kind` picks one request among those of that namespace/name; without it, the first listed (as before kinds had routes of their own). */
export const claimInput = z.object({ namespace: name, name, kind: z.enum(REQUEST_KINDS).optional(), generation: generation.optional() });

export type ClaimsInput = z.infer<typeof claimsInput>;
export type ClaimInput = z.infer<typeof claimInput>;

// ---- responses

/** A claim's outcome without its decision trace, and how many instances it uses. */
export type ClaimSummary = Omit<ClaimOutcome, 'trace'> & { instanceCount: number };

export const claimsOutput = z.object({
  generation: z.number().int(),
  durationMs: z.number(),
  counts: z.object({ total: z.number().int(), resolved: z.number().int(), rejected: z.number().int(), error: z.number().int(), instances: z.number().int() }),
  claims: z.array(
    engineRecord<ClaimSummary>({
      namespace: z.string(),
      name: z.string(),
      user: z.string(),
      service: z.string(),
      status: z.enum(['resolved', 'rejected', 'error']),
      errors: z.array(z.string()),
      instances: z.array(z.string()),
      instanceCount: z.number().int(),
    }),
  ),
});

export const claimOutput = z.object({
  generation: z.number().int(),
  /** With its decision trace; diagnostics placed on their lines. */
  outcome: claimOutcomeOutput,
  /** The instances it uses, redacted for readers who may not manage them. */
  instances: z.array(instanceOutput),
});

export type ClaimsView = z.infer<typeof claimsOutput>;
export type ClaimView = z.infer<typeof claimOutput>;
