/** Starting YAML for "New object", one per kind: valid as is, easy to adapt. */
export const NEW_OBJECT_TEMPLATES: Record<string, string> = {
  bundle: `kind: bundle
metadata:
  namespace: main
  name: my-bundle
components:
  - name: app
    code:
      type: helm
      params:
        chartRepo: https://charts.example.com
        chartName: app
        replicas: 1
`,
  service: `kind: service
metadata:
  namespace: main
  name: my-service
contexts:
  - name: default
    allocation:
      bundle: my-bundle
`,
  claim: `kind: claim
metadata:
  namespace: main
  name: my-claim
user: alice
service: my-service
labels:
  env: dev
`,
  rule: `kind: rule
metadata:
  namespace: main
  name: my-rule
weight: 100
criteria:
  require-all:
    - env == 'dev'
actions:
  change-labels:
    set:
      target: my-cluster
`,
  aclrule: `kind: aclrule
metadata:
  namespace: system
  name: my-acl-rule
criteria:
  require-all:
    - team == 'ops'
actions:
  add-role:
    namespace-admin: main
`,
  cluster: `kind: cluster
metadata:
  namespace: system
  name: my-cluster
type: kubernetes
config:
  defaultnamespace: default
`,
};

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
export function templateFor(kind: string, who?: { user: string; grants: readonly TemplateGrant[] }): string {
  let text = NEW_OBJECT_TEMPLATES[kind] ?? NEW_OBJECT_TEMPLATES.bundle!;
  if (!who) return text;
  if (kind === 'claim') text = text.replace(/^user: .*$/m, `user: ${who.user}`);
  if (kind === 'aclrule' || kind === 'cluster') return text;
  const fits = (g: TemplateGrant) => g.namespaces !== '*' && (kind === 'claim' || g.role === 'namespace-admin');
  if (who.grants.some((g) => g.namespaces === '*')) return text;
  const grant = who.grants.find(fits);
  const namespace = grant && grant.namespaces !== '*' ? grant.namespaces[0] : undefined;
  return namespace ? text.replace(/^  namespace: main$/m, `  namespace: ${namespace}`) : text;
}
