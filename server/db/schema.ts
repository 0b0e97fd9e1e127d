/**
 * The one database schema, for PGlite (embedded) and PostgreSQL servers alike.
 * Everything that records history is append-only: a policy generation never
 * changes once written, and an object version is never rewritten — a newer
 * version closes it by setting `superseded_generation`.
 *
 * Keep SQL within PostgreSQL 15 (PGlite is 18 inside; servers may be older).
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, customType, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { Marks, TenantRules } from './columns';
import { fromGzJson, toGzJson } from './gz-json';

/**
 * A single row holding the newest generation number. Writers move it with a
 * compare-and-set (`UPDATE … WHERE generation = base`), which is what makes
 * a stale write fail instead of silently winning.
 */
export const policyHead = pgTable('policy_head', {
  id: integer('id').primaryKey(),
  generation: integer('generation').notNull(),
});

/**
 * One row (id 1) whose version moves, by trigger (migrations 0017, 0019), in
 * the same transaction as any write to the tables that say who may do what:
 * tenants, their members, namespaces, invitations, accounts and
 * environments, users, and console sessions. A console on a shared database keeps its reads
 * of those tables while the version it reads with the policy head is
 * unchanged (repo/kept-reads.ts).
 */
export const accessVersion = pgTable('access_version', {
  id: integer('id').primaryKey(),
  // Microseconds since 1970 at the least (migration 0017): below 2^53, so a JS number holds it exactly.
  version: bigint('version', { mode: 'number' }).notNull(),
});

export type ObjectChange = { op: 'create' | 'update' | 'delete'; kind: string; namespace: string; name: string };

export const policyGenerations = pgTable(
  'policy_generations',
  {
    generation: integer('generation').primaryKey(),
    author: text('author').notNull(),
    message: text('message').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    changes: jsonb('changes').$type<ObjectChange[]>().notNull(),
    /** Set when this generation restores an earlier one (rollback). */
    restoredFrom: integer('restored_from'),
  },
);

/**
 * Which objects each generation changed, a row per change (the same as its
 * `changes`), so a service's history finds its generations by key. A GIN
 * index on `changes` served that once, but the planner judged it dearer than
 * reading every generation, which it did while the table was a few thousand
 * rows: the read grew with the policy's age.
 */
export const policyChanges = pgTable(
  'policy_changes',
  {
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    generation: integer('generation')
      .notNull()
      .references(() => policyGenerations.generation),
    namespace: text('namespace').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.name, t.generation, t.namespace] })],
);

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

/** Axebow user registration (POST /api/1.0-beta/user): who registered, with the profile they gave. */
export const userRegistrations = pgTable('user_registrations', {
  userId: text('user_id').primaryKey(),
  name: text('name').notNull(),
  surname: text('surname').notNull(),
  details: jsonb('details').$type<Record<string, string>>().notNull().default({}),
  registeredAt: timestamp('registered_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * OpenID provider profiles linked to a Keelson user (Axebow §4.2): signing
 * in with that provider identity acts as the user. One profile per user and
 * provider; an identity links to one user.
 */
export const userProfiles = pgTable(
  'user_profiles',
  {
    userId: text('user_id').notNull(),
    provider: text('provider').notNull(),
    /** The identity's Keelson id (`oidc:<issuer>#<sub>`). */
    subject: text('subject').notNull(),
    email: text('email'),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.provider] }), uniqueIndex('user_profiles_subject').on(t.subject)],
);

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
  /** `DesiredState` without traces, as rows written before state_gz were (read, never written now). */
  state: jsonb('state'),
  /**
   * `DesiredState` without traces, as gzipped JSON in base64. Every
   * generation stores the whole state (hundreds of kilobytes with a few
   * hundred services), and the database parsing it into jsonb was most of a
   * write's time on the embedded database, where statements run one at a
   * time on the server's own thread. Nothing queries inside a state; it is
   * read whole. Base64 text rather than bytea: PGlite converts bytea
   * parameters and results to and from hex one byte at a time in
   * JavaScript, while Node encodes base64 natively.
   */
  stateGz: text('state_gz'),
});

/** A large JSON document read and written whole, never queried inside: gzipped JSON in base64 text (./gz-json.ts). */
export const gzJson = customType<{ data: unknown; driverData: string }>({
  dataType: () => 'text',
  toDriver: toGzJson,
  fromDriver: (text) => fromGzJson(typeof text === 'string' ? text : JSON.stringify(text)),
});

/**
 * Revisions: one per policy generation, what people accept or reject.
 * `plan` is stored once and is exactly what gets applied (never recomputed).
 */
export const revisions = pgTable(
  'revisions',
  {
    id: serial('id').primaryKey(),
    generation: integer('generation').notNull(),
    /** The accepted revision this one was computed against (null: empty state). */
    baseRevisionId: integer('base_revision_id'),
    status: text('status').notNull(),
    author: text('author').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    appliedAt: timestamp('applied_at', { withTimezone: true }),
    /** Set when this revision restores an earlier one. */
    rollbackOf: integer('rollback_of'),
    counts: jsonb('counts').notNull(),
    cost: jsonb('cost').notNull(),
    quota: jsonb('quota').notNull(),
    plan: gzJson('plan').notNull(),
  },
  (t) => [uniqueIndex('revisions_generation_key').on(t.generation), index('revisions_status_idx').on(t.status)],
);

export const revisionSections = pgTable(
  'revision_sections',
  {
    revisionId: integer('revision_id').notNull(),
    namespace: text('namespace').notNull(),
    status: text('status').notNull(),
    overMarks: boolean('over_marks').notNull().default(false),
    counts: jsonb('counts').notNull(),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    comment: text('comment'),
  },
  (t) => [primaryKey({ columns: [t.revisionId, t.namespace] })],
);

/** Append-only history of a revision: decisions, supersession, apply progress. */
export const revisionEvents = pgTable(
  'revision_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    revisionId: integer('revision_id').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    kind: text('kind').notNull(),
    actor: text('actor'),
    section: text('section'),
    step: integer('step'),
    message: text('message').notNull(),
  },
  (t) => [index('revision_events_revision_idx').on(t.revisionId, t.id)],
);

/** Singleton: the newest accepted revision (what new revisions diff against) and the last applied one. */
export const deploymentHead = pgTable('deployment_head', {
  id: integer('id').primaryKey(),
  acceptedRevisionId: integer('accepted_revision_id'),
  appliedRevisionId: integer('applied_revision_id'),
});

/**
 * Background work, claimed with FOR UPDATE SKIP LOCKED. A job is enqueued in
 * the same transaction as the change that needs it; `locked_at` is a lease
 * renewed while working, so a crashed worker's job is picked up again.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: serial('id').primaryKey(),
    kind: text('kind').notNull(),
    revisionId: integer('revision_id'),
    /** What the job is about beyond its revision (a reconcile: the installation `ns/name`). */
    subject: text('subject'),
    status: text('status').notNull().default('queued'),
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    lockedBy: text('locked_by'),
    lockedAt: timestamp('locked_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('jobs_pending_idx').on(t.status, t.id)],
);

/** What Landscaper's automaticReconcile remembers per root installation (`ns/name`). */
export const reconcileMemory = pgTable('reconcile_memory', {
  installation: text('installation').primaryKey(),
  generation: integer('generation').notNull(),
  count: integer('count').notNull(),
  lastAt: timestamp('last_at', { withTimezone: true }).notNull(),
  onFailed: boolean('on_failed').notNull(),
});

/** Progress of each plan step of a revision being applied (resume skips done steps). */
export const applySteps = pgTable(
  'apply_steps',
  {
    revisionId: integer('revision_id').notNull(),
    stepIndex: integer('step_index').notNull(),
    key: text('key').notNull(),
    action: text('action').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.revisionId, t.stepIndex] })],
);

/** What is actually deployed, per instance. */
export const instanceStates = pgTable('instance_states', {
  key: text('key').primaryKey(),
  revisionId: integer('revision_id').notNull(),
  status: text('status').notNull(),
  error: text('error'),
  deployName: text('deploy_name').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Axebow tenants: a group of users that owns a set of namespaces. */
export const tenants = pgTable('tenants', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  /** Axebow's four selector rule sets (server/engine/axebow/stage.ts). */
  rules: jsonb('rules').$type<TenantRules>().notNull().default({}),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const tenantMembers = pgTable(
  'tenant_members',
  {
    tenantId: integer('tenant_id').notNull(),
    /** Lower-case user name (policy names match without regard to case). */
    user: text('user_name').notNull(),
    role: text('role').notNull(),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.user] })],
);

export const tenantInvitations = pgTable(
  'tenant_invitations',
  {
    id: serial('id').primaryKey(),
    tenantId: integer('tenant_id').notNull(),
    user: text('user_name').notNull(),
    role: text('role').notNull(),
    invitedBy: text('invited_by').notNull(),
    status: text('status').notNull().default('pending'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
  },
  (t) => [index('tenant_invitations_user_idx').on(t.user, t.status)],
);

/** Each namespace belongs to at most one tenant. */
export const tenantNamespaces = pgTable('tenant_namespaces', {
  namespace: text('namespace').primaryKey(),
  tenantId: integer('tenant_id').notNull(),
});

/**
 * Settings every process of a deployment must share, kept in the database
 * (the session-signing secret when NEXTAUTH_SECRET is not set), so that any
 * console process can serve any request.
 */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Axebow accounts of a tenant: group environments and cap their marks (server/services/estate.ts). */
export const tenantAccounts = pgTable(
  'tenant_accounts',
  {
    id: serial('id').primaryKey(),
    tenantId: integer('tenant_id').notNull(),
    name: text('name').notNull(),
    marks: jsonb('marks').$type<Marks>().notNull(),
    labels: jsonb('labels').$type<Record<string, string>>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('tenant_accounts_name_key').on(t.tenantId, t.name)],
);

/** A tenant's deployment environment: a slice of one Keelson cluster, with marks. */
export const tenantEnvironments = pgTable(
  'tenant_environments',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id').notNull(),
    name: text('name').notNull(),
    /** `system/<cluster>`. */
    cluster: text('cluster').notNull(),
    k8sNamespace: text('k8s_namespace'),
    marks: jsonb('marks').$type<Marks>().notNull(),
    labels: jsonb('labels').$type<Record<string, string>>().notNull(),
    meta: jsonb('meta').$type<unknown>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('tenant_environments_name_key').on(t.accountId, t.name)],
);

/** Tenants' registered resources; `claim` keeps ports and domains unique across tenants. */
export const tenantResources = pgTable(
  'tenant_resources',
  {
    id: serial('id').primaryKey(),
    tenantId: integer('tenant_id').notNull(),
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    spec: jsonb('spec').$type<Record<string, unknown>>().notNull(),
    /** AES-256-GCM sealed secret material (server/db/secret-box.ts). */
    sealed: text('sealed'),
    claim: text('claim'),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('tenant_resources_name_key').on(t.tenantId, t.kind, t.name), uniqueIndex('tenant_resources_claim_key').on(t.claim)],
);

/** API tokens (server/services/tokens.ts): only their SHA-256 hash is kept. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: serial('id').primaryKey(),
    userId: text('user_id').notNull(),
    userName: text('user_name').notNull(),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('api_tokens_hash_key').on(t.hash), index('api_tokens_user_idx').on(t.userId)],
);

/**
 * Console sign-ins. next-auth's session cookie is a JWT that carries the
 * row's id: a session counts only while its row is here and unexpired, so
 * signing out, a user's removal and an admin's revoke end it on the server
 * (deleting the row), not just in the browser that held the cookie. Writes
 * move the access version (migration 0019), so every console sharing the
 * database hears of them on its next request.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    /** Actor.id of the account signed in (`local:<name>`, `oidc:<issuer>#<subject>`). */
    userId: text('user_id').notNull(),
    /** What the sign-in proved, when it was a password: a digest of the users file's hash then. Another hash now (a password change) ends the session. */
    credential: text('credential'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** A sign-in lasts KEELSON_SESSION_HOURS from when it was made, however often its cookie is renewed. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

/** Links between services of a tenant: a client channel to a server channel (server/services/links.ts). */
export const serviceLinks = pgTable(
  'service_links',
  {
    id: serial('id').primaryKey(),
    tenantId: integer('tenant_id').notNull(),
    fromService: text('from_service').notNull(),
    fromChannel: text('from_channel').notNull(),
    toService: text('to_service').notNull(),
    toChannel: text('to_channel').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('service_links_ends_key').on(t.tenantId, t.fromService, t.fromChannel, t.toService, t.toChannel)],
);
