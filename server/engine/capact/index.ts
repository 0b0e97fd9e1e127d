/**
 * Capact's interface policies (reference/capact.md): which Implementation
 * an Interface resolves to under the merged Global, Action and Workflow-step
 * policies, what is injected into it, where its outputs are stored, and why
 * every other Implementation was passed over. Pure: plain data in, plain
 * data out; user mistakes come back as `CapactError`s, never as exceptions.
 *
 *   const { hub } = loadHub(manifests);
 *   const { policy } = mergeResolvedPolicies(hub, { global, action }, { mode: 'documented' });
 *   const choice = chooseImplementation(hub, policy, { interface: { path } });
 *   explain(choice) // for the console
 */
import type { ImplementationChoice } from './types';

export { loadHub, emptyHub, compareRevisions, latestInterfaceRevision, implementationsFor, type LoadHubOptions, type LoadHubResult } from './hub';
export { mergePolicies, workflowPolicyToPolicy, resolveActionReference, constraintsEqual, type MergeOptions, type PolicySet } from './merge';
export {
  chooseImplementation,
  resolvePolicyMetadata,
  mergeResolvedPolicies,
  lookupBackendByTypeRef,
  backendKeysFromPolicy,
  checkConstraints,
  findRuleForInterface,
  requiredTypeInstancesForRule,
  ruleLookupKeys,
  validateAdditionalParameter,
  extendsHubStorage,
  ANY_INTERFACE_PATH,
  CONSTANT_TYPE_INSTANCES,
  NO_IMPLEMENTATIONS,
  type ChooseOptions,
} from './evaluate';
export { planRender, type RenderOptions, type RenderPlan, type RenderedStep } from './render';
export { parsePolicy } from './parse';
export { validateJsonSchema } from './schema';
export * from './types';

/** What the console shows for one choice: sentences and rows, no further lookups needed. */
export interface Explanation {
  /** `path:revision` of the Interface. */
  interface: string;
  outcome: 'chosen' | 'none' | 'error';
  summary: string;
  /** Which rule decided, in words; null when no rule applies. */
  rule: string | null;
  candidates: { implementation: string; status: 'chosen' | 'rejected'; constraint?: string; reason: string }[];
  injections: string[];
  backends: string[];
  errors: string[];
}

export function explain(choice: ImplementationChoice): Explanation {
  const iface = `${choice.interface.path}:${choice.interface.revision}`;
  const chosen = choice.implementation ? `${choice.implementation.path}:${choice.implementation.revision}` : null;
  const rule = choice.rule
    ? `rule ${choice.rule.ruleIndex} (matched by key ${choice.rule.key})` +
      (choice.rule.oneOfIndex === null ? ', none of its oneOf items allows an Implementation' : `, oneOf[${choice.rule.oneOfIndex}] ${JSON.stringify(choice.rule.constraints)}`)
    : null;
  const outcome: Explanation['outcome'] = chosen ? (choice.ok ? 'chosen' : 'error') : 'none';
  const summary = chosen
    ? `${iface} resolves to ${chosen}${choice.candidates.length > 1 ? ` (first of ${choice.candidates.length} allowed)` : ''}${choice.ok ? '' : ', but the policy cannot be applied to it'}`
    : `no Implementation of ${iface} is allowed by the policy`;
  return {
    interface: iface,
    outcome,
    summary,
    rule,
    candidates: [
      ...(chosen ? [{ implementation: chosen, status: 'chosen' as const, reason: rule ? `allowed by ${rule}` : 'allowed' }] : []),
      ...choice.rejected.map((r) => ({ implementation: `${r.path}:${r.revision}`, status: 'rejected' as const, constraint: r.constraint, reason: r.reason })),
    ],
    injections: [
      ...choice.injected.requiredTypeInstances.map((t) => `TypeInstance ${t.id} (${t.typeRef.path}:${t.typeRef.revision}) as "${t.alias}"`),
      ...choice.injected.additionalTypeInstances.map((t) => `additional TypeInstance ${t.id} as input "${t.name}"`),
      ...choice.injected.additionalParameters.map((p) => `additional parameters "${p.name}": ${JSON.stringify(p.value)}`),
    ],
    backends: choice.backends.map((b) => {
      const where = b.backend ? `backend ${b.backend.id}${b.backend.description ? ` (${b.backend.description})` : ''}` : 'the built-in Local Hub storage';
      const how = b.via.kind === 'alias' ? `alias "${b.via.alias}"` : b.via.kind === 'typeRef' ? `typeInstance rule ${b.via.key}` : 'no typeInstance rule matches';
      return `${b.name} is stored in ${where} (${how})`;
    }),
    errors: choice.errors.map((e) => e.message),
  };
}
