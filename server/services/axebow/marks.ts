/**
 * Axebow's admission by marks: where a service changes, is created or is
 * accepted, the environment its claim names is weighed — its marks against
 * what the tenant's services use there in the state being admitted; 422
 * MarkExceeded when over.
 */
import type { Claim } from '../../engine/model/kinds';
import { millisToVcpu } from '../../engine/plan';
import type { DesiredState } from '../../engine/state';
import type { EnvironmentRow } from '../../repo/estate.types';
import { AppError } from '../../errors';
import { environmentOfLabels, type Usage } from '../estate';
import { toPolicyInput } from '../resolution';
import type { Axebow } from './context';

export type Admission = { environment: string; ok: boolean; usage: Usage; over: { dimension: string; mark: number; usage: number }[] };

/** The tenant's environment a claim's `target` label points at (none: the policy chose the cluster). */
export async function environmentOfClaim(cx: Axebow, t: { id: number }, labels: Record<string, string> | null | undefined) {
  return environmentOfLabels(await cx.estate.environmentsOf(t.id), labels);
}

/**
 * The marks check of one claim. `usage`: what the tenant uses on an
 * environment in the state being admitted (a state at hand, or measured on
 * the resolver).
 */
export async function assertWithinMarks(
  cx: Axebow,
  t: { id: number },
  service: string,
  labels: Record<string, string> | null | undefined,
  usage: DesiredState | ((env: EnvironmentRow) => Promise<Usage>),
  when: string,
  /** The claim (`ns/name`) being admitted: counted in the environment its labels here name. */
  claimRef?: string,
): Promise<void> {
  const placed = await environmentOfClaim(cx, t, labels);
  if (!placed) return;
  const used = typeof usage === 'function' ? await usage(placed.env) : await cx.estate.usageIn(usage, t.id, placed.env, claimRef);
  const over = cx.estate.over(await cx.estate.marksOf(placed.account, placed.env), used);
  if (over.length === 0) return;
  const what = describeOver(over);
  throw new AppError('LIMIT_EXCEEDED', `${when}, service ${service} would take environment ${placed.ref} over its marks (${what}).`, { details: { environment: placed.ref, over } });
}

/**
 * Marks admission of a changed claim: the policy with this claim in place
 * of its current one, resolved as a draft, against the marks of the
 * environment the claim names (nothing to check when it names none).
 * Answers that draft state, for the checks that weigh the change in the
 * same environment next (resource-rules.ts).
 */
export async function admitChange(cx: Axebow, t: { id: number }, service: string, claim: { kind: string; namespace: string; name: string; spec: unknown }, when: string): Promise<DesiredState | undefined> {
  const labels = (claim.spec as Claim).labels;
  if (!(await environmentOfClaim(cx, t, labels))) return undefined;
  const others = (await cx.repos.policy.listObjects()).filter((o) => !(o.kind === 'claim' && o.namespace === claim.namespace && o.name === claim.name)).map(toPolicyInput);
  const state = await cx.resolution.resolveDraft([...others, { kind: claim.kind, namespace: claim.namespace, name: claim.name, spec: claim.spec } as (typeof others)[number]]);
  await assertWithinMarks(cx, t, service, labels, state, when, `${claim.namespace}/${claim.name}`);
  return state;
}

/** Marks gone over, as people write them: vCPU in cores, memory and storage in bytes, counts as counts. */
export function describeOver(over: readonly { dimension: string; mark: number; usage: number }[]): string {
  const show = (d: string, v: number) => (d === 'vcpu' ? String(millisToVcpu(v)) : String(v));
  return over.map((o) => `${o.dimension}: ${show(o.dimension, o.usage)} needed, ${show(o.dimension, o.mark)} allowed`).join('; ');
}
