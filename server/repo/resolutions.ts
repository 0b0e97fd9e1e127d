/**
 * Stored resolutions on PostgreSQL (or PGlite): one per generation, the
 * state gzipped (unzipped off the event loop).
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { fromGzJsonAsync, toGzJsonAsync } from '../db/gz-json';
import { resolutions } from '../db/schema';
import type { ResolutionRepo, StoredResolution } from './types';

export class DrizzleResolutionRepo implements ResolutionRepo {
  constructor(private readonly db: Db) {}

  /** Built once: a console asks for another console's resolutions several times a second under writes (see DrizzlePolicyRepo.prepared). */
  private get prepared() {
    return (this.preparedReads ??= this.prepareReads());
  }

  private preparedReads: ReturnType<DrizzleResolutionRepo['prepareReads']> | undefined;

  private prepareReads() {
    const generation = eq(resolutions.generation, sql.placeholder('generation'));
    return {
      get: this.db.select().from(resolutions).where(generation).prepare('keelson_resolution'),
      has: this.db.select({ generation: resolutions.generation }).from(resolutions).where(generation).prepare('keelson_resolution_stored'),
    };
  }

  async get(generation: number): Promise<StoredResolution | undefined> {
    const rows = await this.prepared.get.execute({ generation });
    const row = rows[0];
    if (!row) return undefined;
    const { stateGz, state: old, ...summary } = row;
    // Unzipped on libuv's threads, not the event loop.
    const state = stateGz ? await fromGzJsonAsync(stateGz) : old;
    // Resolutions are derived data: one stored before instances carried their
    // provenance is recomputed rather than read in an older shape.
    return isCurrentStateShape(state) ? { ...summary, state } : undefined;
  }

  async has(generation: number): Promise<boolean> {
    return (await this.prepared.has.execute({ generation })).length > 0;
  }

  async put(r: Omit<StoredResolution, 'createdAt'>): Promise<void> {
    const { state, generation: _g, ...summary } = r;
    const stateGz = await toGzJsonAsync(state);
    // Same generation, same inputs: the row is only ever replaced by a recomputation of an outdated shape.
    await this.db
      .insert(resolutions)
      .values({ ...r, state: null, stateGz })
      .onConflictDoUpdate({ target: resolutions.generation, set: { ...summary, state: null, stateGz } });
  }
}

function isCurrentStateShape(state: unknown): boolean {
  const first = (state as { instances?: { provenance?: unknown }[] } | null)?.instances?.[0];
  return first === undefined || first.provenance !== undefined;
}
