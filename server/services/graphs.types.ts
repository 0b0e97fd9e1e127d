/**
 * Requests and responses of the graph service (the policy and desired-state
 * graphs and an instance's side panel), shared by tRPC
 * (`server/api/routers/graphs.ts`), the REST API and the CLI. Layout
 * happens in the browser; a graph is nodes, edges and groups.
 */
import { z } from 'zod';
import type { GraphModel } from '../engine/graph';
import { engineRecord, engineValue, generation, instanceKey, instanceOutput } from './common.types';
import { VIEW_MAX_BUDGET, type CompactGraph } from '../engine/graph/view';

// ---- requests

export const policyGraphInput = z.object({ generation: generation.optional() });
/** With `revisionId`: what that revision changes, over what is actually deployed. */
export const desiredGraphInput = z.object({ generation: generation.optional(), revisionId: z.number().int().min(1).optional() });
export const graphInstanceInput = z.object({ key: instanceKey, generation: generation.optional() });

/** The budgeted desired-state graph the console draws (`engine/graph/view.ts`): `budget` nodes in full, the rest counted in buckets. */
export const desiredViewInput = desiredGraphInput.extend({ budget: z.number().int().min(1).max(VIEW_MAX_BUDGET).optional() });
/** One bucket of a budgeted view opened; `budget` is the one that view answered with, so the bucket means the same nodes. */
export const desiredBucketInput = desiredViewInput.extend({ bucket: z.string().min(1).max(4000) });

export type PolicyGraphInput = z.infer<typeof policyGraphInput>;
export type DesiredGraphInput = z.infer<typeof desiredGraphInput>;
export type GraphInstanceInput = z.infer<typeof graphInstanceInput>;
export type DesiredViewInput = z.infer<typeof desiredViewInput>;
export type DesiredBucketInput = z.infer<typeof desiredBucketInput>;

// ---- responses

const graphShape = { generation: z.number().int(), nodes: z.array(z.unknown()), edges: z.array(z.unknown()), groups: z.array(z.unknown()) };

export const policyGraphOutput = engineRecord<GraphModel & { generation: number }>(graphShape);
export const desiredGraphOutput = engineRecord<GraphModel & { generation: number; revisionId?: number }>({ ...graphShape, revisionId: z.number().int().optional() });

/** `graph` is the compact wire form (string table, tuples), checked by its producer, decoded by `decodeView`. */
const compactGraph = engineValue<CompactGraph>((v) => typeof v === 'object' && v !== null && (v as { v?: unknown }).v === 1);
export const desiredViewOutput = z.object({
  generation: z.number().int(),
  revisionId: z.number().int().optional(),
  total: z.number().int(),
  sent: z.number().int(),
  budget: z.number().int(),
  graph: compactGraph,
});
export const desiredBucketOutput = z.object({ generation: z.number().int(), revisionId: z.number().int().optional(), bucket: z.string(), graph: compactGraph });

export const graphInstanceOutput = z.object({
  generation: z.number().int(),
  /** In full; parameters rendered from user secrets redacted for those who may not manage it. */
  instance: instanceOutput,
  /** What is actually deployed (null: never applied). */
  actual: z.object({ status: z.string(), revisionId: z.number().int(), error: z.string().nullable(), updatedAt: z.date() }).nullable(),
  /** Apply events of the steps that touched it, newest first. */
  events: z.array(z.object({ id: z.number().int(), revisionId: z.number().int(), at: z.date(), kind: z.string(), message: z.string() })),
});

export type PolicyGraph = z.infer<typeof policyGraphOutput>;
export type DesiredGraph = z.infer<typeof desiredGraphOutput>;
export type GraphInstance = z.infer<typeof graphInstanceOutput>;
export type DesiredViewAnswer = z.infer<typeof desiredViewOutput>;
export type DesiredBucketAnswer = z.infer<typeof desiredBucketOutput>;
