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
import {
  chooseImplementation,
  explain,
  type Explanation,
  type Hub,
  loadHub,
  type MergeMode,
  mergePolicies,
  parsePolicy,
  type Policy,
  type PolicyKind,
} from '../engine/capact';
import { mergeSettings, toHubManifest } from '../engine/model/sources/capact';
import { loadObjects } from '../engine/model/validate';
import type { Repos } from '../repo/types';
import type { MaybeActor } from './actor';
import { AppError, unauthorized } from './errors';

const HUB_KINDS = ['interface', 'implementation', 'type', 'attribute', 'typeinstance'] as const;
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

  private async hub(): Promise<{ hub: Hub; errors: string[] }> {
    const objects = (await Promise.all(HUB_KINDS.map((kind) => this.repos.policy.listObjects({ kind })))).flat();
    const { hub, errors } = loadHub(objects.map((o) => toHubManifest(o.kind, o.spec as Record<string, unknown>)));
    return { hub, errors: errors.map((e) => e.message) };
  }

  /** The Interfaces of the Hub, newest revision first per path: what can be asked for. */
  async interfaces(actor: MaybeActor): Promise<{ path: string; revisions: string[] }[]> {
    if (!actor) throw unauthorized('read the Hub');
    const { hub } = await this.hub();
    return Object.entries(hub.interfaces)
      .map(([path, revs]) => ({ path, revisions: revs.map((r) => r.revision) }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async tryIt(actor: MaybeActor, input: TryItInput): Promise<TryItResult> {
    if (!actor) throw unauthorized('try Capact policies');
    const problems: string[] = [];
    let global: Policy | undefined;
    let globalSpec: unknown;
    let source: TryItResult['policy'] = 'none';
    if (input.draft !== undefined) {
      const loaded = loadObjects(input.draft, 'draft.yaml');
      for (const d of loaded.diagnostics.filter((x) => x.severity === 'error')) problems.push(`${d.line ? `line ${d.line}: ` : ''}${d.message}`);
      const draft = loaded.objects.find((o) => o.kind === 'policy');
      if (!draft && problems.length === 0) problems.push('the draft holds no policy object');
      if (draft) {
        const spec = draft.spec as Record<string, unknown>;
        globalSpec = spec;
        global = parsePolicy({ interface: spec.interface, typeInstance: spec.typeInstance }).policy ?? undefined;
        source = 'draft';
      }
    } else {
      const saved = await this.repos.policy.getObject(GLOBAL_POLICY);
      if (saved) {
        const spec = saved.spec as Record<string, unknown>;
        globalSpec = spec;
        const r = parsePolicy({ interface: spec.interface, typeInstance: spec.typeInstance });
        global = r.policy ?? undefined;
        problems.push(...r.errors.map((e) => `saved Global policy: ${e.message}`));
        source = 'saved';
      }
    }
    let action: Policy | undefined;
    if (input.action !== undefined) {
      const r = parsePolicy(input.action);
      action = r.policy ?? undefined;
      problems.push(...r.errors.map((e) => `Action policy: ${e.message}`));
    }
    if (problems.length > 0) return { policy: source, problems, explanation: null, implementation: null };

    const { hub, errors } = await this.hub();
    if (errors.length > 0) throw new AppError('CONFLICT', `The stored Hub cannot be read: ${errors[0]}`);
    // The policy's own merge settings, unless the caller tries others.
    const settings = mergeSettings(globalSpec);
    const mode = input.mode ?? settings.mode;
    const merged = mergePolicies({ global, action }, { order: input.order ?? settings.order, mode });
    const choice = chooseImplementation(hub, merged, { interface: input.interface }, { mode });
    return { policy: source, problems: [], explanation: explain(choice), implementation: choice.implementation };
  }
}
