/**
 * The generations that changed an object of one kind and name (any
 * namespace), newest first, as far as `limit`: found by policy_changes' key.
 * A subquery, so the policy store's history and the revision store's
 * statuses of that history (read beside it) name the same generations.
 * Arguments may be values or drizzle placeholders (prepared statements).
 */
import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { policyChanges } from '../db/schema';

export function generationsTouching(db: Db, kind: unknown, name: unknown, limit: unknown, before?: number) {
  return db
    .selectDistinct({ generation: policyChanges.generation })
    .from(policyChanges)
    .where(and(eq(policyChanges.kind, kind as string), eq(policyChanges.name, name as string), before === undefined ? undefined : lt(policyChanges.generation, before)))
    .orderBy(desc(policyChanges.generation))
    .limit(limit as number);
}
