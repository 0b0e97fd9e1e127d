/**
 * "New object" texts come from the kind registry (server/engine/model/sources),
 * through the JSON Schemas the editor already loads: a kind declared there is
 * offered here with no edit in the console.
 */
import { EXAMPLE_KEYWORD } from '@/server/engine/model/sources/types';

/** Kind → starting YAML, from the schemas (`policy.schemas`). */
export function newObjectTemplates(schemas: Record<string, Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [kind, schema] of Object.entries(schemas ?? {})) {
    const example = schema[EXAMPLE_KEYWORD];
    if (typeof example === 'string') out[kind] = example;
  }
  return out;
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
export function templateFor(example: string, kind: string, who?: { user: string; grants: readonly TemplateGrant[] }): string {
  let text = example;
  if (!who) return text;
  if (kind === 'claim') text = text.replace(/^user: .*$/m, `user: ${who.user}`);
  if (kind === 'aclrule' || kind === 'cluster') return text;
  const fits = (g: TemplateGrant) => g.namespaces !== '*' && (kind === 'claim' || g.role === 'namespace-admin');
  if (who.grants.some((g) => g.namespaces === '*')) return text;
  const grant = who.grants.find(fits);
  const namespace = grant && grant.namespaces !== '*' ? grant.namespaces[0] : undefined;
  return namespace ? text.replace(/^  namespace: main$/m, `  namespace: ${namespace}`) : text;
}
