/**
 * The authorisation matrix: every role × every action, through the tRPC
 * callers on PGlite, with the expected allow or deny. A denial must leave
 * the policy unchanged.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { openDb, type DbHandle } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import type { Actor } from '../services/actor';
import { REDACTED } from '../services/policy';
import { createCaller } from './root';

type Role = 'domain admin' | 'namespace admin (team-a)' | 'namespace admin (other)' | 'service consumer (team-a)' | 'tenant owner' | 'tenant admin' | 'tenant plain' | 'non-member' | 'anonymous';
const ROLES: Role[] = ['domain admin', 'namespace admin (team-a)', 'namespace admin (other)', 'service consumer (team-a)', 'tenant owner', 'tenant admin', 'tenant plain', 'non-member', 'anonymous'];

const ACTORS: Record<Exclude<Role, 'anonymous'>, Actor> = {
  'domain admin': { id: 'local:Sam', name: 'Sam', labels: { global_ops: 'true' }, provider: 'test' },
  'namespace admin (team-a)': { id: 'local:olivia', name: 'olivia', labels: { ops_team_a: 'true' }, provider: 'test' },
  'namespace admin (other)': { id: 'local:John', name: 'John', labels: { is_operator: 'true' }, provider: 'test' },
  'service consumer (team-a)': { id: 'local:vera', name: 'vera', labels: { consumer_team_a: 'true' }, provider: 'test' },
  'tenant owner': { id: 'local:tom', name: 'tom', labels: {}, provider: 'test' },
  'tenant admin': { id: 'local:ada', name: 'ada', labels: {}, provider: 'test' },
  'tenant plain': { id: 'local:pat', name: 'pat', labels: {}, provider: 'test' },
  'non-member': { id: 'local:nina', name: 'nina', labels: {}, provider: 'test' },
};

const NS_KINDS = ['bundle', 'service', 'claim', 'rule'] as const;
const SYS_KINDS = ['cluster', 'aclrule'] as const;
type Kind = (typeof NS_KINDS)[number] | (typeof SYS_KINDS)[number];

function objectYaml(kind: Kind, name: string, variant = '', user = 'Sam'): string {
  const ns = kind === 'cluster' || kind === 'aclrule' ? 'system' : 'team-a';
  const head = `kind: ${kind}\nmetadata: {namespace: ${ns}, name: ${name}}\n`;
  switch (kind) {
    case 'bundle':
      return head + `components: [{name: web, code: {type: helm, params: {chartName: web${variant}, chartRepo: https://charts.example.com}}}]\n`;
    case 'service':
      return head + `contexts: [{name: only${variant}, allocation: {bundle: b0}}]\n`;
    case 'claim':
      return head + `user: ${user}\nservice: s0\nlabels: {target: k8s-example.west, v: '${variant || '0'}'}\n`;
    case 'rule':
      return head + `weight: 7\ncriteria: {require-all: ["x == '${variant || '0'}'"]}\nactions: {claim: reject}\n`;
    case 'cluster':
      return head + `type: kubernetes\nconfig: {defaultnamespace: d${variant || '0'}}\n`;
    case 'aclrule':
      return head + `criteria: {require-all: ["never${variant} == true"]}\nactions: {add-role: {service-consumer: nowhere}}\n`;
  }
}

/** What each role may change, by kind (create, update and delete alike). */
const MAY_MANAGE: Record<Role, readonly Kind[]> = {
  'domain admin': [...NS_KINDS, ...SYS_KINDS],
  'namespace admin (team-a)': NS_KINDS,
  'namespace admin (other)': [],
  'service consumer (team-a)': ['claim'],
  'tenant owner': NS_KINDS,
  'tenant admin': NS_KINDS,
  'tenant plain': ['claim'],
  'non-member': [],
  anonymous: [],
};
const MAY_READ_SECRET: readonly Role[] = ['domain admin'];
/** Saving or removing a claim in another user's name: namespace admins of its namespace and domain admins. */
const MAY_ACT_FOR_OTHERS: readonly Role[] = ['domain admin', 'namespace admin (team-a)', 'tenant owner', 'tenant admin'];
const MAY_ACCEPT_SECTION: readonly Role[] = ['domain admin', 'namespace admin (team-a)', 'tenant owner', 'tenant admin'];
/** A section that deploys beyond its policy namespace (cluster, Kubernetes namespace, cluster-scoped kind, chart repository). */
const MAY_ACCEPT_REACHING_SECTION: readonly Role[] = ['domain admin'];

/**
 * Sections of team-a that reach past it, each with the reason the revision
 * gives. The demo cluster admits team-a in Kubernetes namespace west, with
 * charts from its listed repositories (server/seed/demo-cluster.yaml).
 */
const REACHING: { what: string; code: string; target?: string; cluster?: string; reason: RegExp }[] = [
  {
    what: 'a ClusterRole',
    code: `{type: raw, params: {manifest: ${JSON.stringify('apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: everything}\nrules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]\n')}}}`,
    reason: /cluster-scoped kind ClusterRole \(rbac\.authorization\.k8s\.io\): ClusterRole "everything"/,
  },
  {
    what: 'an object in another Kubernetes namespace',
    code: `{type: raw, params: {manifest: ${JSON.stringify('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: planted, namespace: kube-system}\n')}}}`,
    reason: /puts ConfigMap "planted" in Kubernetes namespace "kube-system", not west/,
  },
  {
    what: 'a chart from a repository the cluster does not list',
    code: `{type: helm, params: {chartRepo: 'https://charts.elsewhere.example', chartName: web}}`,
    reason: /chart repository https:\/\/charts\.elsewhere\.example is not allowed on cluster system\/k8s-example/,
  },
  {
    what: 'a cluster that does not admit team-a',
    code: `{type: helm, params: {chartRepo: 'https://charts.example.com', chartName: web}}`,
    target: 'locked',
    cluster: `kind: cluster\nmetadata: {namespace: system, name: locked}\ntype: kubernetes\nallowedNamespaces: [platform]\n`,
    reason: /cluster system\/locked does not allow policy namespace team-a/,
  },
  {
    what: 'another Kubernetes namespace of the demo cluster',
    code: `{type: helm, params: {chartRepo: 'https://charts.example.com', chartName: web}}`,
    target: 'k8s-example.kube-system',
    reason: /Kubernetes namespace kube-system on cluster system\/k8s-example is not allowed for policy namespace team-a/,
  },
];
const MAY_MANAGE_MEMBERS: readonly Role[] = ['domain admin', 'tenant owner', 'tenant admin'];
const MAY_INVITE: readonly Role[] = ['domain admin', 'tenant owner', 'tenant admin'];
/** Raising a member to owner needs owner rights (nobody raises anyone above their own role). */
const MAY_MAKE_OWNER: readonly Role[] = ['domain admin', 'tenant owner'];

describe('authorisation matrix (tRPC callers on PGlite)', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  let dir: string;
  const call = (role: Role) => createCaller({ actor: role === 'anonymous' ? null : ACTORS[role], services });
  const outcome = async (p: Promise<unknown>): Promise<'allow' | 'deny' | 'unauthenticated' | string> => {
    try {
      await p;
      return 'allow';
    } catch (e) {
      if (e instanceof TRPCError && e.code === 'FORBIDDEN') return 'deny';
      if (e instanceof TRPCError && e.code === 'UNAUTHORIZED') return 'unauthenticated';
      return `unexpected ${(e as Error).message}`;
    }
  };
  const want = (role: Role, allowed: boolean) => (role === 'anonymous' ? 'unauthenticated' : allowed ? 'allow' : 'deny');
  const head = () => repos.policy.head();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-authz-'));
    const usersFile = join(dir, 'users.yaml');
    const names = ['Sam', 'olivia', 'John', 'vera', 'tom', 'ada', 'pat', 'pat2', 'nina', ...ROLES.map((_, i) => `inv${i}`)];
    // Labels as policy sees them (resolution's consume check reads these): Sam is a domain admin.
    writeFileSync(usersFile, names.map((n) => `- name: ${n}\n  labels: {${n === 'Sam' ? 'global_ops: true' : ''}}\n`).join(''));
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    services = createServices(repos, { usersFile, domainAdmins: [] });
    const sam = call('domain admin');
    // The ACL rules that make olivia namespace admin and vera service consumer of team-a.
    await sam.policy.applyText({
      baseGeneration: await head(),
      text: `- {kind: aclrule, metadata: {namespace: system, name: team-a-ops}, criteria: {require-all: [ops_team_a]}, actions: {add-role: {namespace-admin: team-a}}}
- {kind: aclrule, metadata: {namespace: system, name: team-a-consumers}, criteria: {require-all: [consumer_team_a]}, actions: {add-role: {service-consumer: team-a}}}`,
    });
    // A credential to keep secret, and the base objects to update.
    const cluster = await sam.policy.get({ kind: 'cluster', namespace: 'system', name: 'k8s-example' });
    await sam.policy.applyText({ baseGeneration: await head(), text: cluster.text.replace(/kubeconfig:.*\n/, 'kubeconfig: very-secret-kubeconfig\n') });
    await sam.policy.applyText({
      baseGeneration: await head(),
      text: [...NS_KINDS.map((k) => objectYaml(k, `${k[0]}0`)), ...SYS_KINDS.map((k) => objectYaml(k, `${k}-base`))].join('---\n'),
    });
    // Tenant team-a: tom owns it, ada admin, pat and pat2 plain.
    const tom = createCaller({ actor: ACTORS['tenant owner'], services });
    await tom.tenants.create({ name: 'team-a', namespaces: [] });
    await sam.tenants.addNamespace({ tenant: 'team-a', namespace: 'team-a' });
    for (const [user, role] of [['ada', 'admin'], ['pat', 'plain'], ['pat2', 'plain']] as const) {
      const inv = await tom.tenants.invite({ tenant: 'team-a', user, role });
      await createCaller({ actor: { id: `local:${user}`, name: user, labels: {}, provider: 'test' }, services }).tenants.answer({ invitationId: inv.id, accept: true, role });
    }
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [i, role] of ROLES.entries()) {
    describe(role, () => {
      test('read an object', async () => {
        assert.equal(await outcome(call(role).policy.get({ kind: 'bundle', namespace: 'platform', name: 'kafka' })), want(role, true));
      });

      test('read a secret field (a cluster kubeconfig)', async () => {
        if (role === 'anonymous') {
          assert.equal(await outcome(call(role).policy.get({ kind: 'cluster', namespace: 'system', name: 'k8s-example' })), 'unauthenticated');
          return;
        }
        const c = await call(role).policy.get({ kind: 'cluster', namespace: 'system', name: 'k8s-example' });
        const sees = c.text.includes('very-secret-kubeconfig');
        assert.equal(sees, MAY_READ_SECRET.includes(role), `${role} ${sees ? 'sees' : 'does not see'} the kubeconfig`);
        if (!sees) assert.ok(c.text.includes(REDACTED));
        const gen = await call(role).policy.generation({ generation: await head() });
        assert.equal(JSON.stringify(gen).includes('very-secret-kubeconfig'), MAY_READ_SECRET.includes(role), 'generation reads too');
      });

      for (const kind of [...NS_KINDS, ...SYS_KINDS]) {
        test(`create, update and delete a ${kind}`, async () => {
          const allowed = MAY_MANAGE[role].includes(kind);
          const me = call(role);
          const sam = call('domain admin');
          const ns = kind === 'cluster' || kind === 'aclrule' ? 'system' : 'team-a';
          // Claims here are in the acting user's own name (claiming for others has its own row below).
          const own = role === 'anonymous' ? 'Sam' : ACTORS[role].name;
          const yaml = (name: string, variant = '') => objectYaml(kind, name, variant, own);
          const before = await head();
          assert.equal(await outcome(me.policy.applyText({ text: yaml(`new-${i}`), baseGeneration: before })), want(role, allowed), `create ${kind}`);
          assert.equal(await head(), allowed ? before + 1 : before, 'a denied write writes nothing');
          let base = kind === 'cluster' || kind === 'aclrule' ? `${kind}-base` : `${kind[0]}0`;
          if (kind === 'claim') {
            base = `mine-${i}`;
            await sam.policy.applyText({ text: yaml(base), baseGeneration: await head() });
          }
          const current = await sam.policy.get({ kind, namespace: ns, name: base });
          const h2 = await head();
          assert.equal(
            await outcome(me.policy.save({ id: { kind, namespace: ns, name: base }, text: yaml(base, `u${i}`), baseGeneration: h2 })),
            want(role, allowed),
            `update ${kind}`,
          );
          assert.equal(await head(), allowed ? h2 + 1 : h2);
          void current;
          await sam.policy.applyText({ text: yaml(`del-${i}`), baseGeneration: await head() });
          const h3 = await head();
          assert.equal(await outcome(me.policy.delete({ ids: [{ kind, namespace: ns, name: `del-${i}` }], baseGeneration: h3 })), want(role, allowed), `delete ${kind}`);
          assert.equal(await head(), allowed ? h3 + 1 : h3);
        });
      }

      test("save, take over and delete a claim in another user's name", async () => {
        const me = call(role);
        const sam = call('domain admin');
        const may = MAY_ACT_FOR_OTHERS.includes(role);
        const before = await head();
        // Sam's name on a new claim: the claim would resolve with Sam's labels, secrets and rights.
        const created = await outcome(me.policy.applyText({ text: objectYaml('claim', `for-sam-${i}`), baseGeneration: before }));
        assert.equal(created, want(role, may), 'create in Sam\'s name');
        assert.equal(await head(), may ? before + 1 : before, 'a refused save writes nothing');
        if (role === 'anonymous') return;
        const me2 = ACTORS[role].name;
        // Taking over Sam's claim (rewriting it in one's own name) acts against Sam too.
        await sam.policy.applyText({ text: objectYaml('claim', `sams-${i}`), baseGeneration: await head() });
        const takeOver = await outcome(me.policy.save({ id: { kind: 'claim', namespace: 'team-a', name: `sams-${i}` }, text: objectYaml('claim', `sams-${i}`, 'x', me2), baseGeneration: await head() }));
        assert.equal(takeOver, want(role, may), 'take over Sam\'s claim');
        // The audit trail names who wrote it, not the user the claim names.
        if (may) assert.equal((await repos.policy.getGeneration(await head()))?.author, me2);
        await sam.policy.applyText({ text: objectYaml('claim', `sams2-${i}`), baseGeneration: await head() });
        assert.equal(await outcome(me.policy.delete({ ids: [{ kind: 'claim', namespace: 'team-a', name: `sams2-${i}` }], baseGeneration: await head() })), want(role, may), 'delete Sam\'s claim');
        if (!may && MAY_MANAGE[role].includes('claim')) {
          const err = await me.policy.applyText({ text: objectYaml('claim', `for-sam2-${i}`), baseGeneration: await head() }).catch((e: Error) => e);
          assert.match((err as Error).message, /in the name of user "Sam".*own name \("user: /);
        }
      });

      test('accept a section of a revision in team-a', async () => {
        const sam = call('domain admin');
        // A fresh revision with a team-a section (the claim's variant changes the bundle's instances' labels only: bump the chart).
        const gen = (await sam.policy.applyText({ text: objectYaml('bundle', 'b0', `acc${i}`), baseGeneration: await head() })).generation;
        const found = await sam.revisions.byGeneration({ generation: gen, wait: true });
        assert.ok(found.id != null, `revision of generation ${gen}: ${found.status}`);
        const rev = { id: found.id };
        if (role === 'anonymous') {
          assert.equal(await outcome(call(role).revisions.decide({ revisionId: rev.id, namespace: 'team-a', decision: 'accept' })), 'unauthenticated');
          return;
        }
        const view = await call(role).revisions.get({ id: rev.id });
        const section = view.sections.find((s) => s.namespace === 'team-a');
        assert.ok(section, JSON.stringify(view.sections.map((s) => s.namespace)));
        assert.equal(section.canDecide, MAY_ACCEPT_SECTION.includes(role), section.reason);
        const res = await outcome(call(role).revisions.decide({ revisionId: rev.id, namespace: 'team-a', decision: 'accept' }));
        assert.equal(res, want(role, MAY_ACCEPT_SECTION.includes(role)));
      });

      for (const [j, c] of REACHING.entries()) {
        test(`accept a section of team-a that deploys ${c.what}`, async () => {
          const sam = call('domain admin');
          const name = `reach-${i}-${j}`;
          const objects = [
            `kind: bundle\nmetadata: {namespace: team-a, name: ${name}}\ncomponents: [{name: web, code: ${c.code}}]\n`,
            `kind: service\nmetadata: {namespace: team-a, name: ${name}}\ncontexts: [{name: only, allocation: {bundle: ${name}}}]\n`,
            `kind: claim\nmetadata: {namespace: team-a, name: ${name}}\nuser: Sam\nservice: ${name}\nlabels: {target: '${c.target ?? 'k8s-example.west'}'}\n`,
          ];
          const gen = (await sam.policy.applyText({ text: [...(c.cluster ? [c.cluster] : []), ...objects].join('---\n'), baseGeneration: await head() })).generation;
          try {
            const found = await sam.revisions.byGeneration({ generation: gen, wait: true });
            assert.ok(found.id != null, `revision of generation ${gen}: ${found.status}`);
            if (role === 'anonymous') {
              assert.equal(await outcome(call(role).revisions.decide({ revisionId: found.id, namespace: 'team-a', decision: 'accept' })), 'unauthenticated');
              return;
            }
            const view = await call(role).revisions.get({ id: found.id });
            const section = view.sections.find((s) => s.namespace === 'team-a');
            assert.ok(section, JSON.stringify(view.sections.map((s) => s.namespace)));
            // Every reader sees what reaches past the namespace; those who could accept team-a otherwise are told exactly that.
            assert.match(section.needsDomainAdmin.join('\n'), c.reason);
            const may = MAY_ACCEPT_REACHING_SECTION.includes(role);
            assert.equal(section.canDecide, may, section.reason);
            if (!may && MAY_ACCEPT_SECTION.includes(role)) {
              assert.match(section.reason ?? '', /^Section team-a reaches past policy namespace team-a: .*Only a domain admin may accept it\.$/);
              assert.match(section.reason ?? '', c.reason);
            }
            assert.equal(await outcome(call(role).revisions.decide({ revisionId: found.id, namespace: 'team-a', decision: 'accept' })), want(role, may));
          } finally {
            // Later rows (and roles) need a team-a that reaches nowhere: nothing is ever applied here, so every revision diffs against all of it.
            const ids = ['bundle', 'service', 'claim'].map((kind) => ({ kind, namespace: 'team-a', name }));
            if (c.cluster) ids.push({ kind: 'cluster', namespace: 'system', name: 'locked' });
            await sam.policy.delete({ ids, baseGeneration: await head() });
          }
        });
      }

      test('manage tenant members, invite, change roles', async () => {
        const me = call(role);
        const mayManage = MAY_MANAGE_MEMBERS.includes(role);
        assert.equal(await outcome(me.tenants.changeRole({ tenant: 'team-a', user: 'pat2', role: 'plain' })), want(role, mayManage), 'change a plain member');
        assert.equal(await outcome(me.tenants.invite({ tenant: 'team-a', user: `inv${i}`, role: 'plain' })), want(role, MAY_INVITE.includes(role)), 'invite');
        assert.equal(await outcome(me.tenants.changeRole({ tenant: 'team-a', user: 'pat2', role: 'owner' })), want(role, MAY_MAKE_OWNER.includes(role)), 'raise to owner');
        if (MAY_MAKE_OWNER.includes(role)) await call('tenant owner').tenants.changeRole({ tenant: 'team-a', user: 'pat2', role: 'plain' });
        assert.equal(await outcome(me.tenants.get({ name: 'team-a' })), want(role, !['namespace admin (team-a)', 'namespace admin (other)', 'service consumer (team-a)', 'non-member'].includes(role)), 'see the tenant');
      });
    });
  }

  test('the last owner can neither leave nor be demoted; a tenant running services cannot be removed', async () => {
    const tom = call('tenant owner');
    assert.match(await outcome(tom.tenants.removeMember({ tenant: 'team-a', user: 'tom' })), /unexpected .*last owner/);
    assert.match(await outcome(tom.tenants.changeRole({ tenant: 'team-a', user: 'tom', role: 'admin' })), /unexpected .*last owner/);
    assert.equal(await outcome(call('tenant admin').tenants.remove({ tenant: 'team-a' })), 'deny');
  });
});
