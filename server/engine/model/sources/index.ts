/**
 * The registry list: every source Keelson reads. Order matters only for
 * recognition — the first source that recognises a document owns it, and
 * Aptomi's envelope (no apiVersion) is the fallback, so it comes last.
 */
import type { z } from 'zod';
import { APTOMI } from './aptomi';
import { CAPACT } from './capact';
import { DM, DM_CONFIGURATION } from './dm';
import { LANDSCAPER } from './landscaper';
import type { SourceModel } from './types';

export const SOURCE_MODELS: readonly SourceModel[] = [LANDSCAPER, CAPACT, DM, DM_CONFIGURATION, APTOMI];

/** Every kind of every source, with its schema: what `Kind` and `ObjectOfKind` are made of. */
type KindMap = typeof APTOMI.kinds & typeof LANDSCAPER.kinds & typeof CAPACT.kinds & typeof DM.kinds;

export type Kind = keyof KindMap & string;
export type ObjectOfKind = { [K in Kind]: z.output<KindMap[K]['schema']> };
export type KindSchemas = { [K in Kind]: KindMap[K]['schema'] };

export { APTOMI, CAPACT, DM, LANDSCAPER };
export { defineSource, metadataIdentity, type CheckedObject, type Identity, type KindSpec, type SourceModel } from './types';
