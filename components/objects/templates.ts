/**
 * "New object" texts come from the kind registry (server/engine/model/sources),
 * through the JSON Schemas the editor already loads: a kind declared there is
 * offered here with no edit in the console.
 */
import type { UserRoles } from '@/server/engine/acl';
import { savableKinds, savableNamespaces } from '@/server/engine/acl-words';
import { EXAMPLE_KEYWORD, SYSTEM_ONLY_KEYWORD } from '@/server/engine/model/sources/types';

/** Kind → starting YAML, from the schemas (`policy.schemas`). */
export function newObjectTemplates(schemas: Record<string, Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [kind, schema] of Object.entries(schemas ?? {})) {
    const example = schema[EXAMPLE_KEYWORD];
    if (typeof example === 'string') out[kind] = example;
  }
  return out;
}

type Schemas = Record<string, Record<string, unknown>> | undefined;

const systemOnlyIn = (schemas: Schemas) => (kind: string) => schemas?.[kind]?.[SYSTEM_ONLY_KEYWORD] === true;

/**
 * What "New object" offers a user: the kinds they may save somewhere and,
 * for the chosen kind, the namespaces (null: any, as for a domain admin, or
 * the one a system-only kind lives in).
 * Without roles (none answered) every kind is offered and the server's
 * refusal says why; with roles that allow nothing, likewise, with `none` set.
 */
export function newObjectChoices(
  schemas: Schemas,
  who: { user: string; grants: UserRoles['grants'] } | undefined,
  kind?: string,
): { kinds: string[]; kind: string; namespaces: string[] | null; none: boolean } {
  const all = Object.keys(newObjectTemplates(schemas));
  const roles = who && { user: who.user, grants: who.grants, errors: [] };
  const allowed = roles ? savableKinds(roles, all, systemOnlyIn(schemas)) : all;
  const kinds = allowed.length > 0 ? allowed : all;
  const chosen = kind && kinds.includes(kind) ? kind : kinds.includes('bundle') ? 'bundle' : kinds[0]!;
  // A system-only kind has one namespace, written in its template: nothing to choose.
  const where = roles && allowed.length > 0 && !systemOnlyIn(schemas)(chosen) ? savableNamespaces(roles, chosen, false) : '*';
  return { kinds, kind: chosen, namespaces: where === '*' ? null : where, none: allowed.length === 0 && !!roles };
}

export interface TemplateGrant {
  role: string;
  namespaces: '*' | string[];
}

/**
 * The template for `kind`, placed where the signed-in user may actually save
 * it: claims in the first namespace they hold any role in, other namespaced
 * kinds where they are a namespace admin. Domain admins (every namespace) and
 * users without a fitting role keep the template as written, so the server's
 * refusal names the role they lack.
 */
export function templateFor(example: string, kind: string, who?: { user: string; grants: readonly TemplateGrant[] }, namespace?: string): string {
  let text = example;
  if (!who) return text;
  if (kind === 'claim') text = text.replace(/^user: .*$/m, `user: ${who.user}`);
  // A namespace the user chose from those offered (newObjectChoices).
  if (namespace) return text.replace(/^  namespace: main$/m, `  namespace: ${namespace}`);
  if (kind === 'aclrule' || kind === 'cluster') return text;
  const fits = (g: TemplateGrant) => g.namespaces !== '*' && (kind === 'claim' || g.role === 'namespace-admin');
  if (who.grants.some((g) => g.namespaces === '*')) return text;
  const grant = who.grants.find(fits);
  const first = grant && grant.namespaces !== '*' ? grant.namespaces[0] : undefined;
  return first ? text.replace(/^  namespace: main$/m, `  namespace: ${first}`) : text;
}
