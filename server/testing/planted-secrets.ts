/**
 * Secrets planted in the demo policy, one per way a credential enters it,
 * each a unique string a test can search every answer for:
 *
 *  - an Aptomi cluster's kubeconfig (system/planted-cluster);
 *  - a Landscaper Target's config in social (named like the demo's Keelson
 *    cluster), which an installation's deploy item renders into its chart
 *    values and its export writes into the scope;
 *  - Capact TypeInstances in the three shapes the Hub reads (Keelson's
 *    `value`, Capact's export `latestResourceVersion.spec.value`, a bare
 *    `spec.value`); the first is injected by the Global policy into an
 *    Interface component of a bundle in social, whose code renders it and
 *    whose discovery passes it on to another component;
 *  - Alice's own user secret, rendered by a bundle in social.
 *
 * Who may see each: the platform's credentials (cluster, Target,
 * TypeInstances) domain admins only; Alice's secret, the namespace admins
 * of social too.
 */
export const PLANTED = {
  cluster: 'PLANTED-CLUSTER-KUBE-4b1e77',
  target: 'PLANTED-TARGET-KUBE-93c2d0',
  typeInstance: 'PLANTED-TI-VALUE-7d10e5',
  typeInstanceExport: 'PLANTED-TI-EXPORT-2a44f1',
  typeInstanceSpec: 'PLANTED-TI-SPEC-5e71ab',
  user: 'PLANTED-USER-SECRET-c08f3d',
} as const;

export type Planted = keyof typeof PLANTED;

/** Who may read each planted secret: domain admins, or also the namespace admins of the namespace it was used in. */
export const PLANTED_AUDIENCE: Record<Planted, 'domain-admins' | 'namespace-admins'> = {
  cluster: 'domain-admins',
  target: 'domain-admins',
  typeInstance: 'domain-admins',
  typeInstanceExport: 'domain-admins',
  typeInstanceSpec: 'domain-admins',
  user: 'namespace-admins',
};

/** Alice with her secret, in a users file's words (appended to the demo users). */
export const PLANTED_USER_SECRET = `  secrets: {token: ${PLANTED.user}}\n`;

const LS = 'apiVersion: landscaper.gardener.cloud/v1alpha1';

/** The platform's part, written by a domain admin. */
export const PLANTED_PLATFORM = `kind: cluster
metadata: {namespace: system, name: planted-cluster}
type: kubernetes
config:
  defaultnamespace: apps
  kubeconfig: {users: [{name: admin, user: {token: ${PLANTED.cluster}}}]}
---
${LS}
kind: Target
metadata: {name: k8s-example, namespace: social}
spec:
  type: landscaper.gardener.cloud/kubernetes-cluster
  config: {kubeconfig: ${PLANTED.target}}
---
${LS}
kind: Blueprint
metadata: {name: planted-web, namespace: social}
imports:
  - {name: cluster, targetType: landscaper.gardener.cloud/kubernetes-cluster}
exports:
  - {name: access, type: data, schema: {type: string}}
deployExecutions:
  - name: deploy
    type: GoTemplate
    template: |
      deployItems:
        - name: web
          type: landscaper.gardener.cloud/helm
          target: {import: cluster}
          config:
            chart: {ref: "eu.gcr.io/charts/planted-web:v0.1.0"}
            namespace: west
            values: {kube: "{{ .imports.cluster.spec.config.kubeconfig }}"}
exportExecutions:
  - name: export
    type: GoTemplate
    template: |
      exports:
        access: "{{ .imports.cluster.spec.config.kubeconfig }}"
---
${LS}
kind: Installation
metadata: {name: planted, namespace: social}
spec:
  blueprint: {ref: {resourceName: planted-web}}
  imports:
    targets: [{name: cluster, target: k8s-example}]
  exports:
    data: [{name: access, dataRef: planted-access}]
---
ocfVersion: 0.0.1
revision: 0.1.0
kind: Interface
metadata: {prefix: cap.interface.planted.db, name: install}
spec: {input: {}, output: {}}
---
ocfVersion: 0.0.1
revision: 0.1.0
kind: Implementation
metadata: {prefix: cap.implementation.planted.db, name: install}
spec:
  implements: [{path: cap.interface.planted.db.install, revision: 0.1.0}]
  requires:
    cap.type.planted:
      allOf:
        - {name: creds, alias: creds, revision: 0.1.0}
  keelson:
    code: {type: helm, params: {chartRepo: https://charts.example.com, chartName: planted-db, password: "{{ .Capact.TypeInstances.creds.Value.password }}"}}
---
kind: typeinstance
metadata: {namespace: system, name: planted-ti}
typeRef: {path: cap.type.planted.creds, revision: 0.1.0}
value: {password: ${PLANTED.typeInstance}}
---
id: planted-ti-export
typeRef: {path: cap.type.planted.other, revision: 0.1.0}
latestResourceVersion: {resourceVersion: 1, spec: {value: {password: ${PLANTED.typeInstanceExport}}}}
---
id: planted-ti-spec
typeRef: {path: cap.type.planted.other, revision: 0.1.0}
spec: {value: {password: ${PLANTED.typeInstanceSpec}}}
---
kind: policy
metadata: {namespace: system, name: global}
interface:
  rules:
    - interface: {path: cap.interface.planted.db.install}
      oneOf:
        - implementationConstraints: {}
          inject:
            requiredTypeInstances: [{id: planted-ti, description: the planted database credentials}]
`;

/** Social's part, written by its namespace admin (or a domain admin): bundles that render the secrets, and their services. */
export const PLANTED_SOCIAL = `- kind: bundle
  metadata: {namespace: social, name: planted-db}
  components:
    - name: db
      interface: cap.interface.planted.db.install
      discovery: {password: '{{ .Capact.TypeInstances.creds.Value.password }}'}
    - name: app
      dependencies: [db]
      code: {type: helm, params: {chartName: planted-app, chartRepo: https://charts.example.com, dsn: 'postgres://app:{{ .Discovery.db.password }}@db'}}
- kind: service
  metadata: {namespace: social, name: planted-db}
  contexts: [{name: only, allocation: {bundle: planted-db}}]
- kind: bundle
  metadata: {namespace: social, name: planted-user}
  components:
    - name: web
      code: {type: helm, params: {chartName: planted-user, chartRepo: https://charts.example.com, token: '{{ .User.Secrets.token }}'}}
- kind: service
  metadata: {namespace: social, name: planted-user}
  contexts: [{name: only, allocation: {bundle: planted-user}}]
`;

/** Alice's claims of both, in her own name. */
export const PLANTED_CLAIMS = `- {kind: claim, metadata: {namespace: social, name: alice_planted_db}, user: Alice, service: planted-db, labels: {target: k8s-example.west}}
- {kind: claim, metadata: {namespace: social, name: alice_planted_user}, user: Alice, service: planted-user, labels: {target: k8s-example.west}}
`;

/** Which planted secrets a response holds. */
export function plantedIn(text: string): Planted[] {
  return (Object.keys(PLANTED) as Planted[]).filter((k) => text.includes(PLANTED[k]));
}
