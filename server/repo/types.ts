/**
 * The data-access seam. Services speak these interfaces in domain terms and
 * never storage: every repository has a drizzle implementation
 * (PostgreSQL/PGlite: `drizzle.ts`, `revisions.ts`, `tenants.ts`) and an
 * in-memory one (`memory.ts`, `memory-revisions.ts`, `memory-tenants.ts`),
 * held to one contract by the same tests. `drizzleRepos` and `memoryRepos`
 * give a whole set.
 */
import type { RevisionRepository } from './revisions.types';
import type { EstateRepository } from './estate.types';
import type { ResourceRepository } from './resources.types';
import type { TokenRepository } from './tokens.types';
import type { LinkRepository } from './links.types';
import type { SessionRepository } from './sessions.types';
import type { TenantRepository } from './tenants.types';

export type * from './revisions.types';
export type * from './tenants.types';
export { ROLE_RANK, TENANT_ROLES } from './tenants.types';

export interface ObjectId {
  kind: string;
  namespace: string;
  name: string;
}

export interface StoredObject extends ObjectId {
  text: string;
  spec: unknown;
  /** Generation that wrote this version. */
  generation: number;
}

export interface ObjectWrite extends ObjectId {
  text: string;
  spec: unknown;
}

export type ChangeOp = 'create' | 'update' | 'delete';
export interface ObjectChange extends ObjectId {
  op: ChangeOp;
}

export interface GenerationInfo {
  generation: number;
  author: string;
  message: string;
  createdAt: Date;
  changes: ObjectChange[];
  restoredFrom: number | null;
}

export interface CommitRequest {
  /** The generation the author saw; the commit fails if the head moved. */
  baseGeneration: number;
  author: string;
  message: string;
  upserts: ObjectWrite[];
  deletes: ObjectId[];
  restoredFrom?: number;
}

export type CommitResult =
  | { status: 'committed'; generation: GenerationInfo }
  | { status: 'unchanged'; generation: number }
  | { status: 'conflict'; head: number }
  | { status: 'missing'; missing: ObjectId[] };

export interface ObjectFilter {
  /** Defaults to the newest generation. */
  generation?: number;
  kind?: string;
  namespace?: string;
  /** Only objects of these names (a few: checking whether names are taken). */
  names?: readonly string[];
}

export interface PolicyRepo {
  head(): Promise<number>;
  listObjects(filter?: ObjectFilter): Promise<StoredObject[]>;
  getObject(id: ObjectId, generation?: number): Promise<StoredObject | undefined>;
  /** Newest first; `touching`: only generations that changed an object of that kind and name (a service's history). */
  listGenerations(opts?: { limit?: number; before?: number; touching?: { kind: string; name: string } }): Promise<GenerationInfo[]>;
  getGeneration(generation: number): Promise<GenerationInfo | undefined>;
  /**
   * Writes upserts and deletes as one new generation, atomically. Objects
   * whose text and spec are unchanged are not rewritten; a write that
   * changes nothing returns `unchanged` and creates no generation.
   */
  commit(req: CommitRequest): Promise<CommitResult>;
}

export interface UserRecord {
  id: string;
  name: string;
  email: string | null;
  provider: string;
  labels: Record<string, string>;
  lastSignInAt: Date;
}

/** A user's Axebow registration: the profile they gave. */
export interface Registration {
  userId: string;
  name: string;
  surname: string;
  /** discoveryMethod, companyName, companyRole when given. */
  details: Record<string, string>;
  registeredAt: Date;
}

export interface UserRepo {
  upsertUser(u: Omit<UserRecord, 'lastSignInAt'>): Promise<void>;
  getUser(id: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  /** False when the user is registered already. */
  register(r: Omit<Registration, 'registeredAt'>): Promise<boolean>;
  registration(userId: string): Promise<Registration | undefined>;
  /** Forget the user's record, registration and profiles. */
  removeUser(userId: string): Promise<void>;
  profiles(userId: string): Promise<UserProfile[]>;
  /** The profile of a provider identity, whoever it belongs to. */
  profileBySubject(subject: string): Promise<UserProfile | undefined>;
  /** False when the user has a profile for that provider, or the identity is linked already. */
  addProfile(p: Omit<UserProfile, 'addedAt'>): Promise<boolean>;
  /** False when there was none. */
  removeProfile(userId: string, provider: string): Promise<boolean>;
}

/** An OpenID provider identity linked to a user (Axebow profiles). */
export interface UserProfile {
  userId: string;
  provider: string;
  subject: string;
  email: string | null;
  addedAt: Date;
}

export interface ResolutionSummary {
  generation: number;
  createdAt: Date;
  durationMs: number;
  claimsTotal: number;
  claimsResolved: number;
  claimsRejected: number;
  claimsError: number;
  instances: number;
}

export interface StoredResolution extends ResolutionSummary {
  state: unknown;
}

export interface ResolutionRepo {
  get(generation: number): Promise<StoredResolution | undefined>;
  /** Whether the generation's resolution is stored (without reading it). */
  has(generation: number): Promise<boolean>;
  /** Idempotent: a second put for the same generation keeps the first. */
  put(r: Omit<StoredResolution, 'createdAt'>): Promise<void>;
}

export interface Repos {
  policy: PolicyRepo;
  users: UserRepo;
  resolutions: ResolutionRepo;
  revisions: RevisionRepository;
  tenants: TenantRepository;
  /** Tenants' accounts and deployment environments. */
  estate: EstateRepository;
  /** Tenants' registered resources (ports, domains, certificates, secrets, volumes). */
  resources: ResourceRepository;
  /** API tokens (hashes only). */
  tokens: TokenRepository;
  /** Links between services of tenants. */
  links: LinkRepository;
  /** Console sessions (one per sign-in). */
  sessions: SessionRepository;
}

export function sameObject(a: ObjectId, b: ObjectId): boolean {
  return a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}

export function objectIdKey(o: ObjectId): string {
  return `${o.kind}/${o.namespace}/${o.name}`;
}

/** Structural equality for JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}

/** Decide which writes really change something, given the live versions. */
export function planCommit(
  req: CommitRequest,
  live: ReadonlyMap<string, StoredObject>,
): { writes: ObjectWrite[]; deletes: ObjectId[]; changes: ObjectChange[]; missing: ObjectId[] } {
  const writes: ObjectWrite[] = [];
  const changes: ObjectChange[] = [];
  for (const u of req.upserts) {
    const cur = live.get(objectIdKey(u));
    if (cur && cur.text === u.text && jsonEqual(cur.spec, u.spec)) continue;
    writes.push(u);
    changes.push({ op: cur ? 'update' : 'create', kind: u.kind, namespace: u.namespace, name: u.name });
  }
  const deletes: ObjectId[] = [];
  const missing: ObjectId[] = [];
  for (const d of req.deletes) {
    if (!live.has(objectIdKey(d))) missing.push(d);
    else {
      deletes.push(d);
      changes.push({ op: 'delete', kind: d.kind, namespace: d.namespace, name: d.name });
    }
  }
  return { writes, deletes, changes, missing };
}
