/**
 * The time one unit of a resolution may take, on the host's clock: an
 * Aptomi claim, a Landscaper root installation (with its
 * subinstallations), a Capact action or Interface choice, a service's
 * placement by its tenant's selector rules. Each language
 * has step and size budgets per run; this bounds a unit whose runs are each
 * within them but many, or slow per step, so that a hostile policy ends as
 * that unit's error ("… ran out of its time") rather than as a resolution
 * the host has to kill, with every other unit's answer lost with it.
 *
 * Time depends on load; steps and sizes do not. A unit that ran out of
 * its time says so (`ClaimOutcome.timedOut`) and nothing keeps that
 * outcome: the session's next update resolves it again, and a revision
 * holds back what it ran (plan/timed-out.ts) rather than removing it.
 *
 * The engine reads no clock (purity.test.ts): the host that resolves (a
 * resolver thread, server/resolver/session.ts) grants one, as it grants
 * Deployment Manager's templates theirs (dm/index.ts, `useTemplateClock`).
 * Without one (the CLI, most tests) only the languages' own budgets apply.
 */
import { deadlineIn, type Deadline } from './lang/budget';

let host: { now: () => number; ms: number } | undefined;

/** Grant (or, with `undefined`, withdraw) the clock and each unit's allowance in milliseconds. */
export function useEvaluationClock(now: (() => number) | undefined, ms = 0): void {
  host = now ? { now, ms } : undefined;
}

/** A deadline for one unit starting now, or none when the host granted no clock. */
export function unitDeadline(): Deadline | undefined {
  return host ? deadlineIn(host.ms, host.now) : undefined;
}

/** Whether `deadline` has passed (never, without one). */
export function pastDeadline(deadline: Deadline | undefined): boolean {
  return deadline !== undefined && deadline.now() > deadline.at;
}
