/**
 * How revisions are shown: the parameter diff's YAML, who accepts a section
 * in words, changed claim outcomes, actions in section order, and claim
 * lists cut for the wire. Shared by the revision page and the preview.
 */
import { stringify } from 'yaml';
import type { PlanAction, RevisionPlan } from '../engine/plan';
import type { DesiredState } from '../engine/resolve';
import { instanceKey, type ClaimOutcome, type Instance } from '../engine/state';
import type { StepRow } from '../repo/types';
import { CLAIMS_SHOWN } from './revisions.types';

/** An instance's rendered parameters and discovery as YAML: one side of the parameter diff (revision page and preview alike). */
export function parametersYaml(i: Instance | undefined): string {
  return i ? stringify({ code: i.code, discovery: i.discovery, target: i.target, claims: i.claims }, { lineWidth: 0 }) : '';
}

/**
 * Who may accept a section, in words: the rule `mayDecide` applies to a
 * stored revision's sections, said for everyone rather than for one user.
 */
export function acceptedBy(s: Pick<RevisionPlan['sections'][number], 'namespace' | 'overMarks' | 'needsDomainAdmin' | 'unresolvedReferences'>): string {
  if (s.unresolvedReferences.length > 0) return 'nobody until its references are resolved';
  if (s.overMarks) return 'a domain admin (it goes over a cluster\'s marks)';
  if (s.needsDomainAdmin.length > 0) return `a domain admin (it reaches past namespace ${s.namespace})`;
  return `a namespace admin of ${s.namespace}, or a domain admin`;
}

type ClaimOutcomeView = { status: ClaimOutcome['status']; to: string | null; error: string | null };

/**
 * Claims whose outcome differs between what is deployed and the draft:
 * status, the service and context a resolved claim got, the first error of
 * a failed one; new and removed claims too. Sorted by namespace and name.
 */
export function changedOutcomes(before: DesiredState | null, after: DesiredState): { namespace: string; name: string; kind: NonNullable<ClaimOutcome['kind']> | null; before: ClaimOutcomeView | null; after: ClaimOutcomeView | null }[] {
  const view = (c: ClaimOutcome | undefined): ClaimOutcomeView | null =>
    c ? { status: c.status, to: c.status === 'resolved' && c.instance ? instanceKey.displayName(c.instance) : null, error: c.status === 'resolved' ? null : (c.errors[0] ?? null) } : null;
  const id = (c: ClaimOutcome) => `${c.kind ?? 'claim'}|${c.namespace}/${c.name}`;
  const was = new Map((before?.claims ?? []).map((c) => [id(c), c]));
  const will = new Map(after.claims.map((c) => [id(c), c]));
  const out = [];
  for (const k of new Set([...was.keys(), ...will.keys()])) {
    const b = view(was.get(k));
    const a = view(will.get(k));
    if (b && a && b.status === a.status && b.to === a.to && b.error === a.error) continue;
    const c = (will.get(k) ?? was.get(k))!;
    out.push({ namespace: c.namespace, name: c.name, kind: c.kind ?? null, before: b, after: a });
  }
  return out.sort((x, y) => (x.namespace < y.namespace ? -1 : x.namespace > y.namespace ? 1 : x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/** Actions grouped by section (namespace, sorted), each section's in plan order (by instance key): how the console lists them. */
export function sectionOrder(actions: PlanAction[]): PlanAction[] {
  return actions
    .map((a, i) => ({ a, i }))
    .sort((x, y) => (x.a.namespace < y.a.namespace ? -1 : x.a.namespace > y.a.namespace ? 1 : x.i - y.i))
    .map((x) => x.a);
}

/** A step's status by `key|action` (an action's instance step). */
export function statusByKey(rows: StepRow[]): Map<string, string> {
  return new Map(rows.map((r) => [`${r.key}|${r.action}`, r.status]));
}

/** Claims cut to the first CLAIMS_SHOWN on the wire: a platform instance is used by thousands of claims. */
export function capClaims<T extends { claims: string[] }>(x: T): T & { claimsTotal: number } {
  return { ...x, claims: x.claims.length > CLAIMS_SHOWN ? x.claims.slice(0, CLAIMS_SHOWN) : x.claims, claimsTotal: x.claims.length };
}
