/**
 * Capact inside Aptomi's resolution: a bundle component may name
 * `interface: cap.interface.<path>[:<revision>]` instead of `code` or
 * `service`. The Global policy (`policy/system/global`) chooses the
 * Implementation from the Hub, and the Implementation's Keelson code
 * (`spec.keelson.code: {type, params}`) becomes the component's code — its
 * params are templates rendered in the claim's context, like any
 * component's. Choices are made once per Interface per input.
 */
import { chooseImplementation, explain, mergeResolvedPolicies } from '../capact';
import { capactInputOf, type CapactInput } from '../capact/input';
import type { Component } from '../model/kinds';
import { unitDeadline } from '../host-clock';

/** A component as resolution uses it: with the code an Interface's Implementation gave it, or why none could. */
export type EffectiveComponent = Component & {
  /** `path:revision` of the chosen Implementation. */
  implementation?: string;
  /**
   * What the policy injected, for the code's templates as `.Capact`:
   * `Parameters` (additional parameters by name) and `TypeInstances` (by
   * alias or input name: `{ID, Type, Value}`). TypeInstance values are
   * credentials, so instances rendered with them are sensitive.
   */
  injected?: { Parameters: Record<string, unknown>; TypeInstances: Record<string, { ID: string; Type: string; Value: unknown }> };
  /** Why the Interface gave no code (the claim fails with it). */
  interfaceError?: string;
  /** The choice ran out of its time: the claims failed by it are not kept (ClaimOutcome.timedOut). */
  interfaceTimedOut?: boolean;
};

type Choice =
  | { ok: true; code: NonNullable<Component['code']>; implementation: string; injected: NonNullable<EffectiveComponent['injected']> }
  | { ok: false; error: string; timedOut?: boolean };

/**
 * Choices for interface components, made once per Interface per input —
 * except one that ran out of its time: that is kept only until the session
 * moves on (`forgetTimedOut`), so that every claim of one resolution sees
 * the same choice, and the next resolution makes it again.
 */
export class CapactChooser {
  private readonly input: CapactInput;
  private readonly choices = new Map<string, Choice>();

  constructor(objects: readonly { kind: string; namespace: string; name: string; spec: unknown }[]) {
    this.input = capactInputOf(objects);
  }

  choose(ref: string): Choice {
    let c = this.choices.get(ref);
    if (!c) {
      c = this.chooseOnce(ref);
      this.choices.set(ref, c);
    }
    return c;
  }

  /** Drop the choices that ran out of their time; whether there were any. */
  forgetTimedOut(): boolean {
    let any = false;
    for (const [ref, c] of this.choices) {
      if (!c.ok && c.timedOut) {
        this.choices.delete(ref);
        any = true;
      }
    }
    return any;
  }

  private chooseOnce(ref: string): Choice {
    const i = ref.indexOf(':');
    const request = { interface: i < 0 ? { path: ref } : { path: ref.slice(0, i), revision: ref.slice(i + 1) } };
    const { hub, hubErrors, global, globalErrors, settings } = this.input;
    if (hubErrors.length > 0) return { ok: false, error: `interface ${ref}: the Hub cannot be read (${hubErrors[0]})` };
    if (globalErrors.length > 0) return { ok: false, error: `interface ${ref}: the Global policy cannot be read (${globalErrors[0]!.message})` };
    // No Global policy is Capact's missing ConfigMap: nothing is allowed.
    const merged = mergeResolvedPolicies(hub, { global }, settings).policy;
    // Made once per Interface for every claim that uses it: its own time, not the first such claim's.
    const choice = chooseImplementation(hub, merged, request, { mode: settings.mode, deadline: unitDeadline() });
    if (!choice.implementation || !choice.ok) {
      const x = explain(choice);
      return { ok: false, error: `interface ${ref}: ${x.errors[0] ?? x.summary}`, ...(choice.errors.some((e) => e.code === 'time_limit') ? { timedOut: true } : {}) };
    }
    const impl = `${choice.implementation.path}:${choice.implementation.revision}`;
    const code = this.input.keelsonCode(impl);
    if (!code) return { ok: false, error: `interface ${ref}: Implementation ${impl} was chosen, but it has no spec.keelson.code for Keelson to deploy` };
    const typeInstance = (id: string) => {
      const ti = hub.typeInstances[id];
      return { ID: id, Type: ti ? `${ti.typeRef.path}:${ti.typeRef.revision}` : '', Value: ti?.value ?? null };
    };
    const injected = {
      Parameters: Object.fromEntries(choice.injected.additionalParameters.map((p) => [p.name, p.value])),
      TypeInstances: Object.fromEntries([
        ...choice.injected.requiredTypeInstances.map((t) => [t.alias, typeInstance(t.id)] as const),
        ...choice.injected.additionalTypeInstances.map((t) => [t.name, typeInstance(t.id)] as const),
      ]),
    };
    return { ok: true, code, implementation: impl, injected };
  }
}
