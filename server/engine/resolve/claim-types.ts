/**
 * What a claim's walk (./claim.ts) produces and carries: its limits, the
 * contributions and result of one claim, a level's decision and memoised
 * walk, the nodes and frames of the walk, and the failure that ends it.
 */
import type { Bundle } from '../model/kinds';
import type { DiagnosticCode } from '../diagnostics';
import type { SecretAudience } from '../state/types';
import type { InstanceNames, Level } from './level';
import type { ClaimOutcome, ClaimStatus, InstanceCode, Target } from '../state/types';

/** Deeper service chains are treated as cycles whose keys change each round. */
export const MAX_SERVICE_DEPTH = 32;
/**
 * Service levels one claim may walk. Depth alone does not bound the walk:
 * two components using the same next service at each of 30 levels make 2^30
 * paths, and a traced walk never replays (every decision is recorded), so
 * such a policy would run the process out of memory. Over budget, the
 * claim fails with the reason; the rest of the policy resolves.
 */
export const MAX_LEVELS_PER_CLAIM = 20_000;
/** Trace steps kept per claim; later steps are counted, not kept. */
export const MAX_TRACE_STEPS = 5_000;

/** What one claim says about one instance. */
export interface Contribution {
  key: string;
  /** The instance's names (the level computed them once; the merge would otherwise parse every key again). */
  names: InstanceNames;
  namespace: string;
  service: string;
  context: string;
  allocationKeys: string[];
  bundle: string;
  component: string;
  target: Target;
  /** Shared by the root and components of one level: never mutated after recording. */
  labels: Readonly<Record<string, string>>;
  code: InstanceCode | null;
  discovery: Record<string, unknown>;
  edges: string[];
  after: string[];
  depth: number;
  /** Owned by the memo and shared between claims: copy before changing (see `owned`). */
  shared: boolean;
  /** Rendered from templates that could read credentials, and who may see them whole. */
  sensitive?: SecretAudience;
}

export interface ClaimResult {
  key: string;
  outcome: ClaimOutcome;
  /** Read-only: a claim that only replayed a memoised walk shares the memo's map. */
  contributions: ReadonlyMap<string, Contribution>;
  /** `contributions` is a memo's map, shared with other claims. */
  shared?: boolean;
}

/** Where a failure sits in the policy: the object and field to open, and the position inside a template. */
export interface FailureSite {
  code: DiagnosticCode;
  object?: string;
  path?: (string | number)[];
  /** Line and column inside the template or expression at `path` (1-based). */
  line?: number;
  column?: number;
}

export class ClaimFailure extends Error {
  constructor(
    message: string,
    readonly status: Exclude<ClaimStatus, 'resolved'> = 'error',
    readonly site: FailureSite = { code: status === 'rejected' ? 'claim_rejected' : 'claim_error' },
    /** Time decided it, on a clock other than the claim's own (an Interface choice's). */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** `kafka.addresses[0].url` (a parameter path as the template language reports it) as path segments. */
export function paramPath(path: string | undefined): (string | number)[] {
  if (!path) return [];
  const out: (string | number)[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1]) out.push(m[1]);
    for (const i of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(i[1]));
  }
  return out;
}

export interface Node {
  depth: number;
  /** Namespace the service reference is relative to. */
  namespace: string;
  serviceRef: string;
  /**
   * The labels arriving at this level and the same labels coerced for
   * expressions (kept in step), built on demand: a level whose decision is
   * memoised never needs its own copies.
   */
  incoming: () => { labels: Record<string, string>; params: Record<string, unknown> };
  /**
   * Identity of the arriving labels' content (order included), in two parts,
   * for the decision memo. Each part is a string the index keeps (its hash is
   * computed once), so a lookup never hashes a long concatenation.
   */
  labelsKey: () => readonly [string, string];
  /** Where this level's components announce discovery values. */
  discovery: Record<string, unknown>;
  /** The service-component instance we arrived through (none at depth 0). */
  arrivalKey?: string;
  /** Bundle keys on the way here, for cycle detection. */
  path: string[];
  /** Identity of what `discovery` holds on arrival (the parent component's announcement). */
  inboundSig: string;
  /** Where the reference to this level's service is written (for a failure's diagnostic); depth 0 is the claim. */
  site?: () => FailureSite;
}

/**
 * Bookkeeping of one level being walked, for memoisation: what its subtree
 * recorded and announced, and which claim-specific inputs it read.
 */
export interface Frame {
  parent: Frame | null;
  user: boolean;
  claim: boolean;
  /** Set when the subtree merged into instances recorded outside it (a diamond): not reusable. */
  tainted: boolean;
  contributions: Contribution[];
  announced: [string, Record<string, unknown>][];
  rootKeys: string[];
  maxDepth: number;
}

/**
 * What one service level decides from the labels arriving at it: context,
 * bundle, labels after every change, allocation keys, target and instance
 * level. It depends on nothing else unless the user or the claim was read
 * (keys, rules, ACL), so it is memoised per (service, arriving labels) when
 * neither was.
 */
export interface LevelDecision {
  svc: { namespace: string; name: string };
  context: { name: string };
  bundle: { namespace: string; name: string; spec: Bundle };
  keys: string[];
  target: Target;
  level: Level;
  /** The labels after every change, interned at the level (memo keys use their identity). */
  labels: Record<string, string>;
  /** The same labels as walked (children copy them), and coerced for expressions; never changed. */
  live: Record<string, string>;
  params: Record<string, unknown>;
}

export const READ_USER = 1;
export const READ_CLAIM = 2;


/** A level's walk, reusable by any claim that reaches it with the same inputs. */
export interface MemoResult {
  depth: number;
  contributions: Contribution[];
  announced: [string, Record<string, unknown>][];
  rootKeys: string[];
  maxDepth: number;
  /** The contributions' keys, sorted: the outcome of every claim that replays this walk whole (set on first use). */
  sortedKeys?: string[];
  /**
   * The contributions by key, as a claim replaying this walk whole at its
   * root sees them (depths shifted by the walk's own depth): every such
   * claim's result shares it (set on first use).
   */
  byKey?: ReadonlyMap<string, Contribution>;
}
