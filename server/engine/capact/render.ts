/**
 * What a render would choose, without rendering: starting from the Action's
 * Interface, choose its Implementation, then walk that Implementation's
 * `capact-action` steps and choose theirs, recursively, the way Capact's
 * Argo renderer drives the policy client (reference/capact.md §4):
 * a step's `capact-policy` is pushed (its import alias resolved) before the
 * step's Implementation is chosen and popped after its subtree; the root's
 * `capact-when: <name> == nil` steps are skipped when an input or injected
 * additional TypeInstance of that name exists (nested renders get no input
 * TypeInstances, as in Capact); the render stops with Capact's error once
 * more than `maxDepth` workflows have been rendered.
 */
import { implementationsFor } from './hub';
import { chooseImplementation, mergeResolvedPolicies, NO_IMPLEMENTATIONS, type ChooseOptions } from './evaluate';
import { resolveActionReference, workflowPolicyToPolicy, type MergeOptions, type PolicySet } from './merge';
import type { CapactError, Hub, Implementation, ImplementationChoice, ImplementationRequest, Policy, RefWithOptRevision } from './types';

export interface RenderOptions extends MergeOptions {
  /** Most workflows rendered in total (Capact counts every nested render); default 20. */
  maxDepth?: number;
  /** Names of the TypeInstances the user passes to the Action. */
  inputTypeInstances?: readonly string[];
  constantTypeInstances?: ChooseOptions['constantTypeInstances'];
}

export interface RenderedStep {
  template: string;
  name: string;
  action: string;
  interface: RefWithOptRevision;
  /** Set when `capact-when` skipped the step; names the TypeInstance that satisfied it. */
  skipped?: { satisfiedBy: string };
  choice?: ImplementationChoice;
  steps: RenderedStep[];
}

export interface RenderPlan {
  ok: boolean;
  root: ImplementationChoice | null;
  steps: RenderedStep[];
  errors: CapactError[];
}

class RenderStop extends Error {
  constructor(readonly error: CapactError) {
    super(error.message);
  }
}

export function planRender(hub: Hub, policies: PolicySet, request: ImplementationRequest, options: RenderOptions = {}): RenderPlan {
  const maxDepth = options.maxDepth ?? 20;
  const mode = options.mode ?? 'documented';
  const plan: RenderPlan = { ok: false, root: null, steps: [], errors: [] };

  // Capact resolves the Global and Action policies' TypeInstances once, before anything is chosen.
  const stack: Policy[] = [...(policies.workflow ?? [])];
  const merged = () => mergeResolvedPolicies(hub, { global: policies.global, action: policies.action, workflow: stack }, options);
  const metadataErrors = merged().errors;
  if (metadataErrors.length > 0) {
    plan.errors = metadataErrors;
    return plan;
  }
  const chooseOpts: ChooseOptions = { mode, ...(options.constantTypeInstances ? { constantTypeInstances: options.constantTypeInstances } : {}) };
  let rendered = 0;

  const implementationOf = (choice: ImplementationChoice): Implementation =>
    implementationsFor(hub, choice.interface).find((i) => i.path === choice.implementation!.path && i.revision === choice.implementation!.revision)!;

  const renderSteps = (impl: Implementation, inputNames: ReadonlySet<string>): RenderedStep[] => {
    rendered++;
    if (rendered > maxDepth) throw new RenderStop({ code: 'max_depth', message: `Exceeded maximum render depth level [max depth ${maxDepth}]` });
    const out: RenderedStep[] = [];
    for (const step of impl.steps) {
      if (!step.action) continue;
      const resolved = resolveActionReference(impl.imports, step.action);
      if ('error' in resolved) throw new RenderStop(resolved.error);
      const node: RenderedStep = { template: step.template, name: step.name, action: step.action, interface: resolved.ref, steps: [] };
      out.push(node);
      const satisfiedBy = step.when ? whenSatisfiedBy(step.when, inputNames) : undefined;
      if (satisfiedBy !== undefined) {
        node.skipped = { satisfiedBy };
        continue;
      }
      let pushed = false;
      if (step.policy) {
        const wp = workflowPolicyToPolicy(step.policy, impl.imports);
        if (wp.errors.length > 0) throw new RenderStop(wp.errors[0]!);
        stack.push(wp.policy);
        pushed = true;
      }
      const choice = chooseImplementation(hub, merged().policy, { interface: resolved.ref }, chooseOpts);
      node.choice = choice;
      const ref = `${resolved.ref.path}:${resolved.ref.revision ?? ''}`;
      if (!choice.implementation) {
        const cause = choice.errors.find((e) => e.code !== 'no_implementation')?.message ?? NO_IMPLEMENTATIONS;
        throw new RenderStop({ code: 'no_implementation', message: `while picking ImplementationRevision for step ${JSON.stringify(step.name)} with action reference with action reference "${ref}": ${cause}` });
      }
      if (!choice.ok) throw new RenderStop({ ...choice.errors[0]!, message: `while rendering step ${JSON.stringify(step.name)} with action reference "${ref}": ${choice.errors[0]!.message}` });
      node.steps = renderSteps(implementationOf(choice), new Set());
      if (pushed) stack.pop();
    }
    return out;
  };

  try {
    const root = chooseImplementation(hub, merged().policy, request, chooseOpts);
    plan.root = root;
    if (!root.ok || !root.implementation) {
      plan.errors = root.errors;
      return plan;
    }
    const inputs = new Set([...(options.inputTypeInstances ?? []), ...root.injected.additionalTypeInstances.map((t) => t.name)]);
    plan.steps = renderSteps(implementationOf(root), inputs);
    plan.ok = true;
  } catch (e) {
    if (!(e instanceof RenderStop)) throw e;
    plan.errors = [e.error];
  }
  return plan;
}

/**
 * Capact evaluates `capact-when` with govaluate over the input TypeInstance
 * names; only the forms its manifests use are understood here:
 * `<name> == nil` is false (the step is replaced by the input) when the
 * TypeInstance exists. Anything else runs the step.
 */
function whenSatisfiedBy(expr: string, inputs: ReadonlySet<string>): string | undefined {
  const m = /^\s*([A-Za-z0-9_-]+)\s*==\s*nil\s*$/.exec(expr);
  if (m && inputs.has(m[1]!)) return m[1]!;
  return undefined;
}
