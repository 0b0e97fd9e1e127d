/**
 * The one place that says which revision status changes are allowed.
 *
 *   pending ──accept (last section)──► accepted ──start──► applying ──succeed──► applied
 *      │  └──accept (some sections)──► pending              │   ▲
 *      ├──reject──► rejected                                fail  retry
 *      └──supersede──► superseded (a newer generation)       ▼   │
 *                                                           failed
 *   no-op: an empty diff; recorded so history is complete, never applied.
 */
export const REVISION_STATUSES = ['pending', 'accepted', 'applying', 'applied', 'failed', 'rejected', 'superseded', 'no-op'] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

export const REVISION_EVENTS = ['accept-some', 'accept-all', 'reject', 'supersede', 'start', 'succeed', 'fail', 'retry'] as const;
export type RevisionEvent = (typeof REVISION_EVENTS)[number];

const ALLOWED: Partial<Record<RevisionStatus, Partial<Record<RevisionEvent, RevisionStatus>>>> = {
  pending: { 'accept-some': 'pending', 'accept-all': 'accepted', reject: 'rejected', supersede: 'superseded' },
  accepted: { start: 'applying' },
  // A worker that crashed mid-apply leaves `applying`; the next one starts again.
  applying: { start: 'applying', succeed: 'applied', fail: 'failed' },
  failed: { retry: 'applying' },
};

/** Why an event is refused in a status, in words for the person who tried. */
const REFUSALS: Partial<Record<RevisionStatus, string>> = {
  accepted: 'it has already been accepted',
  applying: 'it is being applied',
  applied: 'it has already been applied',
  failed: 'its apply failed (retry it, or roll back)',
  rejected: 'it was rejected',
  superseded: 'a newer policy change superseded it; look at the newest revision',
  'no-op': 'it changes nothing',
};

/** The statuses a revision is born with (an empty diff is recorded as `no-op`); every later status comes from `transition`. */
export const INITIAL_STATUSES = ['pending', 'no-op'] as const satisfies readonly RevisionStatus[];
export type InitialStatus = (typeof INITIAL_STATUSES)[number];

/** Events of the apply worker (the others happen when people decide, or a newer generation arrives). */
export type ApplyEvent = Extract<RevisionEvent, 'start' | 'retry' | 'succeed' | 'fail'>;

export type Transition = { ok: true; to: RevisionStatus } | { ok: false; reason: string };

/** Thrown where a refused transition is a programming error rather than a race to report. */
export class IllegalTransition extends Error {
  constructor(
    readonly from: RevisionStatus,
    readonly event: RevisionEvent,
    reason: string,
  ) {
    super(reason);
    this.name = 'IllegalTransition';
  }
}

export function transition(from: RevisionStatus, event: RevisionEvent): Transition {
  const to = ALLOWED[from]?.[event];
  if (to) return { ok: true, to };
  const why = REFUSALS[from] ?? `it is ${from}`;
  return { ok: false, reason: `Cannot ${describe(event)} this revision: ${why}.` };
}

/** Like `transition`, for a step that cannot be refused: an illegal transition throws. */
export function mustTransition(from: RevisionStatus, event: RevisionEvent): RevisionStatus {
  const t = transition(from, event);
  if (!t.ok) throw new IllegalTransition(from, event, t.reason);
  return t.to;
}

/**
 * Every status `event` moves a revision out of, and the one it moves it to:
 * what a guarded bulk update (`… set status = to where status in from`)
 * needs, taken from the table above so storage never names statuses itself.
 */
export function edgesOf(event: RevisionEvent): { from: RevisionStatus[]; to: RevisionStatus } {
  const from = REVISION_STATUSES.filter((s) => ALLOWED[s]?.[event]);
  const targets = new Set(from.map((s) => ALLOWED[s]![event]!));
  if (targets.size !== 1) throw new Error(`revision event ${event} has ${targets.size} targets; a bulk update needs exactly one`);
  return { from, to: [...targets][0]! };
}

function describe(e: RevisionEvent): string {
  switch (e) {
    case 'accept-some':
    case 'accept-all':
      return 'accept';
    case 'reject':
      return 'reject';
    case 'supersede':
      return 'supersede';
    case 'start':
      return 'apply';
    case 'succeed':
    case 'fail':
      return 'finish applying';
    case 'retry':
      return 'retry';
  }
}

export function isTerminal(s: RevisionStatus): boolean {
  return REVISION_EVENTS.every((e) => !ALLOWED[s]?.[e]);
}
