/**
 * Capact on the stored policy: the Hub (Interfaces, Implementations, Types,
 * Attributes, TypeInstances) and the Global policy `policy/system/global`
 * as saved, and "try it" — which Implementation an Interface resolves to,
 * with the explanation — optionally under a draft of the policy being
 * edited, so the console can answer as the user types.
 *
 * What it returns names TypeInstances by id and Type only: their values
 * (credentials) stay with the objects, which only domain admins see whole.
 */
import { chooseImplementation, explain, type Explanation, type MergeMode, mergePolicies, parsePolicy, type Policy, type PolicyKind } from '../engine/capact';
import { loadObjects } from '../engine/model/validate';
import { CAPACT_INPUT_KINDS, capactInputOf } from '../engine/resolve/capact';
import type { Repos } from '../repo/types';
import type { MaybeActor } from './actor';
import { AppError, unauthorized } from './errors';

export const GLOBAL_POLICY = { kind: 'policy', namespace: 'system', name: 'global' } as const;

export interface TryItInput {
  interface: { path: string; revision?: string };
  /** The text of a `policy` object being edited: used instead of the saved Global policy. */
  draft?: string;
  /** An Action policy (same shape) to merge. */
  action?: unknown;
  order?: PolicyKind[];
  mode?: MergeMode;
}

export interface TryItResult {
  /** The policy the answer came from: the saved Global one, a draft, or none (nothing is allowed). */
  policy: 'saved' | 'draft' | 'none';
  /** Problems with the draft or the Action policy; the choice is null then. */
  problems: string[];
  explanation: Explanation | null;
  implementation: { path: string; revision: string } | null;
}

export class CapactService {
  constructor(private readonly repos: Repos) {}

  /** The stored Hub and Global policy (every kind Capact's reading takes). */
  private async stored() {
    return (await Promise.all([...CAPACT_INPUT_KINDS].map((kind) => this.repos.policy.listObjects({ kind })))).flat();
  }

  /** The Interfaces of the Hub, newest revision first per path: what can be asked for. */
  async interfaces(actor: MaybeActor): Promise<{ path: string; revisions: string[] }[]> {
    if (!actor) throw unauthorized('read the Hub');
    const { hub } = capactInputOf(await this.stored());
    return Object.entries(hub.interfaces)
      .map(([path, revs]) => ({ path, revisions: revs.map((r) => r.revision) }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async tryIt(actor: MaybeActor, input: TryItInput): Promise<TryItResult> {
    if (!actor) throw unauthorized('try Capact policies');
    const problems: string[] = [];
    let objects = await this.stored();
    const isGlobal = (o: { kind: string; namespace: string; name: string }) => o.kind === GLOBAL_POLICY.kind && o.namespace === GLOBAL_POLICY.namespace && o.name === GLOBAL_POLICY.name;
    let source: TryItResult['policy'] = objects.some(isGlobal) ? 'saved' : 'none';
    if (input.draft !== undefined) {
      const loaded = loadObjects(input.draft, 'draft.yaml');
      for (const d of loaded.diagnostics.filter((x) => x.severity === 'error')) problems.push(`${d.line ? `line ${d.line}: ` : ''}${d.message}`);
      const draft = loaded.objects.find((o) => o.kind === 'policy');
      if (!draft && problems.length === 0) problems.push('the draft holds no policy object');
      if (draft) {
        // The draft stands in for the Global policy, whatever its name.
        objects = [...objects.filter((o) => !isGlobal(o)), { ...GLOBAL_POLICY, spec: draft.spec }] as typeof objects;
        source = 'draft';
      }
    }
    const read = capactInputOf(objects);
    if (source === 'saved') problems.push(...read.globalErrors.map((e) => `saved Global policy: ${e}`));
    let action: Policy | undefined;
    if (input.action !== undefined) {
      const r = parsePolicy(input.action);
      action = r.policy ?? undefined;
      problems.push(...r.errors.map((e) => `Action policy: ${e.message}`));
    }
    if (problems.length > 0) return { policy: source, problems, explanation: null, implementation: null };
    if (read.hubErrors.length > 0) throw new AppError('CONFLICT', `The stored Hub cannot be read: ${read.hubErrors[0]}`);
    // The policy's own merge settings, unless the caller tries others.
    const mode = input.mode ?? read.settings.mode;
    const merged = mergePolicies({ global: read.global, action }, { order: input.order ?? read.settings.order, mode });
    const choice = chooseImplementation(read.hub, merged, { interface: input.interface }, { mode });
    return { policy: source, problems: [], explanation: explain(choice), implementation: choice.implementation };
  }
}
