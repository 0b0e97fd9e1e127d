/**
 * Capact's "Try it": which Implementation an Interface resolves to, with
 * the explanation, under the stored Hub and Global policy — or under a
 * draft of a policy object standing in for the Global one, and an Action
 * policy merged in. Pure: the console's request runs it on a thread that
 * reads request text (server/resolver), never on the one answering requests.
 */
import { chooseImplementation, explain, type Explanation, type MergeMode, mergeResolvedPolicies, parsePolicy, type Policy, type PolicyKind } from './index';
import { loadObjects } from '../model/validate';
import { capactInputOf } from './input';
import { unitDeadline } from '../host-clock';

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

type StoredLike = { kind: string; namespace: string; name: string; spec: unknown };

/** The answer; `hubError` when the stored Hub itself cannot be read (a conflict, not the caller's mistake). */
export function tryCapact(stored: readonly StoredLike[], input: TryItInput): TryItResult | { hubError: string } {
  const problems: string[] = [];
  let objects = stored;
  const isGlobal = (o: StoredLike) => o.kind === GLOBAL_POLICY.kind && o.namespace === GLOBAL_POLICY.namespace && o.name === GLOBAL_POLICY.name;
  let source: TryItResult['policy'] = objects.some(isGlobal) ? 'saved' : 'none';
  if (input.draft !== undefined) {
    const loaded = loadObjects(input.draft, 'draft.yaml');
    for (const d of loaded.diagnostics.filter((x) => x.severity === 'error')) problems.push(`${d.line ? `line ${d.line}: ` : ''}${d.message}`);
    const draft = loaded.objects.find((o) => o.kind === 'policy');
    if (!draft && problems.length === 0) problems.push('the draft holds no policy object');
    if (draft) {
      // The draft stands in for the Global policy, whatever its name.
      objects = [...objects.filter((o) => !isGlobal(o)), { ...GLOBAL_POLICY, spec: draft.spec }];
      source = 'draft';
    }
  }
  const read = capactInputOf(objects);
  if (source === 'saved') problems.push(...read.globalErrors.map((e) => `saved Global policy: ${e.message}`));
  let action: Policy | undefined;
  if (input.action !== undefined) {
    const r = parsePolicy(input.action);
    action = r.policy ?? undefined;
    problems.push(...r.errors.map((e) => `Action policy: ${e.message}`));
  }
  if (problems.length > 0) return { policy: source, problems, explanation: null, implementation: null };
  if (read.hubErrors.length > 0) return { hubError: read.hubErrors[0]! };
  // The policy's own merge settings, unless the caller tries others.
  const mode = input.mode ?? read.settings.mode;
  // Unknown TypeInstance ids stay in the merged policy; the choice names them.
  const merged = mergeResolvedPolicies(read.hub, { global: read.global, action }, { order: input.order ?? read.settings.order, mode }).policy;
  const choice = chooseImplementation(read.hub, merged, { interface: input.interface }, { mode, deadline: unitDeadline() });
  return { policy: source, problems: [], explanation: explain(choice), implementation: choice.implementation };
}
