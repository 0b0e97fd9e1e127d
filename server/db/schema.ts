/**
 * The one database schema, for PGlite (embedded) and PostgreSQL servers alike.
 * Everything that records history is append-only: a policy generation never
 * changes once written, and an object version is never rewritten — a newer
 * version closes it by setting `superseded_generation`.
 *
 * Keep SQL within PostgreSQL 15 (PGlite is 18 inside; servers may be older).
 */
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * A single row holding the newest generation number. Writers move it with a
 * compare-and-set (`UPDATE … WHERE generation = base`), which is what makes
 * a stale write fail instead of silently winning.
 */
export const policyHead = pgTable('policy_head', {
  id: integer('id').primaryKey(),
  generation: integer('generation').notNull(),
});

export type ObjectChange = { op: 'create' | 'update' | 'delete'; kind: string; namespace: string; name: string };

export const policyGenerations = pgTable('policy_generations', {
  generation: integer('generation').primaryKey(),
  author: text('author').notNull(),
  message: text('message').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  changes: jsonb('changes').$type<ObjectChange[]>().notNull(),
  /** Set when this generation restores an earlier one (rollback). */
  restoredFrom: integer('restored_from'),
});

export const policyObjects = pgTable(
  'policy_objects',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    namespace: text('namespace').notNull(),
    name: text('name').notNull(),
    /** YAML as the author wrote it, comments included. */
    text: text('text').notNull(),
    /** The validated, normalised object. */
    spec: jsonb('spec').notNull(),
    createdGeneration: integer('created_generation').notNull(),
    supersededGeneration: integer('superseded_generation'),
  },
  (t) => [
    // At most one live version per object.
    uniqueIndex('policy_objects_live_key').on(t.kind, t.namespace, t.name).where(sql`${t.supersededGeneration} is null`),
    index('policy_objects_created_idx').on(t.createdGeneration),
    index('policy_objects_key_idx').on(t.kind, t.namespace, t.name, t.createdGeneration),
  ],
);

/** People who have signed in (local or OIDC); labels feed policy criteria. */
export const users = pgTable('users', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email'),
  provider: text('provider').notNull(),
  labels: jsonb('labels').$type<Record<string, string>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The resolved desired state of a policy generation (claims' outcomes and
 * instances, without traces: those are computed on demand). Derived data:
 * it can always be recomputed from the generation and the users.
 */
export const resolutions = pgTable('resolutions', {
  generation: integer('generation').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  durationMs: integer('duration_ms').notNull(),
  claimsTotal: integer('claims_total').notNull(),
  claimsResolved: integer('claims_resolved').notNull(),
  claimsRejected: integer('claims_rejected').notNull(),
  claimsError: integer('claims_error').notNull(),
  instances: integer('instances').notNull(),
  /** `DesiredState` without traces. */
  state: jsonb('state').notNull(),
});
