/**
 * A service's write: its objects committed as one generation, answered
 * with the revision it made (waited for) and its own claim's outcome.
 */
import type { AnyLoadedObject } from '../../engine/model/validate';
import type { Actor } from '../actor';
import { AppError } from '../../errors';
import type { ByGenerationResult } from '../revisions.types';
import type { Axebow } from './context';
import type { ServiceWrite } from './types';

/** The objects as YAML documents, for a preview (which reads policy text). */
export function asText(objects: readonly AnyLoadedObject[]): string {
  return objects.map((o) => (o.text.endsWith('\n') ? o.text : `${o.text}\n`)).join('---\n');
}

/** Write a service's objects (its claim first) as a new generation; with `dryrun`, the revision it would make, and nothing written. */
export async function write(cx: Axebow, who: Actor, objects: readonly AnyLoadedObject[], message: string, accept: boolean, dryrun = false): Promise<ServiceWrite> {
  if (dryrun) return { dryrun: true, preview: await cx.revisions.preview(who, { text: asText(objects) }) };
  const w = await cx.policy.applyObjects(who, { objects, baseGeneration: await cx.repos.policy.head(), message, accept });
  const revision = await cx.revisions.byGeneration(who, w.generation, { wait: true });
  const failed = await claimFailure(cx, objects[0]!, w.generation, revision);
  if (failed) throw failed;
  return { dryrun: false, generation: w.generation, revision, ...(await notAccepted(cx, who, accept, revision)) };
}

/** With accept=true: the sections it left pending, and why (never silently: issue 35). */
export async function notAccepted(cx: Axebow, who: Actor, accept: boolean, revision: ByGenerationResult): Promise<{ notAccepted?: { namespace: string; reason: string }[] }> {
  if (!accept || revision.id === null) return {};
  const left = await cx.revisions.notAcceptedOnSave(who, revision.id);
  return left.length > 0 ? { notAccepted: left } : {};
}

/**
 * A write answers with its own claim's outcome: a claim the engine failed
 * (its parameters conflict with a deployed claim's, a template error) is an
 * error naming the reason, never "applied" — the revision only left it out.
 * The claim stays in the policy as written (as any saved claim does), so the
 * answer says where, and that an update or a delete is the way on.
 */
export async function claimFailure(cx: Axebow, claim: { kind: string; namespace: string; name: string }, generation: number, revision: ByGenerationResult): Promise<AppError | undefined> {
  if (claim.kind !== 'claim') return undefined;
  const outcome = (await cx.resolution.ensure(generation)).state.claims.find((c) => c.namespace === claim.namespace && c.name === claim.name);
  if (outcome?.status !== 'error') return undefined;
  return new AppError('INVALID_INPUT', `Service ${claim.name} cannot run: ${outcome.errors.join('; ')}. It is saved as written (generation ${generation}) and deploys nothing; update or delete it.`, {
    details: { restCode: 'ServiceError', restStatus: 422, generation, revision, claim: { namespace: claim.namespace, name: claim.name, status: outcome.status, errors: outcome.errors } },
    ...(outcome.diagnostics ? { diagnostics: outcome.diagnostics } : {}),
  });
}
