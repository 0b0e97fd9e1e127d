/**
 * Creating a service: from an API request or an Axebow bundle; placed,
 * admitted by marks, then queued to be committed with the caller's other
 * creates arriving together (./commit-creates.ts).
 */
import type { Actor, MaybeActor } from '../actor';
import { AppError } from '../../errors';
import type { GroupCommit } from '../group-commit';
import { readBundle } from './bundle';
import type { PendingCreate } from './commit-creates';
import { existingClaim, serviceExists, signedIn, tenantOf, type Axebow, type TenantRef } from './context';
import { describeOver } from './marks';
import { place } from './placement';
import type { CreateServiceInput, ServiceWrite } from './types';
import { asText } from './write';

type CreateInput = { tenant: string; name: string; dryrun: boolean; accept: boolean } & CreateServiceInput;

/**
 * Create a service from an Axebow bundle (a zip of YAML modules, ./bundle.ts):
 * its deployment's claim, with the objects the bundle carries inline
 * written in the same generation — then as any create.
 */
export async function createFromBundle(
  cx: Axebow,
  creates: GroupCommit<PendingCreate, ServiceWrite>,
  actor: MaybeActor,
  input: { tenant: string; name: string; dryrun: boolean; accept: boolean; bundle: Uint8Array; environment?: string; meta?: Record<string, unknown> },
): Promise<ServiceWrite> {
  const who = signedIn(actor, 'create services');
  // Members only, asked before the archive is opened; its YAML is read as any policy text is (admission.ts).
  await tenantOf(cx, who, input.tenant, 'create services');
  const d = await readBundle(input.bundle, input.name, who.name, (text, file) => cx.policy.admission.admit(who, text, { verb: 'create services', claimVerb: 'save', file }));
  const { tenant, name, dryrun, accept, environment, meta } = input;
  return create(cx, creates, who, { tenant, name, dryrun, accept, environment, meta, service: d.service, namespace: d.namespace, labels: d.labels, ...(d.objects ? { extra: d.objects } : {}) });
}

/** Create a service: a claim in the caller's name; with `dryrun`, the revision it would make, and nothing written. */
export async function create(cx: Axebow, creates: GroupCommit<PendingCreate, ServiceWrite>, actor: MaybeActor, input: CreateInput): Promise<ServiceWrite> {
  const who = signedIn(actor, 'create services');
  const t = await tenantOf(cx, who, input.tenant, 'create services');
  // Its checks take a few reads: a commit of this caller's creates starting meanwhile waits for it (group-commit.ts).
  const group = `${who.id}\n${t.id}`;
  const coming = creates.expect(group);
  try {
    return await checkAndSubmit(cx, creates, who, t, input, group, coming);
  } finally {
    coming.arrived();
  }
}

async function checkAndSubmit(
  cx: Axebow,
  creates: GroupCommit<PendingCreate, ServiceWrite>,
  who: Actor,
  t: TenantRef,
  input: CreateInput,
  group: string,
  coming: { arrived: () => void },
): Promise<ServiceWrite> {
  // A taken name is refused early where placing costs resolutions (environments to weigh) or the answer is
  // a dry run; otherwise the commit's own check of every name refuses it, without a read per create.
  if (input.dryrun || input.environment || (await cx.estate.environmentsOf(t.id)).length > 0) {
    const existing = await existingClaim(cx, t, input.name);
    if (existing) throw serviceExists(t, input.name, existing);
  }
  const placed = await place(cx, who, t, input);
  const selection = placed.selection;
  const admission = placed.admission;
  if (selection && !selection.chosen) {
    if (input.dryrun) return { dryrun: true, selection, ...(admission ? { admission } : {}) };
    // A named environment over its marks is Axebow's MarkExceeded; any other refusal lists every environment's reasons.
    if (!(admission && !admission.ok)) {
      const why = selection.table.map((r) => `${r.environment}: ${r.reasons.join('; ')}`).join(' | ');
      throw new AppError('LIMIT_EXCEEDED', `No environment of tenant ${t.name} may take service ${input.name}${why ? ` (${why})` : ''}.`, {
        details: { restCode: 'NoEnvironment', selection },
      });
    }
  }
  if (input.dryrun) {
    return { dryrun: true, preview: await cx.revisions.preview(who, { text: asText(placed.objects) }), ...(admission ? { admission } : {}), ...(selection ? { selection } : {}) };
  }
  if (admission && !admission.ok) {
    const what = describeOver(admission.over);
    throw new AppError('LIMIT_EXCEEDED', `Service ${input.name} would take environment ${admission.environment} over its marks (${what}).`, {
      details: { environment: admission.environment, over: admission.over, ...(selection ? { selection } : {}) },
    });
  }
  // A `requiring` environment takes the service only with an explicit acceptance later.
  const accept = input.accept && selection?.chosen?.outcome !== 'requiring';
  // One caller's creates on one tenant that arrive together become one generation (group-commit.ts).
  return creates.submit(`${group}\n${accept}`, { who, t, name: input.name, objects: placed.objects, accept, ...(selection ? { selection } : {}) }, coming, group);
}
