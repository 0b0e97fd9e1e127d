/**
 * Creates queued together (same caller, tenant and `accept`: group-commit.ts)
 * committed as one generation, so one revision holds them all, when
 * together they pass what each passed alone: new names, distinct, and
 * within the marks of the environments they were placed in — placement
 * weighed each against a policy holding none of the others. Otherwise, or
 * when the joint write fails, each is committed on its own and answers for
 * itself.
 */
import type { Selection } from '../../engine/axebow/stage';
import type { AnyLoadedObject } from '../../engine/model/validate';
import type { UsageAsk } from '../../engine/plan';
import type { EnvironmentRow, Marks } from '../../repo/estate.types';
import type { Actor } from '../actor';
import { AppError } from '../../errors';
import { environmentOfLabels } from '../estate';
import { GroupCommit } from '../group-commit';
import { asError, serviceExists, type Axebow, type TenantRef } from './context';
import { assertWithinMarks, environmentOfClaim } from './marks';
import { labelsOf, policyInputs } from './objects';
import type { ServiceWrite } from './types';
import { claimFailure, notAccepted } from './write';

/** A create waiting to be committed: its objects, the claim first. */
export type PendingCreate = { who: Actor; t: TenantRef; name: string; objects: readonly AnyLoadedObject[]; accept: boolean; selection?: Selection };

/** Writes a create tries when other writers keep moving the policy head. */
const CREATE_ATTEMPTS = 5;

/** The queue creates wait in to be committed together. */
export function createQueue(cx: Axebow): GroupCommit<PendingCreate, ServiceWrite> {
  return new GroupCommit<PendingCreate, ServiceWrite>((items, { waited }) => commitCreates(cx, items, waited));
}

/** The claim of a queued create. */
function claimOfCreate(it: PendingCreate): AnyLoadedObject {
  return it.objects[0]!;
}

async function commitCreates(cx: Axebow, items: PendingCreate[], waited: boolean): Promise<(ServiceWrite | Error)[]> {
  const out: (ServiceWrite | Error | undefined)[] = [];
  const together: PendingCreate[] = [];
  const names = new Set<string>();
  // A name sent twice is refused the second time; a name taken in the policy is refused by the write.
  for (const it of items) {
    const twice = names.has(it.name);
    out.push(twice ? serviceExists(it.t, it.name) : undefined);
    if (!twice) together.push(it);
    names.add(it.name);
  }
  // The answers of `together`, in order, into the free slots of `out`.
  const fill = (results: (ServiceWrite | Error)[]) => {
    let k = 0;
    return out.map((o) => o ?? results[k++]!);
  };
  const alone = async (it: PendingCreate, recheckMarks: boolean): Promise<ServiceWrite | Error> => {
    try {
      // A new claim: weighed on the warm session (measureWithNewClaims), not by resolving a copy of the whole policy.
      if (recheckMarks) await admitNew(cx, it);
      const w = await writeCreates(cx, [it]);
      if (w.generation === undefined) return serviceExists(it.t, it.name, w.taken.get(it.name));
      return (await answerCreates(cx, [it], w.generation))[0]!;
    } catch (e) {
      return asError(e);
    }
  };
  // Alone and straight through, its placement still holds; having waited behind a commit, it is checked again.
  if (together.length <= 1) return fill(await Promise.all(together.map((it) => alone(it, waited && !!it.selection?.chosen))));
  const placed = together.filter((it) => it.selection?.chosen);
  // A joint check that cannot be made is no verdict: each is then committed on its own, checked alone.
  if (await withinMarksTogether(cx, together, placed).catch(() => false)) {
    // Names taken in the policy are refused, the others written together; a refused write: each tries alone below.
    const w = await writeCreates(cx, together).catch(() => undefined);
    if (w) {
      const answers = w.generation === undefined ? [] : await answerCreates(cx, w.written, w.generation).catch((e) => w.written.map(() => asError(e)));
      const byItem = new Map<PendingCreate, ServiceWrite | Error>(w.written.map((it, i) => [it, answers[i]!]));
      return fill(together.map((it) => byItem.get(it) ?? serviceExists(it.t, it.name, w.taken.get(it.name))));
    }
  }
  const results: (ServiceWrite | Error)[] = [];
  for (const it of together) results.push(await alone(it, placed.length > 0));
  return fill(results);
}

/** Marks admission of one new service against the newest policy (its placement was weighed before a commit it waited for). */
async function admitNew(cx: Axebow, it: PendingCreate): Promise<void> {
  const usage = async (env: EnvironmentRow) => (await cx.resolution.measureWithNewClaims(policyInputs(it.objects), { usage: [await cx.estate.usageAsk(it.t.id, env)], claims: [] })).usage[0]!;
  await assertWithinMarks(cx, it.t, it.name, labelsOf(claimOfCreate(it)), usage, 'Now');
}

/** Whether the placed creates of a batch fit their environments' marks with all of the batch in the policy. */
async function withinMarksTogether(cx: Axebow, together: PendingCreate[], placed: PendingCreate[]): Promise<boolean> {
  if (placed.length === 0) return true;
  // One probe with the whole batch in, measured for each placed service's environment.
  const where: { marks: Marks; ask: UsageAsk }[] = [];
  for (const it of placed) {
    const at = await environmentOfClaim(cx, it.t, labelsOf(claimOfCreate(it)));
    if (!at) continue;
    const ask = await cx.estate.usageAsk(it.t.id, at.env);
    // The batch's other claims placed in another environment on this cluster are not this one's.
    const others = together.filter((o) => o !== it && environmentOfLabels([at], labelsOf(claimOfCreate(o))) === undefined).map((o) => `${claimOfCreate(o).namespace}/${o.name}`);
    where.push({ marks: await cx.estate.marksOf(at.account, at.env), ask: ask.elsewhere ? { ...ask, elsewhere: [...ask.elsewhere, ...others] } : ask });
  }
  if (where.length === 0) return true;
  const measured = await cx.resolution.measureWithNewClaims(policyInputs(together.flatMap((it) => it.objects)), { usage: where.map((w) => w.ask), claims: [] });
  return where.every((w, i) => cx.estate.over(w.marks, measured.usage[i]!).length === 0);
}

/** Which of these names the tenant's namespaces already hold (name → namespace): one read per namespace. */
async function takenNames(cx: Axebow, t: { namespaces: string[] }, names: string[]): Promise<Map<string, string>> {
  const taken = new Map<string, string>();
  for (const namespace of t.namespaces) {
    for (const o of await cx.repos.policy.listObjects({ kind: 'claim', namespace, names })) if (!taken.has(o.name)) taken.set(o.name, namespace);
  }
  return taken;
}

/**
 * One generation holding the objects of every item whose name is free
 * (`written`; `taken` says where the others' names are held). A create
 * edits no policy the caller loaded, so another writer's generation in
 * between is no conflict: it tries again on the new head — after checking
 * the names again. No generation when every name was taken.
 */
async function writeCreates(cx: Axebow, items: PendingCreate[]): Promise<{ generation?: number; written: PendingCreate[]; taken: Map<string, string> }> {
  const { who, t, accept } = items[0]!;
  for (let attempt = 1; ; attempt++) {
    const baseGeneration = await cx.repos.policy.head();
    const taken = await takenNames(cx, t, items.map((it) => it.name));
    const written = items.filter((it) => !taken.has(it.name));
    if (written.length === 0) return { written, taken };
    const first = written[0]!;
    const message =
      written.length === 1
        ? `service ${first.name} of tenant ${t.name} (API)${first.selection?.chosen ? `; environment ${first.selection.chosen.environment} (${first.selection.chosen.outcome})` : ''}`
        : `${written.length} services of tenant ${t.name} (API, created together): ${written.map((it) => it.name).join(', ')}`;
    try {
      return { generation: (await cx.policy.applyObjects(who, { objects: written.flatMap((it) => it.objects), baseGeneration, message, accept })).generation, written, taken };
    } catch (e) {
      if (!(attempt < CREATE_ATTEMPTS && e instanceof AppError && e.code === 'CONFLICT' && e.details?.head !== undefined)) throw e;
    }
  }
}

/** The answers to written creates: their revision (waited for), each placement's story on it, or their claim's error. */
async function answerCreates(cx: Axebow, items: PendingCreate[], generation: number): Promise<(ServiceWrite | Error)[]> {
  const who = items[0]!.who;
  const revision = await cx.revisions.byGeneration(who, generation, { wait: true });
  for (const { selection, name } of items) {
    // The placement is part of the revision's story: who could have taken the service, and why not.
    if (!selection || revision.id === null) continue;
    for (const row of selection.table) {
      const chosen = row.environment === selection.chosen?.environment ? ' — chosen' : '';
      const about = items.length > 1 ? `${name} → ` : '';
      await cx.repos.revisions.event(revision.id, 'placement', `${about}${row.environment}: ${row.outcome}${chosen}${row.reasons.length ? ` (${row.reasons.join('; ')})` : ''}`, { actor: who.name });
    }
  }
  const failed = await Promise.all(items.map((it) => claimFailure(cx, claimOfCreate(it), generation, revision)));
  const left = await notAccepted(cx, who, items[0]!.accept, revision);
  return items.map(({ selection }, i) => failed[i] ?? { dryrun: false, generation, revision, ...(selection ? { selection } : {}), ...left });
}
