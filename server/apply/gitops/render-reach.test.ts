/**
 * Reach matches what is rendered: whatever a namespace admin may accept (a
 * section without `needsDomainAdmin` reasons) is written to the GitOps
 * repository with every object in a Kubernetes namespace the policy
 * namespace is allowed, and nothing cluster-wide. The reach check and the
 * renderer read manifests through one reader and place objects with one
 * function (engine/state/manifest.ts); these tests hold the two together
 * from the outside, through the plan and the rendered files.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { kindScope, planRevision } from '../../engine/plan';
import { EMPTY_STATE, clustersOf, load, resolveYaml, user } from '../../testing/policy-state';
import { parseRenderedFile, renderStep, type RenderedChange } from './render';

type K8sObject = { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string; labels?: Record<string, string> } };

const users = [user('ann')];
/** Kubernetes namespaces team-a may use on c1 besides its target, team-a. */
const CLUSTER = `allowedNamespaces: [{namespace: team-a, kubernetes: [team-a, team-a-jobs]}]`;

/** team-a's bundle deploys `manifest` (raw code) to c1.team-a. */
function policy(manifest: string): string {
  return `
- {kind: cluster, metadata: {namespace: system, name: c1}, type: kubernetes, config: {defaultnamespace: team-a}, ${CLUSTER}}
- kind: bundle
  metadata: {namespace: team-a, name: app}
  components: [{name: web, code: {type: raw, params: {manifest: ${JSON.stringify(manifest)}}}}]
- {kind: service, metadata: {namespace: team-a, name: app}, contexts: [{name: only, allocation: {bundle: app}}]}
- {kind: claim, metadata: {namespace: team-a, name: mine}, user: ann, service: app, labels: {target: 'c1.team-a'}}
`;
}

/** What the reach check says about team-a's section, and what the renderer writes for it. */
function planAndRender(manifest: string): { reasons: string[]; rendered: RenderedChange[] } {
  const yaml = policy(manifest);
  const after = resolveYaml(yaml, users);
  for (const c of after.claims) assert.equal(c.status, 'resolved', `${c.name}: ${c.errors.join('; ')}`);
  const plan = planRevision({ before: EMPTY_STATE, after, clusters: clustersOf(load(yaml)) });
  const section = plan.sections.find((s) => s.namespace === 'team-a');
  assert.ok(section, 'a section for team-a');
  const rendered = plan.steps.filter((s) => s.code?.type === 'raw').map((s) => renderStep(s));
  assert.equal(rendered.length, 1, 'one raw instance');
  return { reasons: section.needsDomainAdmin, rendered };
}

function objectsOf(change: RenderedChange): K8sObject[] {
  assert.equal(change.op, 'write', change.op === 'fail' ? change.error : change.op);
  return parseRenderedFile((change as Extract<RenderedChange, { op: 'write' }>).content) as K8sObject[];
}

/** A list (flow style, so lists nest inside lists). */
const list = (items: string[], kind = 'List') => `{apiVersion: v1, kind: ${kind}, items: [${items.join(', ')}]}`;
const deployment = (ns?: string) => `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web${ns === undefined ? '' : `, namespace: '${ns}'`}}, spec: {replicas: 1}}`;
const roleBinding = (ns?: string) =>
  `{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: rb${ns === undefined ? '' : `, namespace: ${ns}`}}, roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}, subjects: [{kind: User, name: ann}]}`;
const configMap = (name: string, ns?: string) => `{apiVersion: v1, kind: ConfigMap, metadata: {name: ${name}${ns === undefined ? '' : `, namespace: ${ns}`}}, data: {a: b}}`;
const clusterRoleBinding = `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: all}, roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}, subjects: [{kind: User, name: ann}]}`;

describe('reach matches what is rendered', () => {
  test("a List's items without a namespace are written into the target namespace the reach check placed them in", () => {
    const { reasons, rendered } = planAndRender(list([deployment(), roleBinding()]));
    assert.deepEqual(reasons, [], 'a namespace admin may accept it: it stays in team-a');
    const objs = objectsOf(rendered[0]!);
    // The items are written one per document, each with its namespace: no List is left for an applier to default.
    assert.deepEqual(objs.map((o) => [o.kind, o.metadata.namespace]), [['Deployment', 'team-a'], ['RoleBinding', 'team-a']]);
    for (const o of objs) assert.equal(o.metadata.labels?.['app.kubernetes.io/managed-by'], 'keelson');
  });

  test('nested Lists, typed lists and empty namespaces are placed the same way', () => {
    const manifest = list([list([configMap('inner'), deployment('')]), configMap('jobs', 'team-a-jobs')]) + '\n---\n' + list([configMap('typed')], 'ConfigMapList');
    const { reasons, rendered } = planAndRender(manifest);
    assert.deepEqual(reasons, []);
    assert.deepEqual(
      objectsOf(rendered[0]!).map((o) => [o.kind, o.metadata.name, o.metadata.namespace]),
      [
        ['ConfigMap', 'inner', 'team-a'],
        ['Deployment', 'web', 'team-a'],
        ['ConfigMap', 'jobs', 'team-a-jobs'],
        ['ConfigMap', 'typed', 'team-a'],
      ],
    );
  });

  test('a namespace admin cannot reach another namespace or the whole cluster through a List, nested or not', () => {
    const cases: [string, string, RegExp][] = [
      ['item in another namespace', list([deployment(), roleBinding('kube-system')]), /puts RoleBinding "rb" in Kubernetes namespace "kube-system", not team-a/],
      ['nested item in another namespace', list([list([configMap('x', 'kube-system')])]), /puts ConfigMap "x" in Kubernetes namespace "kube-system"/],
      ['cluster-scoped kind in a List', list([deployment(), clusterRoleBinding]), /cluster-scoped kind ClusterRoleBinding \(rbac\.authorization\.k8s\.io\): ClusterRoleBinding "all"/],
      ['cluster-scoped kind in a typed list', list([clusterRoleBinding], 'ClusterRoleBindingList'), /cluster-scoped kind ClusterRoleBinding/],
      // kubectl reads any object with items as a list; kustomize would not: unreadable, so nobody can tell what it reaches.
      ['items on a kind that is not a List', `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nitems:\n  - ${clusterRoleBinding}\n`, /cannot be read.*"items", which kubectl reads as a list/],
      // kubectl would make an item without kind a ClusterRoleBinding here (the list's kind without "List").
      ['item without a kind', list(['{metadata: {name: all}}'], 'ClusterRoleBindingList'), /cannot be read.*item 1 needs string apiVersion and kind/],
      ['lists nested too deep', list([list([list([list([configMap('deep')])])])]), /cannot be read.*nested too deep/],
    ];
    for (const [what, manifest, reason] of cases) {
      const { reasons, rendered } = planAndRender(manifest);
      assert.match(reasons.join('\n'), reason, what);
      // What is written (if anything) is what the reasons describe: cluster-scoped objects carry no namespace.
      const change = rendered[0]!;
      if (change.op === 'write') {
        for (const o of objectsOf(change)) {
          if (kindScope(o.kind, o.apiVersion.includes('/') ? o.apiVersion.split('/')[0]! : '') === 'cluster') assert.equal(o.metadata.namespace, undefined, what);
          else assert.ok(o.metadata.namespace, `${what}: ${o.kind} has a namespace`);
        }
      } else {
        assert.equal(change.op, 'fail', what);
        assert.match(change.op === 'fail' ? change.error : '', /raw manifest/, what);
      }
    }
  });

  test('whenever a namespace admin may accept, every rendered object is namespaced and in an allowed Kubernetes namespace', () => {
    const manifests = [
      list([deployment(), roleBinding()]),
      list([deployment('team-a'), configMap('c', 'team-a-jobs')]),
      `apiVersion: v1\nkind: List\nmetadata: {namespace: team-a}\nitems:\n  - ${roleBinding()}\n`,
      // Anchors and merge keys: the resolved value is what is checked and written.
      `apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: &m {name: a}}\n  - {apiVersion: v1, kind: Secret, metadata: {<<: *m, name: b}}\n`,
      `apiVersion: v1\nkind: ConfigMap\ndata: {where: &ns kube-system}\nmetadata: {name: a, namespace: *ns}\n`,
      `${deployment()}\n---\n${list([configMap('x')])}\n`,
      list([roleBinding('kube-system')]),
      list([clusterRoleBinding]),
    ];
    let accepted = 0;
    for (const manifest of manifests) {
      const { reasons, rendered } = planAndRender(manifest);
      if (reasons.length > 0) continue;
      accepted++;
      for (const o of objectsOf(rendered[0]!)) {
        const group = o.apiVersion.includes('/') ? o.apiVersion.slice(0, o.apiVersion.lastIndexOf('/')) : '';
        assert.equal(kindScope(o.kind, group), 'namespaced', `${manifest}: ${o.kind}`);
        assert.ok(['team-a', 'team-a-jobs'].includes(o.metadata.namespace ?? ''), `${manifest}: ${o.kind} lands in ${o.metadata.namespace}`);
      }
    }
    assert.equal(accepted, 5, 'the cases a namespace admin may accept were checked');
  });
});
