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
