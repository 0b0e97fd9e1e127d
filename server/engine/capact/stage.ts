/**
 * The select stage (Capact): each `action` object requests an Interface;
 * its Action policy merged over the Global one (`policy/system/global`;
 * Capact's default order, ACTION before GLOBAL) chooses the Implementation,
 * whose `spec.keelson.code` becomes one instance on the action's target.
 * An action's outcome is reported like a claim's: resolved with its
 * instance, or an error naming why (no Implementation allowed, no code, no
 * such cluster), with the choice in its trace.
 *
 * Pure; re-run whole when a Capact object or a cluster changes (an action
 * is one choice, cheap next to Aptomi's resolution).
 */
import { chooseImplementation, explain, mergeResolvedPolicies, parsePolicy } from './index';
import { wholeStage, type EngineObject, type SourceStage, type StageOutput } from '../stage';
import { errorAt, failuresOf, objectRef, type Diagnostic } from '../diagnostics';
import { capactDiagnostic } from './types';
import { unitDeadline } from '../host-clock';
import type { Cluster } from '../model/kinds';
import type { CapactActionObject } from '../model/sources/capact';
import { CAPACT_INPUT_KINDS, capactInputOf } from './input';
import { sourceInstance, type ClaimOutcome, type Instance, type TraceStep } from '../state';

const READS = new Set([...CAPACT_INPUT_KINDS, 'action', 'cluster']);

function selectActions(objects: readonly EngineObject[]): StageOutput {
  const actions = objects.filter((o) => o.kind === 'action');
  if (actions.length === 0) return { instances: [], claims: [], errors: [] };
  const clusters = new Map(objects.filter((o) => o.kind === 'cluster').map((o) => [o.name, o.spec as Cluster]));
  const { hub, global, globalErrors, settings, keelsonCode } = capactInputOf(objects);
  const errors: StageOutput['errors'] = globalErrors.map((e) => capactDiagnostic(e, { object: objectRef('policy', 'system', 'global') }));

  const instances: Instance[] = [];
  const claims: ClaimOutcome[] = [];
  for (const o of actions) {
    const a = o.spec as CapactActionObject;
    const ref = a.interface.revision ? `${a.interface.path}:${a.interface.revision}` : a.interface.path;
    const trace: TraceStep[] = [{ depth: 0, kind: 'claim', message: `action ${o.namespace}/${o.name} requests interface ${ref}` }];
    const object = objectRef('action', o.namespace, o.name);
    const outcome = (status: ClaimOutcome['status'], failures: Diagnostic[], keys: string[]): ClaimOutcome => ({
      kind: 'action',
      namespace: o.namespace,
      name: o.name,
      user: '',
      service: `interface ${ref}`,
      status,
      ...failuresOf(failures),
      instances: keys,
      ...(keys[0] ? { instance: keys[0] } : {}),
      trace,
    });
    const fail = (failure: Diagnostic, timedOut = false) => {
      trace.push({ depth: 0, kind: 'error', message: failure.message });
      claims.push({ ...outcome('error', [failure], []), ...(timedOut ? { timedOut: true as const } : {}) });
    };
    const action = a.policy === undefined ? { policy: undefined, errors: [] } : parsePolicy(a.policy);
    if (action.errors.length > 0) {
      const e = action.errors[0]!;
      fail({ ...capactDiagnostic(e, { object, path: ['policy', ...(e.path ?? [])] }), message: `the Action policy cannot be read: ${e.message}` });
      continue;
    }
    // Unknown TypeInstance ids stay in the merged policy; the choice names them.
    const merged = mergeResolvedPolicies(hub, { global, action: action.policy ?? undefined }, settings).policy;
    const choice = chooseImplementation(hub, merged, { interface: a.interface }, { mode: settings.mode, deadline: unitDeadline() });
    const x = explain(choice);
    if (!choice.implementation || !choice.ok) {
      const why = choice.errors[0];
      const message = `interface ${ref}: ${x.errors[0] ?? x.summary}`;
      fail(why ? { ...capactDiagnostic(why, { object, path: ['interface'] }), message } : errorAt('claim_error', message, { object, path: ['interface'] }), choice.errors.some((e) => e.code === 'time_limit'));
      continue;
    }
    const impl = `${choice.implementation.path}:${choice.implementation.revision}`;
    // What the merged policy injects is part of why: it says which policy's TypeInstance won.
    trace.push({ depth: 0, kind: 'service', message: `${x.summary}${x.rule ? `, by ${x.rule}` : ''}`, data: { implementation: impl, injected: x.injections } });
    const code = keelsonCode(impl);
    if (!code) {
      fail(errorAt('claim_error', `Implementation ${impl} was chosen, but it has no spec.keelson.code for Keelson to deploy`, { object, path: ['interface'] }));
      continue;
    }
    const dot = a.target.indexOf('.');
    const clusterName = dot < 0 ? a.target : a.target.slice(0, dot);
    const cluster = clusters.get(clusterName);
    if (!cluster) {
      fail(errorAt('invalid_reference', `cluster '${clusterName}' from target '${a.target}' does not exist`, { object, path: ['target'] }));
      continue;
    }
    const target = { clusterNamespace: 'system', cluster: clusterName, namespace: (dot < 0 ? '' : a.target.slice(dot + 1)) || cluster.config?.defaultnamespace || 'default' };
    trace.push({ depth: 0, kind: 'target', message: `target ${target.cluster}/${target.namespace}` });
    const inst = sourceInstance({
      namespace: o.namespace,
      path: [o.name],
      component: 'action',
      code: { type: code.type, params: { ...(code.params ?? {}) } },
      target,
      owner: `${o.namespace}/${o.name}`,
      claims: [`${o.namespace}/${o.name}`],
      provenance: { source: 'capact', action: `${o.namespace}/${o.name}`, interface: ref, implementation: impl },
    });
    instances.push(inst);
    trace.push({ depth: 0, kind: 'instance', message: `instance ${inst.key}`, data: { key: inst.key } });
    claims.push(outcome('resolved', [], [inst.key]));
  }
  instances.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  return { instances, claims, errors };
}

export const CAPACT_SELECT: SourceStage = wholeStage('capact', 'select', READS, selectActions);
