/**
 * In-memory repositories for service tests and tools: the same contracts as
 * the drizzle ones, no database. Commits are serialised by JavaScript's
 * single thread. `memoryRepos` adds the revision and tenant stores.
 */
import { MemoryEstateRepository } from './memory-estate';
import { MemoryResourceRepository } from './memory-resources';
import { MemoryTokenRepository } from './memory-tokens';
import { MemoryLinkRepository } from './memory-links';
import { MemorySessionRepository } from './memory-sessions';
import {
  objectIdKey,
  planCommit,
  type CommitRequest,
  type CommitResult,
  type GenerationInfo,
  type ObjectFilter,
  type ObjectId,
  type PolicyRepo,
  type Repos,
  type ResolutionRepo,
  type StoredObject,
  type StoredResolution,
  type Registration,
  type UserProfile,
  type UserRecord,
  type UserRepo,
} from './types';
import { MemoryRevisionRepository } from './memory-revisions';
import { MemoryTenantRepository } from './memory-tenants';

interface Version extends StoredObject {
  superseded: number | null;
}

export class MemoryPolicyRepo implements PolicyRepo {
  private generation = 0;
  private readonly versions: Version[] = [];
  private readonly generations: GenerationInfo[] = [];

  async head(): Promise<number> {
    return this.generation;
  }

  private visible(generation?: number): Version[] {
    return this.versions.filter((v) =>
      generation === undefined
        ? v.superseded === null
        : v.generation <= generation && (v.superseded === null || v.superseded > generation),
    );
  }

  async listObjects(filter: ObjectFilter = {}): Promise<StoredObject[]> {
    return this.visible(filter.generation)
      .filter((v) => (!filter.kind || v.kind === filter.kind) && (!filter.namespace || v.namespace === filter.namespace) && (!filter.names || filter.names.includes(v.name)))
      .sort((a, b) => objectIdKey(a).localeCompare(objectIdKey(b)))
      .map(strip);
  }

  async getObject(id: ObjectId, generation?: number): Promise<StoredObject | undefined> {
    const v = this.visible(generation).find((x) => objectIdKey(x) === objectIdKey(id));
    return v && strip(v);
  }

  async listGenerations(opts: { limit?: number; before?: number; touching?: { kind: string; name: string } } = {}): Promise<GenerationInfo[]> {
    const t = opts.touching;
    return this.generations
      .filter((g) => opts.before === undefined || g.generation < opts.before)
      .filter((g) => !t || g.changes.some((c) => c.kind === t.kind && c.name === t.name))
      .sort((a, b) => b.generation - a.generation)
      .slice(0, opts.limit ?? 100);
  }

  async getGeneration(generation: number): Promise<GenerationInfo | undefined> {
    return this.generations.find((g) => g.generation === generation);
  }

  async commit(req: CommitRequest): Promise<CommitResult> {
    if (req.baseGeneration !== this.generation) return { status: 'conflict', head: this.generation };
    const live = new Map(this.visible().map((v) => [objectIdKey(v), v] as const));
    const plan = planCommit(req, live);
    if (plan.missing.length > 0) return { status: 'missing', missing: plan.missing };
    if (plan.changes.length === 0) return { status: 'unchanged', generation: this.generation };
    const generation = ++this.generation;
    for (const c of [...plan.writes, ...plan.deletes]) {
      const cur = live.get(objectIdKey(c));
      if (cur) cur.superseded = generation;
    }
    for (const w of plan.writes) this.versions.push({ ...w, generation, superseded: null });
    const info: GenerationInfo = {
      generation,
      author: req.author,
      message: req.message,
      createdAt: new Date(),
      changes: plan.changes,
      restoredFrom: req.restoredFrom ?? null,
    };
    this.generations.push(info);
    return { status: 'committed', generation: info };
  }
}

function strip(v: Version): StoredObject {
  const { superseded: _s, ...rest } = v;
  return rest;
}

export class MemoryUserRepo implements UserRepo {
  private readonly users = new Map<string, UserRecord>();
  async upsertUser(u: Omit<UserRecord, 'lastSignInAt'>): Promise<void> {
    this.users.set(u.id, { ...u, lastSignInAt: new Date() });
  }
  async getUser(id: string): Promise<UserRecord | undefined> {
    return this.users.get(id);
  }
  async listUsers(): Promise<UserRecord[]> {
    return [...this.users.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
  private readonly registrations = new Map<string, Registration>();
  async register(r: Omit<Registration, 'registeredAt'>): Promise<boolean> {
    if (this.registrations.has(r.userId)) return false;
    this.registrations.set(r.userId, { ...structuredClone(r), registeredAt: new Date() });
    return true;
  }
  async registration(userId: string): Promise<Registration | undefined> {
    const r = this.registrations.get(userId);
    return r && structuredClone(r);
  }
  async removeUser(userId: string): Promise<void> {
    this.users.delete(userId);
    this.registrations.delete(userId);
    for (const [k, p] of this.userProfiles) if (p.userId === userId) this.userProfiles.delete(k);
  }
  private readonly userProfiles = new Map<string, UserProfile>();
  async profiles(userId: string): Promise<UserProfile[]> {
    return [...this.userProfiles.values()].filter((p) => p.userId === userId).sort((a, b) => (a.provider < b.provider ? -1 : 1)).map((p) => ({ ...p }));
  }
  async profileBySubject(subject: string): Promise<UserProfile | undefined> {
    const p = [...this.userProfiles.values()].find((x) => x.subject === subject);
    return p && { ...p };
  }
  async addProfile(p: Omit<UserProfile, 'addedAt'>): Promise<boolean> {
    const k = `${p.userId}\u0000${p.provider}`;
    if (this.userProfiles.has(k) || [...this.userProfiles.values()].some((x) => x.subject === p.subject)) return false;
    this.userProfiles.set(k, { ...p, addedAt: new Date() });
    return true;
  }
  async removeProfile(userId: string, provider: string): Promise<boolean> {
    return this.userProfiles.delete(`${userId}\u0000${provider}`);
  }
}

export class MemoryResolutionRepo implements ResolutionRepo {
  private readonly rows = new Map<number, StoredResolution>();
  async get(generation: number): Promise<StoredResolution | undefined> {
    return this.rows.get(generation);
  }
  async has(generation: number): Promise<boolean> {
    return this.rows.has(generation);
  }
  async put(r: Omit<StoredResolution, 'createdAt'>): Promise<void> {
    if (!this.rows.has(r.generation)) this.rows.set(r.generation, { ...r, createdAt: new Date() });
  }
}

export function memoryRepos(): Repos {
  const policy = new MemoryPolicyRepo();
  return {
    policy,
    users: new MemoryUserRepo(),
    resolutions: new MemoryResolutionRepo(),
    revisions: new MemoryRevisionRepository(Date.now, async (touching, limit) => (await policy.listGenerations({ touching, limit })).map((g) => g.generation)),
    tenants: new MemoryTenantRepository(),
    estate: new MemoryEstateRepository(),
    resources: new MemoryResourceRepository(),
    tokens: new MemoryTokenRepository(),
    links: new MemoryLinkRepository(),
    sessions: new MemorySessionRepository(),
  };
}
