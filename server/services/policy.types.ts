/**
 * Requests and responses of the policy service (objects, writes, history),
 * shared by tRPC (`server/api/routers/policy.ts`), the REST API and the CLI.
 */
import { z } from 'zod';
import { KNOWN_KINDS, type Kind } from '../engine/model/kinds';
import { diagnosticOutput, generation, note, objectId, yamlText } from './common.types';

// ---- requests

export const listObjectsInput = z.object({
  generation: generation.optional(),
  kind: z.string().max(64).optional(),
  namespace: z.string().max(64).optional(),
  search: z.string().max(200).optional(),
});

export const getObjectInput = objectId.extend({ generation: generation.optional() });

/** Saving with `accept`: the sections of the resulting revision the author may accept are accepted at once. */
const writeOptions = { baseGeneration: generation, message: note, accept: z.boolean().optional() };

export const applyTextInput = z.object({ text: yamlText, ...writeOptions });
export const saveObjectInput = z.object({ id: objectId.optional(), text: yamlText, ...writeOptions });
export const deleteInput = z.object({ ids: z.array(objectId).min(1).max(10000), ...writeOptions });
export const deleteTextInput = z.object({ text: yamlText, ...writeOptions });
export const listGenerationsInput = z.object({ limit: z.number().int().min(1).max(500).optional(), before: generation.optional() });
export const getGenerationInput = z.object({ generation });
export const diffInput = z.object({ from: generation, to: generation });

export type ListObjectsInput = z.infer<typeof listObjectsInput>;
export type ApplyTextInput = z.infer<typeof applyTextInput>;
export type SaveObjectInput = z.infer<typeof saveObjectInput>;
export type DeleteInput = z.infer<typeof deleteInput>;
export type DeleteTextInput = z.infer<typeof deleteTextInput>;
export type ListGenerationsInput = z.infer<typeof listGenerationsInput>;

// ---- responses

const objectIdOutput = z.object({ kind: z.string(), namespace: z.string(), name: z.string() });
const objectChangeOutput = objectIdOutput.extend({ op: z.enum(['create', 'update', 'delete']) });

export const headOutput = z.number().int();

export const objectListingOutput = z.object({
  generation: z.number().int(),
  /** Each with the generation that wrote its current version. */
  objects: z.array(objectIdOutput.extend({ generation: z.number().int() })),
  counts: z.object({ byKind: z.record(z.string(), z.number()), byNamespace: z.record(z.string(), z.number()), total: z.number() }),
});

/** A stored object version: the YAML as written (comments kept), and its validated spec. */
export const storedObjectOutput = objectIdOutput.extend({ text: z.string(), spec: z.unknown(), generation: z.number().int() });

export const objectOutput = storedObjectOutput.extend({
  /** The newest generation, to base a save on. */
  head: z.number().int(),
  canEdit: z.boolean(),
  /** Why the reader may not change it (null: they may). */
  readOnlyReason: z.string().nullable(),
});

export const writeOutput = z.object({
  generation: z.number().int(),
  changed: z.boolean(),
  changes: z.array(objectChangeOutput),
  /** Warnings and notes (skipped documents) from validation. */
  diagnostics: z.array(diagnosticOutput),
});

/** `object` is the first one saved; `objects` every one (the new-object editor may create several). */
export const saveObjectOutput = writeOutput.extend({ object: objectIdOutput, objects: z.array(objectIdOutput) });

export const generationInfoOutput = z.object({
  generation: z.number().int(),
  author: z.string(),
  message: z.string(),
  createdAt: z.date(),
  changes: z.array(objectChangeOutput),
  restoredFrom: z.number().int().nullable(),
});

export const listGenerationsOutput = z.array(generationInfoOutput);

export const generationOutput = z.object({ info: generationInfoOutput.nullable(), objects: z.array(storedObjectOutput) });

/** The whole policy of two generations as YAML, and the objects that differ. */
export const diffOutput = z.object({ from: z.string(), to: z.string(), changed: z.array(objectIdOutput) });

/** JSON Schema per kind, for the editor. */
export const schemasOutput = z.record(z.enum(KNOWN_KINDS as readonly Kind[] as [Kind, ...Kind[]]), z.record(z.string(), z.unknown()));

export type ObjectSummary = ObjectListing['objects'][number];
export type ObjectListing = z.infer<typeof objectListingOutput>;
export type ObjectView = z.infer<typeof objectOutput>;
export type WriteResult = z.infer<typeof writeOutput>;
export type SaveObjectResult = z.infer<typeof saveObjectOutput>;
export type GenerationView = z.infer<typeof generationOutput>;
export type PolicyDiff = z.infer<typeof diffOutput>;
export type Schemas = z.infer<typeof schemasOutput>;
