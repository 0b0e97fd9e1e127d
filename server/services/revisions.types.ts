/**
 * Requests and responses of the revision service (what people accept or
 * reject, and how its apply goes), shared by tRPC
 * (`server/api/routers/revisions.ts`), the REST API and the CLI.
 */
import { z } from 'zod';
import { ACTION_KINDS, type PlanStep, type RevisionPlan, type RevisionSection, type SectionDeploys } from '../engine/plan';
import type { QuotaCheck } from '../engine/plan/cost';
import type { Instance } from '../engine/state';
import { engineRecord, engineValue, instanceKey, name, note, yamlText } from './common.types';
import { REVISION_STATUSES } from '../engine/plan/revision-state';

// ---- requests

const revisionId = z.number().int().min(1);

/** Revisions per list answer at most (older ones: `before`, the oldest id shown). */
export const REVISIONS_PAGE_MAX = 100;
/**
 * Plan rows (actions, steps, changed claims, notes, held-back instances) a
 * revision's answer carries: a revision may change 20,000 instances, and
 * the browser gets the first page with `get` and the rest from `planPage`.
 */
export const PLAN_FIRST_PAGE = 200;
/** The most plan rows one `planPage` answer carries. */
export const PLAN_PAGE_MAX = 500;
/** Claims listed per step or held-back instance on the wire (a platform instance is used by thousands); `claimsTotal` says how many there are. */
export const CLAIMS_SHOWN = 50;
/** Instance keys listed per plan section on the wire (`keysTotal` says how many). */
export const SECTION_KEYS_SHOWN = 20;

export const listRevisionsInput = z.object({ limit: z.number().int().min(1).max(REVISIONS_PAGE_MAX).optional(), before: revisionId.optional() });
/**
 * One page of a revision's plan: its diff actions (what the console's plan
 * table lists, in section order) or its executable steps (in plan order),
 * optionally only one section, one action kind, or keys (and claims)
 * containing `text`.
 */
export const planPageInput = z.object({
  id: revisionId,
  of: z.enum(['actions', 'steps']),
  offset: z.number().int().min(0).max(100_000_000).optional(),
  limit: z.number().int().min(1).max(PLAN_PAGE_MAX).optional(),
  namespace: name.optional(),
  action: z.enum(ACTION_KINDS).optional(),
  text: z.string().max(200).optional(),
});
export const getRevisionInput = z.object({ id: revisionId });
/** Events after `afterId`, for live progress. */
export const revisionEventsInput = z.object({ id: revisionId, afterId: z.number().int().min(0).optional() });
/** With `wait`, waits a while for a revision being computed. */
export const byGenerationInput = z.object({ generation: z.number().int().min(1), wait: z.boolean().optional() });
/** One section (`namespace`), or every pending section the caller may decide. */
export const decideInput = z.object({ revisionId, namespace: name.optional(), decision: z.enum(['accept', 'reject']), comment: note });
export const rollbackInput = z.object({ revisionId });
export const revertInput = z.object({ revisionId });
export const instanceDiffInput = z.object({ revisionId, key: instanceKey });
/** What saving `text` would create (nothing is saved). */
export const previewInput = z.object({ text: yamlText });

export type ListRevisionsInput = z.infer<typeof listRevisionsInput>;
export type PlanPageInput = z.infer<typeof planPageInput>;
export type DecideInput = z.infer<typeof decideInput>;
export type InstanceDiffInput = z.infer<typeof instanceDiffInput>;
export type PreviewInput = z.infer<typeof previewInput>;

// ---- responses

export const revisionStatusOutput = z.enum(REVISION_STATUSES);
/** Actions per kind (create, update, delete, attach-claim, detach-claim). */
const actionCounts = engineValue<RevisionPlan['counts']>((v) => typeof v === 'object' && v !== null && Object.values(v).every((n) => typeof n === 'number'));
const sectionDeploys = engineRecord<SectionDeploys>({ targets: z.array(z.unknown()), chartRepositories: z.array(z.string()) });
const quotaCheck = engineRecord<QuotaCheck>({ cluster: z.string(), dimension: z.string(), ok: z.boolean() });

/**
 * Whose changes a revision carries: the generations after its base's, up to
 * its own (a change whose revision was never accepted rides along in the
 * next one), newest first, each with its author; `more` counts older ones
 * not listed. The revision's own author is only who made the last of them.
 */
export const carriesOutput = z.object({
  changes: z.array(z.object({ generation: z.number().int(), author: z.string() })),
  more: z.number().int(),
});

export const revisionSummaryOutput = z.object({
  id: z.number().int(),
  generation: z.number().int(),
  status: revisionStatusOutput,
  author: z.string(),
  createdAt: z.date(),
  appliedAt: z.date().nullable(),
  rollbackOf: z.number().int().nullable(),
  counts: actionCounts,
  costDelta: z.number(),
  currency: z.string(),
  acceptedBy: z.array(z.string()),
  sections: z.array(z.object({ namespace: z.string(), status: z.string() })),
  carries: carriesOutput,
});
export const listRevisionsOutput = z.array(revisionSummaryOutput);

export const sectionViewOutput = z.object({
  namespace: z.string(),
  status: z.string(),
  overMarks: z.boolean(),
  counts: actionCounts,
  decidedBy: z.string().nullable(),
  decidedAt: z.date().nullable(),
  comment: z.string().nullable(),
  /** What the section deploys beyond its policy namespace (then only a domain admin may accept it). */
  needsDomainAdmin: z.array(z.string()),
  /** `$(ref…)` its instances still hold, values only the cluster knows (then nobody may accept it). */
  unresolvedReferences: z.array(z.string()),
  /** Where and what the section deploys (null for revisions computed before this was recorded). */
  deploys: sectionDeploys.nullable(),
  /** Whether the asking user may decide this section now, and why not when not. */
  canDecide: z.boolean(),
  reason: z.string().optional(),
});

export const stepOutput = z.object({
  revisionId: z.number().int(),
  stepIndex: z.number().int(),
  key: z.string(),
  action: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  error: z.string().nullable(),
  updatedAt: z.date(),
});

export const jobOutput = z.object({
  id: z.number().int(),
  kind: z.string(),
  revisionId: z.number().int().nullable(),
  /** What the job is about beyond its revision (a reconcile: the installation). */
  subject: z.string().nullable(),
  status: z.string(),
  runAt: z.date(),
  lockedBy: z.string().nullable(),
  lockedAt: z.date().nullable(),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  createdAt: z.date(),
  finishedAt: z.date().nullable(),
});

export const eventOutput = z.object({
  id: z.number().int(),
  revisionId: z.number().int(),
  at: z.date(),
  kind: z.string(),
  actor: z.string().nullable(),
  section: z.string().nullable(),
  step: z.number().int().nullable(),
  message: z.string(),
});
export const revisionEventsOutput = z.array(eventOutput);

export const deploymentHeadOutput = z.object({ acceptedRevisionId: z.number().int().nullable(), appliedRevisionId: z.number().int().nullable() });

/** The stored plan: held-back instances with it. */
export type StoredPlan = RevisionPlan & { carryOver?: Instance[] };
/** A step as a reader gets it: secret-rendered parameters redacted, claims listed up to `CLAIMS_SHOWN` of `claimsTotal`. */
export type PlanStepView = PlanStep & { claimsTotal?: number };
/**
 * The plan as the reader may see it: secret-rendered parameters redacted,
 * and on the wire its long lists cut to their first page (`planTotals`
 * says how long they are; `planPage` pages through actions and steps).
 */
export type RevisionPlanView = Omit<StoredPlan, 'steps' | 'sections' | 'carryOver'> & {
  steps: PlanStepView[];
  sections: (RevisionSection & { keysTotal?: number })[];
  carryOver?: (Instance & { claimsTotal?: number })[];
};

/** How long the plan's lists are (what `plan` carries may be only their first page). */
export const planTotalsOutput = z.object({
  actions: z.number().int(),
  steps: z.number().int(),
  changedClaims: z.number().int(),
  notes: z.number().int(),
  carryOver: z.number().int(),
});

export const revisionOutput = z.object({
  /** The revision without its plan (that comes redacted, beside it). */
  revision: z.object({
    id: z.number().int(),
    generation: z.number().int(),
    baseRevisionId: z.number().int().nullable(),
    status: revisionStatusOutput,
    author: z.string(),
    createdAt: z.date(),
    decidedAt: z.date().nullable(),
    appliedAt: z.date().nullable(),
    rollbackOf: z.number().int().nullable(),
    counts: actionCounts,
    cost: z.unknown(),
    quota: z.unknown(),
  }),
  carries: carriesOutput,
  /** Long lists cut to their first page (`planTotals`); actions in section order, as `planPage` gives them. */
  plan: engineRecord<RevisionPlanView>({ actions: z.array(z.unknown()), steps: z.array(z.unknown()) }),
  planTotals: planTotalsOutput,
  sections: z.array(sectionViewOutput),
  /** Apply status of the steps on the plan's first page (of its steps, and of its actions' instances). */
  steps: z.array(stepOutput),
  /** Every step's apply status, counted: status → steps (none before the apply starts). */
  stepStatus: z.record(z.string(), z.number().int()),
  jobs: z.array(jobOutput),
  head: deploymentHeadOutput,
  /** Pending, but computed against a revision that is no longer the accepted one. */
  stale: z.boolean(),
  /** The generation reverting this rejected change restores (null: not offered). */
  revertTo: z.number().int().nullable(),
});

const pageFields = {
  id: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
  /** Rows matching the filter. */
  total: z.number().int(),
  /** Rows in the list, unfiltered. */
  all: z.number().int(),
  /** Where the next page starts; null on the last one. */
  nextOffset: z.number().int().nullable(),
};
/** An action of the diff, with the apply status of its instance's step (null: none, or not started). */
export const planActionRow = z.object({
  kind: z.enum(ACTION_KINDS),
  key: z.string(),
  namespace: z.string(),
  claim: z.string().optional(),
  notes: z.array(z.string()).optional(),
  status: z.string().nullable(),
});
export const planPageOutput = z.discriminatedUnion('of', [
  z.object({ of: z.literal('actions'), ...pageFields, actions: z.array(planActionRow) }),
  z.object({
    of: z.literal('steps'),
    ...pageFields,
    steps: z.array(engineRecord<PlanStepView & { status: string | null }>({ index: z.number().int(), key: z.string(), action: z.string(), status: z.string().nullable() })),
  }),
]);

export const byGenerationOutput = z.object({
  id: z.number().int().nullable(),
  /** The revision's status, or `computing` / `not computed`. */
  status: z.string(),
});

export const decideOutput = z.object({
  revisionId: z.number().int(),
  status: revisionStatusOutput,
  /** The sections decided by this call. */
  decided: z.array(z.string()),
  /** The revision is accepted and its apply job queued. */
  queued: z.boolean(),
});

/** A new generation restoring an earlier policy, and its revision. */
export const restoreOutput = z.object({ generation: z.number().int(), revisionId: z.number().int(), status: revisionStatusOutput });

/** One instance's parameters and discovery before and after, as YAML. */
export const instanceDiffOutput = z.object({ key: z.string(), before: z.string(), after: z.string() });

const totals = z.looseObject({ monthly: z.number() });

/** Rows each list of a preview carries: the editor's side panel lists a few and says how many more. */
export const PREVIEW_SHOWN = 5;

/** One changed instance of a preview: its parameters before and after as `instanceDiff` gives them (YAML, redacted alike). */
const previewInstance = z.object({
  key: z.string(),
  action: z.enum(['create', 'update', 'delete']),
  namespace: z.string(),
  /** What changed, as the plan says it (changed parameter paths on an update). */
  notes: z.array(z.string()),
  before: z.string(),
  after: z.string(),
});

/** What a claim resolves to: its status, the service and context it got (resolved), or its first error. */
const claimOutcome = z.object({ status: z.enum(['resolved', 'rejected', 'error']), to: z.string().nullable(), error: z.string().nullable() });
/** A claim whose outcome changes; null before: new (or nothing deployed), null after: removed. */
const outcomeChange = z.object({ namespace: z.string(), name: z.string(), kind: z.enum(['action', 'installation', 'deployment']).nullable(), before: claimOutcome.nullable(), after: claimOutcome.nullable() });

/** Who must accept a section of a preview's revision, and whether the asking user could (the revision page's rule). */
const previewSection = z.object({
  namespace: z.string(),
  counts: actionCounts,
  overMarks: z.boolean(),
  needsDomainAdmin: z.array(z.string()),
  unresolvedReferences: z.array(z.string()),
  /** Who may accept it, in words (a namespace admin of it or a domain admin; only a domain admin; nobody yet). */
  acceptedBy: z.string(),
  youMayAccept: z.boolean(),
  /** Why the asking user may not, when not. */
  reason: z.string().optional(),
});

export const previewOutput = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(false), message: z.string() }),
  z.object({
    ok: z.literal(true),
    generation: z.number().int(),
    baseRevisionId: z.number().int().nullable(),
    noop: z.boolean(),
    counts: actionCounts,
    sections: z.array(previewSection),
    cost: engineRecord<RevisionPlan['cost']['total']>({ before: totals, after: totals, delta: totals }),
    currency: z.string(),
    /** Marks the change would go over. */
    quota: z.array(quotaCheck),
    changedClaims: z.array(z.string()),
    claims: z.array(z.object({ namespace: z.string(), name: z.string(), status: z.enum(['resolved', 'rejected', 'error']), errors: z.array(z.string()) })),
    /** Instances the save creates, changes or removes (updates first), the first PREVIEW_SHOWN of `instancesTotal`. */
    instances: z.array(previewInstance),
    instancesTotal: z.number().int(),
    /** Claims whose outcome the save changes (status, or the service and context they resolve to), the first PREVIEW_SHOWN of `outcomesTotal`. */
    outcomes: z.array(outcomeChange),
    outcomesTotal: z.number().int(),
  }),
]);

export type RevisionSummary = z.infer<typeof revisionSummaryOutput>;
export type SectionView = z.infer<typeof sectionViewOutput>;
export type RevisionView = z.infer<typeof revisionOutput>;
export type PlanPage = z.infer<typeof planPageOutput>;
export type Carries = z.infer<typeof carriesOutput>;
export type PlanActionRow = z.infer<typeof planActionRow>;
export type ByGenerationResult = z.infer<typeof byGenerationOutput>;
export type DecideResult = z.infer<typeof decideOutput>;
export type RestoreResult = z.infer<typeof restoreOutput>;
export type InstanceDiff = z.infer<typeof instanceDiffOutput>;
export type Preview = z.infer<typeof previewOutput>;
