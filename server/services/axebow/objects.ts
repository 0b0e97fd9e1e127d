/**
 * The policy objects Axebow writes, built from input the API checked: a
 * service's claim is made as an object, validated as the engine validates
 * any object, and committed as built — never written out as YAML text to be
 * parsed again on its way to the policy.
 */
import { stringify } from 'yaml';
import type { Claim } from '../../engine/model/kinds';
import { validateSourceObject, type AnyLoadedObject } from '../../engine/model/validate';
import type { PolicyObjectInput } from '../../engine/resolve';
import { refuseErrors } from '../admission';
import { AppError, notFound } from '../../errors';
import { environmentLabel } from '../estate';
import type { Axebow } from './context';

/** The claim document Axebow writes (`labels` only when it has some). */
export function claimDocument(c: { namespace: string; name: string; user: string; service: string; labels: Record<string, string> }) {
  return { kind: 'claim', metadata: { namespace: c.namespace, name: c.name }, user: c.user, service: c.service, ...(Object.keys(c.labels).length ? { labels: c.labels } : {}) };
}

/**
 * A policy object from a document built here: checked against its kind's
 * schema (an error names the object and field, and nothing is written); its
 * YAML is what the editor and history show of it.
 */
export function builtObject(document: Record<string, unknown>): AnyLoadedObject {
  const text = stringify(document);
  const pos = { line: 1, column: 1 };
  const { object, diagnostics } = validateSourceObject({ value: document, text, pos, locate: () => pos });
  // No line: the object was built from a request's fields, not read from text the caller wrote; the field path says where.
  refuseErrors(diagnostics.map(({ line: _l, column: _c, endLine: _el, endColumn: _ec, ...d }) => d));
  if (!object) throw new AppError('INVALID_INPUT', `${String(document.kind)} ${JSON.stringify(document.metadata)} is not a policy object. Nothing was saved.`);
  return object;
}

/** The objects as the engine takes them. */
export function policyInputs(objects: readonly AnyLoadedObject[]): PolicyObjectInput[] {
  return objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }) as PolicyObjectInput);
}

/** A claim's labels. */
export function labelsOf(o: { spec: unknown }): Claim['labels'] {
  return (o.spec as Claim).labels;
}

/** Aptomi's target label for an environment (`account/environment`): `cluster` or `cluster.namespace`. */
export async function targetLabel(cx: Axebow, t: { id: number; name: string }, ref: string): Promise<string> {
  const env = await cx.estate.environmentFor(t.id, ref);
  if (!env) throw notFound(`Environment ${ref} of tenant ${t.name}`);
  return environmentLabel(env);
}
