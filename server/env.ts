/**
 * Configuration: the only reader of process.env. Validated once, at start;
 * a bad value stops the server with a message naming the variable.
 * Every variable is documented in README.md ("Configuration").
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hostname } from 'node:os';
import { z } from 'zod';
import { parseQuantity } from './engine/model/quantity';

const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
/** A value checked by one of the parsers below, its error naming what is wrong. */
const parsed = <T>(parse: (text: string) => { ok: true; value: T } | { ok: false; error: string }) =>
  z.string().transform((text, ctx): T => {
    const r = parse(text);
    if (r.ok) return r.value;
    ctx.addIssue({ code: 'custom', message: r.error });
    return z.NEVER;
  });

// ---------------------------------------------------------------- platform settings (GET /platform)

/** Resource consumption limits (Axebow's #Limits), written as marks are: vCPU in cores, memory and storage as quantities, counts as counts. */
export type Limits = Record<string, number | string>;

/** The dimensions a limit may name: those marks take (estate.types.ts). */
export const LIMIT_DIMENSIONS = ['vcpu', 'memory', 'storage', 'instances', 'services'] as const;

/**
 * What an instance configured with nothing says: Axebow's one public quota
 * (a freemium user gets 2 vCPU and 4 GB of memory, reference/axebow.md),
 * Kubernetes' NodePort range for ports, and the host the console serves.
 */
export const PLATFORM_DEFAULTS = {
  freemiumLimits: 'vcpu=2,memory=4Gi',
  portRange: '30000-32767',
} as const;

/**
 * `vcpu=2,memory=4Gi`: each dimension once, each value a quantity (vCPU in
 * cores, memory and storage in bytes) or, for instances and services, a
 * whole number. Plain numbers answer as numbers, the rest as written.
 */
export function parseLimits(text: string): { ok: true; value: Limits } | { ok: false; error: string } {
  const value: Limits = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*(\S+)$/.exec(part);
    if (!m) return { ok: false, error: `"${part}" is not dimension=value (e.g. vcpu=2,memory=4Gi)` };
    const [, dim, raw] = m as unknown as [string, string, string];
    if (!(LIMIT_DIMENSIONS as readonly string[]).includes(dim)) return { ok: false, error: `"${dim}" is not a dimension (${LIMIT_DIMENSIONS.join(', ')})` };
    if (Object.hasOwn(value, dim)) return { ok: false, error: `${dim} is given twice` };
    const counted = dim === 'instances' || dim === 'services';
    if (counted ? !/^\d+$/.test(raw) : !parseQuantity(raw, dim === 'vcpu' ? 'milli' : 'unit').ok) {
      return { ok: false, error: `${dim}=${raw}: ${counted ? 'must be a whole number' : 'must be a quantity such as 2, 500m or 4Gi'}` };
    }
    value[dim] = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  }
  return { ok: true, value };
}

/** `first-last`, both ports, first ≤ last. */
export function parsePortRange(text: string): { ok: true; value: [number, number] } | { ok: false; error: string } {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const first = Number(m?.[1]);
  const last = Number(m?.[2]);
  if (!m || first < 1 || last > 65535 || first > last) return { ok: false, error: 'must be first-last, two ports (1-65535) with first ≤ last, e.g. 30000-32767' };
  return { ok: true, value: [first, last] };
}


const envSchema = z
  .object({
    PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65535).default(3000)),
    KEELSON_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.keelson')),
    DATABASE_URL: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
        .optional(),
    ),
    KEELSON_USERS_FILE: optionalString,
    // Production starts empty unless asked for the demo (see loadEnv).
    KEELSON_SEED: z.preprocess(emptyAsUndefined, z.enum(['demo', 'none']).optional()),
    NODE_ENV: optionalString,
    KEELSON_SESSION_HOURS: z.preprocess(emptyAsUndefined, z.coerce.number().min(0.05).max(24 * 30).default(8)),
    KEELSON_FREE_NAMESPACES: z.preprocess(emptyAsUndefined, z.string().default('')),
    NEXTAUTH_SECRET: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
    NEXTAUTH_URL: z.preprocess(emptyAsUndefined, z.url('must be a URL such as http://localhost:3000').optional()),
    KEELSON_OIDC_ISSUER: z.preprocess(emptyAsUndefined, z.url('must be the issuer URL').optional()),
    KEELSON_OIDC_CLIENT_ID: optionalString,
    KEELSON_OIDC_CLIENT_SECRET: optionalString,
    KEELSON_OIDC_NAME: z.preprocess(emptyAsUndefined, z.string().default('Single sign-on')),
    KEELSON_OIDC_LABEL_CLAIMS: z.preprocess(emptyAsUndefined, z.string().default('groups')),
    KEELSON_DOMAIN_ADMINS: z.preprocess(emptyAsUndefined, z.string().default('')),
    KEELSON_WORKER: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).default('on')),
    KEELSON_TRUSTED_PROXIES: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(10).default(0)),
    KEELSON_RESOLVER_THREADS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(16).default(2)),
    KEELSON_RESOLVE_TIMEOUT_S: z.preprocess(emptyAsUndefined, z.coerce.number().min(0.05).max(3600).default(60)),
    KEELSON_READ_TIMEOUT_S: z.preprocess(emptyAsUndefined, z.coerce.number().min(0.05).max(3600).default(20)),
    KEELSON_UNIT_TIMEOUT_S: z.preprocess(emptyAsUndefined, z.coerce.number().min(0.05).max(3600).default(5)),
    KEELSON_RESOLVE_MEMORY_MB: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(64).max(65536).default(2048)),
    KEELSON_DM_WARM: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).default('on')),
    KEELSON_GITOPS_DIR: optionalString,
    KEELSON_GITOPS_REMOTE: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/, error: 'must be an http or https URL of a git repository' }).optional()),
    KEELSON_DM_ALLOW_HOSTS: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .regex(/^\s*[\w.-]+(:\d+)?\s*(,\s*[\w.-]+(:\d+)?\s*)*$/, 'must be a comma-separated list of host or host:port')
        .default(''),
    ),
    KEELSON_DM_REGISTRY: z.preprocess(emptyAsUndefined, z.url('must be the registry base URL').optional()),
    // Read again by each resolver thread's Python sandbox (server/dm-python); checked here so a typo stops the start.
    KEELSON_DM_PYTHON: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).default('on')),
    KEELSON_DM_PYTHON_TIMEOUT_S: z.preprocess(emptyAsUndefined, z.coerce.number().min(0.1).max(600).optional()),
    KEELSON_FREEMIUM_LIMITS: z.preprocess(emptyAsUndefined, parsed(parseLimits).prefault(PLATFORM_DEFAULTS.freemiumLimits)),
    KEELSON_FREEMIUM_ADVANCED_LIMITS: z.preprocess(emptyAsUndefined, parsed(parseLimits).optional()),
    KEELSON_PORT_RANGE: z.preprocess(emptyAsUndefined, parsed(parsePortRange).prefault(PLATFORM_DEFAULTS.portRange)),
    KEELSON_REFERENCE_DOMAIN: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .max(253)
        .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/i, 'must be a domain name such as apps.example.com')
        .optional(),
    ),
    KEELSON_SECRET_KEY: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .refine((s) => Buffer.from(s, 'base64').length === 32, { message: 'must be 32 bytes in base64 (openssl rand -base64 32)' })
        .optional(),
    ),
  })
  .superRefine((e, ctx) => {
    const oidc = [e.KEELSON_OIDC_ISSUER, e.KEELSON_OIDC_CLIENT_ID, e.KEELSON_OIDC_CLIENT_SECRET];
    const set = oidc.filter(Boolean).length;
    if (set !== 0 && set !== 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEELSON_OIDC_ISSUER'],
        message: 'set all of KEELSON_OIDC_ISSUER, KEELSON_OIDC_CLIENT_ID and KEELSON_OIDC_CLIENT_SECRET, or none',
      });
    }
    if (e.KEELSON_USERS_FILE && !existsSync(e.KEELSON_USERS_FILE)) {
      ctx.addIssue({ code: 'custom', path: ['KEELSON_USERS_FILE'], message: `file not found: ${e.KEELSON_USERS_FILE}` });
    }
  });

export interface Env {
  port: number;
  dataDir: string;
  databaseUrl?: string;
  usersFile?: string;
  seed: 'demo' | 'none';
  authSecret: string;
  /** AES-256-GCM key for resource secrets at rest (KEELSON_SECRET_KEY, else generated under the data folder). */
  secretKey: Buffer;
  /** The data folder's file `secretKey` was read from (or made in); undefined when KEELSON_SECRET_KEY gives it. */
  secretKeyFile?: string;
  authUrl: string;
  oidc?: { issuer: string; clientId: string; clientSecret: string; name: string; labelClaims: string[] };
  domainAdmins: string[];
  /** Demo users (Aptomi's example users file) sign in: never in production unless the demo was asked for. */
  demoUsers: boolean;
  /** How long a sign-in lasts. */
  sessionSeconds: number;
  /** Namespace patterns (`*` wildcards) anyone may give to their tenant while nobody uses them. */
  freeNamespaces: string[];
  worker: boolean;
  /** Where resolutions run: worker threads (0: the request thread), and each resolution's time and memory budget. */
  resolver: { threads: number; timeoutMs: number; memoryMb: number; admissionTimeoutMs?: number; unitMs?: number; warmSandbox?: boolean; warmThreads?: boolean };
  /** Deployment Manager templates referenced by URL: the hosts they may be fetched from (none by default) and the registry base. */
  dmTemplates: { allowHosts: string[]; registry?: string };
  /** What GET /platform tells clients of the platform (Axebow's #PlatformInfo). */
  platform: PlatformSettings;
  /** The git repository the GitOps actuator writes. */
  /** The GitOps repository: local (the default), or this process's scratch clone of `gitopsRemote`. */
  gitopsDir: string;
  /** A remote repository every apply worker pushes to (KEELSON_GITOPS_REMOTE). */
  gitopsRemote?: string;
}

export interface PlatformSettings {
  freemiumLimits: Limits;
  freemiumAdvancedLimits: Limits;
  portRange: [number, number];
  referenceDomain: string;
}

export class EnvError extends Error {}

/**
 * Parse and check configuration. Creates the data folder and, when
 * NEXTAUTH_SECRET is unset, a secret kept in it so sessions survive restarts.
 */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const r = envSchema.safeParse(source);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join('.') || 'environment'}: ${i.message}`);
    throw new EnvError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = r.data;
  const production = e.NODE_ENV === 'production';
  const seed = e.KEELSON_SEED ?? (production ? 'none' : 'demo');
  const dataDir = resolve(e.KEELSON_DATA_DIR);
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw new EnvError(`Invalid configuration:\n  KEELSON_DATA_DIR: cannot create ${dataDir}: ${(err as Error).message}`);
  }
  return {
    port: e.PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    usersFile: e.KEELSON_USERS_FILE ? resolve(e.KEELSON_USERS_FILE) : undefined,
    seed,
    demoUsers: !e.KEELSON_USERS_FILE && (!production || seed === 'demo'),
    sessionSeconds: Math.round(e.KEELSON_SESSION_HOURS * 3600),
    freeNamespaces: e.KEELSON_FREE_NAMESPACES.split(',').map((s) => s.trim()).filter(Boolean),
    authSecret: e.NEXTAUTH_SECRET ?? persistentSecret(dataDir),
    secretKey: e.KEELSON_SECRET_KEY ? Buffer.from(e.KEELSON_SECRET_KEY, 'base64') : persistentKey(dataDir),
    ...(e.KEELSON_SECRET_KEY ? {} : { secretKeyFile: secretKeyFile(dataDir) }),
    authUrl: e.NEXTAUTH_URL ?? `http://localhost:${e.PORT}`,
    oidc:
      e.KEELSON_OIDC_ISSUER && e.KEELSON_OIDC_CLIENT_ID && e.KEELSON_OIDC_CLIENT_SECRET
        ? {
            issuer: e.KEELSON_OIDC_ISSUER.replace(/\/$/, ''),
            clientId: e.KEELSON_OIDC_CLIENT_ID,
            clientSecret: e.KEELSON_OIDC_CLIENT_SECRET,
            name: e.KEELSON_OIDC_NAME,
            labelClaims: e.KEELSON_OIDC_LABEL_CLAIMS.split(',').map((s) => s.trim()).filter(Boolean),
          }
        : undefined,
    domainAdmins: e.KEELSON_DOMAIN_ADMINS.split(',').map((s) => s.trim()).filter(Boolean),
    worker: e.KEELSON_WORKER === 'on',
    resolver: {
      threads: e.KEELSON_RESOLVER_THREADS,
      timeoutMs: Math.round(e.KEELSON_RESOLVE_TIMEOUT_S * 1000),
      admissionTimeoutMs: Math.round(e.KEELSON_READ_TIMEOUT_S * 1000),
      unitMs: Math.round(e.KEELSON_UNIT_TIMEOUT_S * 1000),
      memoryMb: e.KEELSON_RESOLVE_MEMORY_MB,
      warmSandbox: e.KEELSON_DM_WARM === 'on',
      // A server's threads start with it, not at the first preview.
      warmThreads: true,
    },
    dmTemplates: {
      allowHosts: e.KEELSON_DM_ALLOW_HOSTS.split(',').map((s) => s.trim()).filter(Boolean),
      ...(e.KEELSON_DM_REGISTRY ? { registry: e.KEELSON_DM_REGISTRY } : {}),
    },
    // A runtime folder, not a build input: keep Turbopack's file tracer out of it.
    // With a remote, each process keeps a scratch clone of its own (several workers may share a data folder).
    gitopsDir: resolve(
      /* turbopackIgnore: true */ e.KEELSON_GITOPS_DIR ??
        (e.KEELSON_GITOPS_REMOTE ? join(/* turbopackIgnore: true */ dataDir, 'gitops-clones', `${hostname()}-${process.pid}`) : join(/* turbopackIgnore: true */ dataDir, 'gitops')),
    ),
    ...(e.KEELSON_GITOPS_REMOTE ? { gitopsRemote: e.KEELSON_GITOPS_REMOTE } : {}),
    platform: {
      freemiumLimits: e.KEELSON_FREEMIUM_LIMITS,
      // Nothing public says what "advanced" adds: unset, it is the basic freemium's.
      freemiumAdvancedLimits: e.KEELSON_FREEMIUM_ADVANCED_LIMITS ?? e.KEELSON_FREEMIUM_LIMITS,
      portRange: e.KEELSON_PORT_RANGE,
      referenceDomain: (e.KEELSON_REFERENCE_DOMAIN ?? new URL(e.NEXTAUTH_URL ?? `http://localhost:${e.PORT}`).hostname).toLowerCase(),
    },
  };
}

function persistentSecret(dataDir: string): string {
  const file = join(dataDir, 'auth-secret');
  if (existsSync(file)) {
    const s = readFileSync(file, 'utf8').trim();
    if (s.length >= 16) return s;
  }
  const s = randomBytes(32).toString('base64url');
  writeFileSync(file, s + '\n', { mode: 0o600 });
  return s;
}

const secretKeyFile = (dataDir: string) => join(dataDir, 'secret-key');

/** A 32-byte key kept beside the embedded database (one process owns that folder). */
function persistentKey(dataDir: string): Buffer {
  const file = secretKeyFile(dataDir);
  if (existsSync(file)) {
    const k = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (k.length === 32) return k;
  }
  const k = randomBytes(32);
  writeFileSync(file, k.toString('base64') + '\n', { mode: 0o600 });
  return k;
}

let cached: Env | undefined;
/** The process-wide configuration (validated on first use). */
export function env(): Env {
  cached ??= loadEnv();
  return cached;
}
