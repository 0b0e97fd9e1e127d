/**
 * A section that deploys beyond its policy namespace (here a ClusterRole
 * from social) through the services, as the CLI and the console use them:
 * a namespace admin's `accept=true` does not accept it, a save's preview
 * says so before saving, and a domain admin must decide it deliberately.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadLocalUsers } from '../auth/users';
import { openDb, type DbHandle } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { AppError } from '../errors';
import { createServices, type Services } from './index';

const person = (name: string): Actor => {
  const u = loadLocalUsers().find((x) => x.name === name)!;
  return { id: `local:${name}`, name, labels: u.labels, provider: 'test' };
};
const john = person('John'); // namespace admin of platform and social
const sam = person('Sam'); // domain admin

const CLUSTER_ROLE = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: social-reads-all}\nrules: [{apiGroups: [""], resources: [secrets], verbs: [get, list]}]\n';
const text = (name: string) => `- kind: bundle
  metadata: {namespace: social, name: ${name}}
  components: [{name: rbac, code: {type: raw, params: {manifest: ${JSON.stringify(CLUSTER_ROLE)}}}}]
- {kind: service, metadata: {namespace: social, name: ${name}}, contexts: [{name: only, allocation: {bundle: ${name}}}]}
- {kind: claim, metadata: {namespace: social, name: ${name}}, user: John, service: ${name}, labels: {target: k8s-example.west}}
`;

describe('sections that reach past their namespace (services on PGlite)', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  const svc = () => services.revisions!;

  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
  });
  after(() => h.close());

  test('the preview of a save names what reaches past the namespace', async () => {
    const p = await svc().preview(john, { text: text('rbac') });
    assert.ok(p.ok);
    const social = p.sections.find((s) => s.namespace === 'social');
    assert.ok(social, JSON.stringify(p.sections));
    assert.match(social.needsDomainAdmin.join('\n'), /cluster-scoped kind ClusterRole \(rbac\.authorization\.k8s\.io\): ClusterRole "social-reads-all"/);
  });

  test("a namespace admin's accept=true leaves it pending for a domain admin; so does a domain admin's", async () => {
    for (const [who, name] of [[john, 'rbac'], [sam, 'rbac2']] as const) {
      const w = await services.policy.apply(who, { text: text(name), baseGeneration: await repos.policy.head(), accept: true });
      const r = await svc().ensureForGeneration(w.generation, { autoAcceptBy: who });
      assert.equal(r.status, 'pending', `${who.name}'s save with accept=true`);
      const d = await svc().get(john, r.id);
      const social = d.sections.find((s) => s.namespace === 'social')!;
      assert.equal(social.status, 'pending');
      assert.equal(social.canDecide, false);
      assert.match(social.reason!, /^Section social reaches past policy namespace social: .*ClusterRole.*Only a domain admin may accept it\.$/);
      // Reviewers see where and what the section deploys, not only the objections.
      // (Nothing is applied here, so the section also holds the demo's own social instances.)
      assert.deepEqual(social.deploys?.targets, [{ cluster: 'system/k8s-example', namespaces: ['east', 'west'] }]);
      assert.deepEqual(social.deploys?.clusterKinds, ['ClusterRole (rbac.authorization.k8s.io)']);
    }
    const newest = (await svc().list(sam, { limit: 1 }))[0]!;
    const refused = await svc().decide(john, { revisionId: newest.id, namespace: 'social', decision: 'accept' }).catch((e: unknown) => e);
    assert.ok(refused instanceof AppError && refused.code === 'FORBIDDEN', String(refused));
    assert.match(refused.message, /ClusterRole "social-reads-all"/);
    const ok = await svc().decide(sam, { revisionId: newest.id, namespace: 'social', decision: 'accept' });
    assert.deepEqual(ok.decided, ['social']);
  });

  test("a domain admin's accept=true says which sections it left pending and why: to the writer and in the revision's events", async () => {
    const w = await services.policy.apply(sam, { text: text('rbac3'), baseGeneration: await repos.policy.head(), accept: true });
    const r = await svc().ensureForGeneration(w.generation, { autoAcceptBy: sam });
    assert.equal(r.status, 'pending');
    const left = await svc().notAcceptedOnSave(sam, r.id);
    assert.deepEqual(left.map((s) => s.namespace), ['social']);
    assert.match(left[0]!.reason, /^it reaches past policy namespace social \(.*ClusterRole "social-reads-all".*\), so a domain admin accepts it explicitly \(never on save\)\.$/);
    const events = (await svc().events(sam, r.id)).filter((e) => e.kind === 'acceptance');
    assert.deepEqual(events.map((e) => [e.actor, e.message]), [['Sam', `accept=true left section social pending: ${left[0]!.reason}`]]);
  });
});
