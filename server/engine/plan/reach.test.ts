/**
 * A section's reach: the clusters, Kubernetes namespaces, cluster-scoped
 * kinds and chart repositories it deploys, checked against what each target
 * cluster allows for the section's policy namespace. Anything past that is a
 * `needsDomainAdmin` reason (a namespace admin may not accept the section).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadObjects } from '../model/validate';
import type { Cluster } from '../model/kinds';
import type { DesiredState, Instance } from '../resolve';
import { instanceReach, planRevision, type RevisionPlan } from './index';
import { EMPTY_STATE, clustersOf, load, resolveYaml, user } from '../../testing/policy-state';

const users = [user('ann'), user('bo')];

/** One cluster `c1` with `extra` (YAML flow fields), team-a's bundle with `code`, a claim placing it on `target`. */
function policy(opts: { cluster?: string; code: string; target?: string; withTeamB?: boolean }): string {
  return `
- {kind: cluster, metadata: {namespace: system, name: c1}, type: kubernetes, config: {defaultnamespace: team-a}${opts.cluster ? `, ${opts.cluster}` : ''}}
- kind: bundle
  metadata: {namespace: team-a, name: app}
  components:
    - name: web
      code: ${opts.code}
- {kind: service, metadata: {namespace: team-a, name: app}, contexts: [{name: only, allocation: {bundle: app}}]}
- {kind: claim, metadata: {namespace: team-a, name: mine}, user: ann, service: app, labels: {target: '${opts.target ?? 'c1'}'}}
${
  opts.withTeamB
    ? `- {kind: bundle, metadata: {namespace: team-b, name: app}, components: [{name: web, code: {type: helm, params: {chartRepo: 'https://charts.ok', chartName: b}}}]}
- {kind: service, metadata: {namespace: team-b, name: app}, contexts: [{name: only, allocation: {bundle: app}}]}
- {kind: claim, metadata: {namespace: team-b, name: theirs}, user: bo, service: app, labels: {target: 'c1.team-b'}}`
    : ''
}`;
}

function planOf(yaml: string, before: DesiredState | null = EMPTY_STATE): RevisionPlan {
  const after = resolveYaml(yaml, users);
  for (const c of after.claims) assert.equal(c.status, 'resolved', `${c.name}: ${c.errors.join('; ')}`);
  return planRevision({ before, after, clusters: clustersOf(load(yaml)) });
}

function reasons(yaml: string, ns = 'team-a'): string[] {
  const s = planOf(yaml).sections.find((x) => x.namespace === ns);
  assert.ok(s, `a section for ${ns}`);
  return s.needsDomainAdmin;
}

const helm = (repo = 'https://charts.ok') => `{type: helm, params: {chartRepo: '${repo}', chartName: web}}`;
/** Raw code whose manifest is `text` (YAML block text, indented for the bundle above). */
const raw = (text: string) => `\n        type: raw\n        params:\n          manifest: |\n${text.trim().split('\n').map((l) => `            ${l}`).join('\n')}`;
const deployment = (ns?: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web${ns ? `\n  namespace: ${ns}` : ''}
spec: {replicas: 1}`;

describe('target clusters and Kubernetes namespaces', () => {
  test('a cluster without allowedNamespaces or chartRepositories restricts nothing (as before the fields existed)', () => {
    assert.deepEqual(reasons(policy({ code: helm('https://anywhere.example'), target: 'c1.any-ns' })), []);
  });

  test('a cluster that does not list the policy namespace: the section needs a domain admin, and says which cluster', () => {
    const r = reasons(policy({ cluster: 'allowedNamespaces: [team-b]', code: helm() }));
    assert.deepEqual(r, ['cluster system/c1 does not allow policy namespace team-a']);
  });

  test('a listed policy namespace deploys into the Kubernetes namespace of its own name, and only there', () => {
    assert.deepEqual(reasons(policy({ cluster: 'allowedNamespaces: [team-a]', code: helm(), target: 'c1.team-a' })), []);
    assert.deepEqual(reasons(policy({ cluster: 'allowedNamespaces: [team-a]', code: helm(), target: 'c1.kube-system' })), [
      'Kubernetes namespace kube-system on cluster system/c1 is not allowed for policy namespace team-a',
    ]);
  });

  test('patterns: "team-*" with Kubernetes namespaces "{namespace}" and "{namespace}-*"', () => {
    const cluster = `allowedNamespaces: [{namespace: 'team-*', kubernetes: ['{namespace}', '{namespace}-*']}]`;
    assert.deepEqual(reasons(policy({ cluster, code: helm(), target: 'c1.team-a-dev' })), []);
    assert.deepEqual(reasons(policy({ cluster, code: helm(), target: 'c1.team-b' })), [
      'Kubernetes namespace team-b on cluster system/c1 is not allowed for policy namespace team-a',
    ]);
  });

  test('an empty list admits nobody without a domain admin', () => {
    assert.deepEqual(reasons(policy({ cluster: 'allowedNamespaces: []', code: helm() })), ['cluster system/c1 does not allow policy namespace team-a']);
  });

  test('only the section that reaches past is marked; the other namespace stays a namespace admin\'s to accept', () => {
    const p = planOf(policy({ cluster: `allowedNamespaces: [team-b]`, code: helm(), withTeamB: true, target: 'c1.team-a' }));
    assert.deepEqual(
      p.sections.map((s) => [s.namespace, s.needsDomainAdmin.length]),
      [['team-a', 1], ['team-b', 0]],
    );
  });
});

describe('chart repositories', () => {
  const cluster = `chartRepositories: ['https://charts.ok', 'oci://registry.ok/charts/*']`;

  test('a chart from a repository the cluster does not list needs a domain admin, named without its credentials', () => {
    const r = reasons(policy({ cluster, code: helm('https://user:token@charts.evil.example/') }));
    assert.equal(r.length, 1);
    assert.match(r[0]!, /^chart repository https:\/\/charts\.evil\.example is not allowed on cluster system\/c1 \(instance .*#web\)$/);
    assert.doesNotMatch(r[0]!, /token/);
  });

  test('listed repositories pass, a trailing slash aside, and "*" patterns match', () => {
    assert.deepEqual(reasons(policy({ cluster, code: helm('https://charts.ok/') })), []);
    assert.deepEqual(reasons(policy({ cluster, code: helm('oci://registry.ok/charts/web') })), []);
    assert.equal(reasons(policy({ cluster, code: helm('oci://registry.ok/other/web') })).length, 1);
  });
});

describe('raw manifests', () => {
  test('a cluster-scoped kind (ClusterRole) needs a domain admin, even on an open cluster', () => {
    const r = reasons(policy({ code: raw(`apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\nrules: []`) }));
    assert.equal(r.length, 1);
    assert.match(r[0]!, /raw manifest of instance .*#web has cluster-scoped kind ClusterRole \(rbac\.authorization\.k8s\.io\): ClusterRole "reader"$/);
  });

  test('objects in the target namespace (or none named) pass; another Kubernetes namespace needs a domain admin', () => {
    assert.deepEqual(reasons(policy({ code: raw(deployment()), target: 'c1.team-a' })), []);
    assert.deepEqual(reasons(policy({ code: raw(deployment('team-a')), target: 'c1.team-a' })), []);
    const r = reasons(policy({ code: raw(deployment('kube-system')), target: 'c1.team-a' }));
    assert.equal(r.length, 1);
    assert.match(r[0]!, /puts Deployment "web" in Kubernetes namespace "kube-system", not team-a$/);
  });

  test('another Kubernetes namespace that the cluster allows for the policy namespace passes', () => {
    const cluster = `allowedNamespaces: [{namespace: team-a, kubernetes: [team-a, team-a-jobs]}]`;
    assert.deepEqual(reasons(policy({ cluster, code: raw(deployment('team-a-jobs')), target: 'c1.team-a' })), []);
  });

  test('a kind the engine cannot place (a custom resource, or a built-in name in another API group) needs a domain admin', () => {
    const r = reasons(policy({ code: raw(`apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: x}\n---\napiVersion: evil.example/v1\nkind: Deployment\nmetadata: {name: y}`) }));
    assert.deepEqual(
      r.map((x) => x.replace(/^raw manifest of instance \S+ /, '')),
      [
        'has kind ClusterIssuer (cert-manager.io), whose scope is unknown (custom resources may be cluster-scoped)',
        'has kind Deployment (evil.example), whose scope is unknown (custom resources may be cluster-scoped)',
      ],
    );
  });

  test('a List, anchors and aliases are read as kubectl reads them; an alias bomb is unreadable, so it needs a domain admin', () => {
    const listed = reasons(policy({ code: raw(`apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Namespace, metadata: {name: taken}}`) }));
    assert.match(listed.join('\n'), /cluster-scoped kind Namespace: Namespace "taken"/);
    // The namespace hides behind an anchor and an alias (and a comment): the parsed value counts, not the text.
    const aliased = reasons(policy({ code: raw(`apiVersion: v1\nkind: ConfigMap\ndata: {where: &ns kube-system} # the namespace: team-a\nmetadata: {name: a, namespace: *ns}`) }));
    assert.equal(aliased.length, 1);
    assert.match(aliased[0]!, /puts ConfigMap "a" in Kubernetes namespace "kube-system"/);
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}]`);
    const r = reasons(policy({ code: raw(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  ${bomb.join('\n  ')}`) }));
    assert.equal(r.length, 1);
    assert.match(r[0]!, /raw manifest of instance .* cannot be read, so what it deploys is unknown/);
  });

  test('removing a ClusterRole needs a domain admin; removing your own release from a cluster that no longer admits you does not', () => {
    const cr = policy({ code: raw(`apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\nrules: []`) });
    const running = resolveYaml(cr, users);
    const gone = cr.replace(/- \{kind: claim[^\n]*\n/, '');
    const p = planRevision({ before: running, after: resolveYaml(gone, users), clusters: clustersOf(load(gone)) });
    assert.equal(p.counts.delete, 2);
    assert.match(p.sections[0]!.needsDomainAdmin.join('\n'), /cluster-scoped kind ClusterRole/);

    const h = policy({ code: helm('https://charts.ok') });
    const closed = h.replace("defaultnamespace: team-a}", "defaultnamespace: team-a}, allowedNamespaces: []").replace(/- \{kind: claim[^\n]*\n/, '');
    const p2 = planRevision({ before: resolveYaml(h, users), after: resolveYaml(closed, users), clusters: clustersOf(load(closed)) });
    assert.equal(p2.counts.delete, 2);
    assert.deepEqual(p2.sections[0]!.needsDomainAdmin, []);
  });

  test('values rendered from secrets are withheld from the reasons anyone reading the revision sees', () => {
    const inst = {
      key: 'c1#k#team-a#app#only#ann#web',
      namespace: 'team-a',
      target: { clusterNamespace: 'system', cluster: 'c1', namespace: 'team-a' },
      code: { type: 'raw', params: { manifest: 'apiVersion: v1\nkind: Secret\nmetadata: {name: s3cr3t-name, namespace: s3cr3t-ns}' } },
      sensitive: 'namespace-admins',
    } as unknown as Instance;
    const r = instanceReach(inst, 'team-a', new Map([['system/c1', {} as Cluster]]));
    assert.equal(r.length, 1);
    assert.doesNotMatch(r[0]!, /s3cr3t/);
    assert.match(r[0]!, /puts Secret in Kubernetes namespace \(withheld: rendered from secrets\), not team-a/);
  });
});

describe('what a section deploys (for reviewers)', () => {
  test('target clusters with their Kubernetes namespaces, chart repositories, cluster-wide kinds, other namespaces', () => {
    const helmPlan = planOf(policy({ code: helm('https://user:pw@charts.ok/'), target: 'c1.team-a', withTeamB: true }));
    assert.deepEqual(
      helmPlan.sections.map((s) => [s.namespace, s.deploys]),
      [
        ['team-a', { targets: [{ cluster: 'system/c1', namespaces: ['team-a'] }], chartRepositories: ['https://charts.ok'], clusterKinds: [], otherNamespaces: [] }],
        ['team-b', { targets: [{ cluster: 'system/c1', namespaces: ['team-b'] }], chartRepositories: ['https://charts.ok'], clusterKinds: [], otherNamespaces: [] }],
      ],
    );
    const manifest = `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: x}\n---\n${deployment('team-a-jobs')}\n---\n${deployment()}`;
    const rawPlan = planOf(policy({ code: raw(manifest), target: 'c1.team-a' }));
    assert.deepEqual(rawPlan.sections[0]!.deploys, {
      targets: [{ cluster: 'system/c1', namespaces: ['team-a'] }],
      chartRepositories: [],
      clusterKinds: ['ClusterRoleBinding (rbac.authorization.k8s.io)'],
      otherNamespaces: ['team-a-jobs'],
    });
  });
});

describe('the cluster schema', () => {
  test('allowedNamespaces and chartRepositories are checked where they are written', () => {
    const r = loadObjects(`kind: cluster
metadata: {namespace: system, name: c}
type: kubernetes
allowedNamespaces: [team-a, {namespace: 'b*', kubernetes: ['{namespace}', 'Bad_NS']}, {namespace: x, kubernetes: []}]
chartRepositories: [https://charts.ok]
`);
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
    assert.equal(errors.length, 2, errors.join('\n'));
    assert.match(errors.join('\n'), /must be a Kubernetes namespace or a pattern/);
    assert.match(errors.join('\n'), /must list at least one Kubernetes namespace/);
    const ok = loadObjects(`kind: cluster\nmetadata: {namespace: system, name: c}\ntype: kubernetes\nallowedNamespaces: ['*']\nchartRepositories: ['oci://r/*']\n`);
    assert.deepEqual(ok.diagnostics.filter((d) => d.severity === 'error'), []);
  });
});
