/**
 * Every tRPC procedure has rows in the authorisation matrix. The router is
 * enumerated: a procedure without a row (or a row for a procedure that no
 * longer exists) fails the first test, so a new procedure cannot land
 * without saying who may call it. Each row runs a real call as five people
 * of the demo policy — anonymous, an outsider with no role, a service
 * consumer (Alice), a namespace admin of platform and social (John) and a
 * domain admin (Sam) — and checks the outcome: allowed, denied (403),
 * unauthenticated (401), or another refusal named by its code.
 *
 * The detailed per-kind and per-role rules live in authz.test.ts; this file
 * guarantees coverage of the whole API surface.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_USERS_FILE, loadLocalUsers } from '../auth/users';
import { openDb, type DbHandle } from '../db/client';
import { revisions } from '../db/schema';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from '../services/actor';
import { createServices, type Services } from '../services';
import { appRouter, createCaller } from './root';
import { DM } from '../engine/model/sources/dm';

type Who = 'anonymous' | 'outsider' | 'consumer' | 'nsadmin' | 'domain';
const WHO: readonly Who[] = ['anonymous', 'outsider', 'consumer', 'nsadmin', 'domain'];
/** `allow`, `deny` (FORBIDDEN), `unauth` (UNAUTHORIZED) or `code:<TRPC code>` for another refusal. */
type Outcome = 'allow' | 'deny' | 'unauth' | `code:${string}`;

const demoActor = (name: string): Actor => {
  const u = loadLocalUsers().find((x) => x.name === name)!;
  return { id: `local:${name}`, name, labels: u.labels, provider: 'test' };
};

interface Fixture {
  services: Services;
  repos: Repos;
  /** A caller acting as the domain admin, for setting up each case. */
  sam: ReturnType<typeof createCaller>;
  head(): Promise<number>;
  /** Who is calling (their policy name; Sam for anonymous). */
  name: string;
  who: Who;
  /** A unique suffix per case and caller. */
  uid: string;
  state: { instanceKey: string; revisionId: number; tenant: string };
  /** Mark a revision applied (the apply worker's own tests cover applying; here only its status matters). */
  markApplied(id: number): Promise<void>;
}

interface Case {
  /** What the call does (shown on failure). */
  what: string;
  input: (f: Fixture) => unknown | Promise<unknown>;
  expect: Record<Who, Outcome>;
}

const signedIn = (o: Outcome): Record<Who, Outcome> => ({ anonymous: 'unauth', outsider: o, consumer: o, nsadmin: o, domain: o });
const READ = signedIn('allow');
/** Namespace admins (of social/platform) and domain admins. */
const ADMINS: Record<Who, Outcome> = { anonymous: 'unauth', outsider: 'deny', consumer: 'deny', nsadmin: 'allow', domain: 'allow' };
/** Anyone with a role in the namespace that allows claims. */
const CONSUMERS: Record<Who, Outcome> = { ...ADMINS, consumer: 'allow' };
const DOMAIN_ONLY: Record<Who, Outcome> = { anonymous: 'unauth', outsider: 'deny', consumer: 'deny', nsadmin: 'deny', domain: 'allow' };

const bundleYaml = (name: string, tag: string) =>
  `kind: bundle\nmetadata: {namespace: social, name: ${name}}\ncomponents: [{name: web, code: {type: helm, params: {chartName: web-${tag}, chartRepo: https://charts.example}}}]\n`;
const claimYaml = (name: string, user: string) =>
  `kind: claim\nmetadata: {namespace: social, name: ${name}}\nuser: ${user}\nservice: twitter_stats\nlabels: {note: '${name}'}\n`;

/** A change in social by Sam, and its revision (pending). */
async function pendingSocialRevision(f: Fixture): Promise<number> {
  const w = await f.sam.policy.applyText({ text: bundleYaml('authz-churn', f.uid), baseGeneration: await f.head() });
  const r = await f.sam.revisions.byGeneration({ generation: w.generation, wait: true });
  assert.ok(r.id != null, `revision of generation ${w.generation}: ${r.status}`);
  return r.id;
}

/** A tenant owned by Sam (by John when Sam is the caller, so that Sam can be invited to it). */
async function freshTenant(f: Fixture): Promise<string> {
  const name = `t-${f.uid}`;
  const owner = f.who === 'domain' ? createCaller({ actor: demoActor('John'), services: f.services }) : f.sam;
  await owner.tenants.create({ name, namespaces: [] });
  return name;
}

/** The owner of a token made for a case (only the id and name matter to the token service). */
const tokenOwner = (name: string): Actor => ({ id: `local:${name}`, name, labels: {}, provider: 'test' });

const MATRIX: Record<string, Case[]> = {
  'capact.interfaces': [{ what: 'the Interfaces of the Hub', input: () => undefined, expect: READ }],
  'dm.types': [{ what: 'the types in the current layouts and where they are used', input: () => undefined, expect: READ }],
  'dm.deployment': [
    {
      what: 'a deployment with its manifests and layout',
      input: async (f) => {
        const name = `d-${f.uid}`;
        // Its own namespace: the social section's revisions stay as the other rows expect them.
        await f.sam.policy.applyText({ text: DM.kinds.deployment.example.replace('namespace: main', 'namespace: dmtest').replace('name: my-deployment', `name: ${name}`), baseGeneration: await f.head() });
        return { namespace: 'dmtest', name };
      },
      expect: READ,
    },
  ],
  'landscaper.scopes': [
    { what: 'the scope graph of every namespace', input: () => ({}), expect: READ },
    { what: 'the scope graph of one namespace', input: () => ({ namespace: 'social' }), expect: READ },
  ],
  'capact.tryIt': [
    { what: 'which Implementation an Interface resolves to', input: () => ({ interface: { path: 'cap.interface.database.postgresql.install' } }), expect: READ },
    {
      // A draft is request text: held to the gate before it is read (a role somewhere; services/admission.ts).
      what: 'the same under a draft Global policy (trying changes nothing)',
      input: () => ({ interface: { path: 'cap.interface.database.postgresql.install' }, draft: 'kind: policy\nmetadata: {namespace: system, name: global}\ninterface: {rules: []}\n' }),
      expect: { ...READ, outsider: 'deny' },
    },
  ],
  'graphs.policy': [{ what: 'policy graph of the head', input: () => ({}), expect: READ }],
  'graphs.desired': [{ what: 'desired-state graph of the head', input: () => ({}), expect: READ }],
  'graphs.desiredView': [
    { what: 'budgeted desired-state graph of the head', input: () => ({}), expect: READ },
    { what: 'the same cut to one node, the rest in buckets', input: () => ({ budget: 1 }), expect: READ },
  ],
  'graphs.desiredBucket': [
    {
      what: 'one bucket of a budgeted desired-state graph opened',
      input: async (f) => {
        const generation = await f.head();
        const v = await f.sam.graphs.desiredView({ generation, budget: 1 });
        return { generation, budget: v.budget, bucket: v.graph.b[0]!.id };
      },
      expect: READ,
    },
    { what: 'a bucket that no view made', input: () => ({ budget: 1, bucket: 'bucket:remote:nowhere@0-1' }), expect: signedIn('code:NOT_FOUND') },
  ],
  'graphs.instance': [{ what: 'one instance with its deployed state', input: (f) => ({ key: f.state.instanceKey }), expect: READ }],

  'policy.head': [{ what: 'newest generation', input: () => undefined, expect: READ }],
  'policy.list': [{ what: 'object list', input: () => ({}), expect: READ }],
  'policy.get': [{ what: 'a bundle', input: () => ({ kind: 'bundle', namespace: 'social', name: 'twitter_stats' }), expect: READ }],
  'policy.applyText': [
    { what: 'create a bundle in social', input: async (f) => ({ text: bundleYaml(`b-${f.uid}`, f.uid), baseGeneration: await f.head() }), expect: ADMINS },
    { what: 'create a claim in social in their own name', input: async (f) => ({ text: claimYaml(`c-${f.uid}`, f.name), baseGeneration: await f.head() }), expect: CONSUMERS },
    { what: "create a claim in Bob's name", input: async (f) => ({ text: claimYaml(`bob-${f.uid}`, 'Bob'), baseGeneration: await f.head() }), expect: ADMINS },
    { what: 'create an aclrule in system', input: async (f) => ({ text: `kind: aclrule\nmetadata: {namespace: system, name: r-${f.uid}}\ncriteria: {require-all: ["never == true"]}\nactions: {add-role: {service-consumer: nowhere}}\n`, baseGeneration: await f.head() }), expect: DOMAIN_ONLY },
  ],
  'policy.save': [
    { what: 'create a claim in their own name', input: async (f) => ({ text: claimYaml(`s-${f.uid}`, f.name), baseGeneration: await f.head() }), expect: CONSUMERS },
    { what: 'save a bundle', input: async (f) => ({ text: bundleYaml(`sb-${f.uid}`, f.uid), baseGeneration: await f.head() }), expect: ADMINS },
  ],
  'policy.delete': [
    {
      what: 'delete a bundle in social',
      input: async (f) => {
        await f.sam.policy.applyText({ text: bundleYaml(`d-${f.uid}`, f.uid), baseGeneration: await f.head() });
        return { ids: [{ kind: 'bundle', namespace: 'social', name: `d-${f.uid}` }], baseGeneration: await f.head() };
      },
      expect: ADMINS,
    },
    {
      what: "delete Bob's claim",
      input: async (f) => {
        await f.sam.policy.applyText({ text: claimYaml(`dc-${f.uid}`, 'Bob'), baseGeneration: await f.head() });
        return { ids: [{ kind: 'claim', namespace: 'social', name: `dc-${f.uid}` }], baseGeneration: await f.head() };
      },
      expect: ADMINS,
    },
  ],
  'policy.deleteText': [
    {
      what: 'delete a bundle in social by its YAML',
      input: async (f) => {
        await f.sam.policy.applyText({ text: bundleYaml(`dt-${f.uid}`, f.uid), baseGeneration: await f.head() });
        return { text: bundleYaml(`dt-${f.uid}`, f.uid), baseGeneration: await f.head() };
      },
      expect: ADMINS,
    },
  ],
  'policy.generations': [{ what: 'history', input: () => ({}), expect: READ }],
  'policy.generation': [{ what: 'one generation', input: async (f) => ({ generation: await f.head() }), expect: READ }],
  'policy.diff': [{ what: 'diff of the two demo generations', input: () => ({ from: 1, to: 2 }), expect: READ }],
  'policy.schemas': [{ what: 'JSON Schemas (describe the language)', input: () => undefined, expect: { ...READ, anonymous: 'allow' } }],

  'resolution.claims': [{ what: 'claims of the head', input: () => ({}), expect: READ }],
  'resolution.claim': [{ what: "one of Alice's claims", input: () => ({ namespace: 'social', name: 'alice_dev' }), expect: READ }],

  'revisions.list': [{ what: 'revision list', input: () => ({}), expect: READ }],
  'revisions.get': [{ what: 'one revision', input: (f) => ({ id: f.state.revisionId }), expect: READ }],
  'revisions.planPage': [
    { what: "a page of a revision's steps", input: (f) => ({ id: f.state.revisionId, of: 'steps', offset: 1, limit: 2 }), expect: READ },
    { what: "a page of a revision's actions, filtered", input: (f) => ({ id: f.state.revisionId, of: 'actions', action: 'create', text: 'social' }), expect: READ },
    { what: 'a revision that does not exist', input: () => ({ id: 999_999, of: 'steps' }), expect: signedIn('code:NOT_FOUND') },
  ],
  'revisions.events': [{ what: "a revision's events", input: (f) => ({ id: f.state.revisionId }), expect: READ }],
  'revisions.byGeneration': [
    { what: 'revision of an existing generation', input: async (f) => ({ generation: await f.head() }), expect: READ },
    { what: 'a generation past the head', input: async (f) => ({ generation: (await f.head()) + 5 }), expect: signedIn('code:NOT_FOUND') },
  ],
  'revisions.decide': [
    { what: 'accept the social section', input: async (f) => ({ revisionId: await pendingSocialRevision(f), namespace: 'social', decision: 'accept' }), expect: ADMINS },
    { what: 'reject the social section', input: async (f) => ({ revisionId: await pendingSocialRevision(f), namespace: 'social', decision: 'reject' }), expect: ADMINS },
  ],
  'revisions.rollback': [
    {
      what: 'roll a change in social back to the applied revision before it',
      input: async (f) => {
        // Applied: a bundle in social; then changed again. Rolling back touches only that bundle.
        const w = await f.sam.policy.applyText({ text: bundleYaml('authz-rollback', `a-${f.uid}`), baseGeneration: await f.head() });
        const rev = await f.services.revisions!.ensureForGeneration(w.generation);
        await f.markApplied(rev.id);
        await f.sam.policy.applyText({ text: bundleYaml('authz-rollback', `b-${f.uid}`), baseGeneration: await f.head() });
        return { revisionId: rev.id };
      },
      expect: ADMINS,
    },
  ],
  'revisions.revert': [
    {
      what: 'revert a rejected change to a bundle in social',
      input: async (f) => {
        // A bundle in social, then a change to it, rejected. Reverting touches only that bundle.
        await f.sam.policy.applyText({ text: bundleYaml('authz-revert', `a-${f.uid}`), baseGeneration: await f.head() });
        const next = await f.sam.policy.applyText({ text: bundleYaml('authz-revert', `b-${f.uid}`), baseGeneration: await f.head() });
        const r = await f.services.revisions!.ensureForGeneration(next.generation);
        await f.sam.revisions.decide({ revisionId: r.id, decision: 'reject', comment: 'not now' });
        return { revisionId: r.id };
      },
      expect: ADMINS,
    },
  ],
  'revisions.instanceDiff': [{ what: 'one instance before and after', input: (f) => ({ revisionId: f.state.revisionId, key: f.state.instanceKey }), expect: READ }],
  'revisions.preview': [
    { what: 'preview a bundle change', input: (f) => ({ text: bundleYaml('twitter_stats_preview', f.uid) }), expect: ADMINS },
    { what: 'preview a claim in their own name', input: (f) => ({ text: claimYaml(`p-${f.uid}`, f.name) }), expect: CONSUMERS },
    { what: "preview a claim in Bob's name", input: (f) => ({ text: claimYaml(`pb-${f.uid}`, 'Bob') }), expect: ADMINS },
  ],

  'tenants.list': [{ what: 'tenants the caller belongs to', input: () => undefined, expect: READ }],
  'tenants.get': [{ what: 'a tenant the caller is not in', input: (f) => ({ name: f.state.tenant }), expect: DOMAIN_ONLY }],
  'tenants.environments': [{ what: 'environments of a tenant the caller is not in', input: (f) => ({ tenant: f.state.tenant }), expect: DOMAIN_ONLY }],
  'tenants.create': [{ what: 'a tenant with no namespace yet', input: (f) => ({ name: `own-${f.uid}`, namespaces: [] }), expect: READ }],
  'tenants.addNamespace': [{ what: "add a namespace to someone else's tenant", input: async (f) => ({ tenant: await freshTenant(f), namespace: `ns-${f.uid}` }), expect: DOMAIN_ONLY }],
  'tenants.invite': [{ what: "invite Bob to someone else's tenant", input: async (f) => ({ tenant: await freshTenant(f), user: 'Bob', role: 'plain' }), expect: DOMAIN_ONLY }],
  'tenants.myInvitations': [{ what: 'own invitations', input: () => undefined, expect: READ }],
  'tenants.answer': [
    {
      what: 'accept an invitation to themselves',
      input: async (f) => {
        const t = await freshTenant(f);
        const owner = f.who === 'domain' ? createCaller({ actor: demoActor('John'), services: f.services }) : f.sam;
        const inv = await owner.tenants.invite({ tenant: t, user: f.who === 'anonymous' ? 'Carol' : f.name, role: 'plain' });
        return { invitationId: inv.id, accept: true, role: 'plain' };
      },
      expect: READ,
    },
    {
      what: "accept an invitation meant for Bob",
      input: async (f) => {
        const t = await freshTenant(f);
        const inv = await f.sam.tenants.invite({ tenant: t, user: 'Bob', role: 'plain' });
        return { invitationId: inv.id, accept: true, role: 'plain' };
      },
      expect: signedIn('code:NOT_FOUND'),
    },
  ],
  'tenants.changeRole': [
    {
      what: "change a member's role in someone else's tenant",
      input: async (f) => {
        const t = await freshTenant(f);
        const owner = f.who === 'domain' ? createCaller({ actor: demoActor('John'), services: f.services }) : f.sam;
        const inv = await owner.tenants.invite({ tenant: t, user: 'Bob', role: 'plain' });
        await createCaller({ actor: demoActor('Bob'), services: f.services }).tenants.answer({ invitationId: inv.id, accept: true, role: 'plain' });
        return { tenant: t, user: 'Bob', role: 'admin' };
      },
      expect: DOMAIN_ONLY,
    },
  ],
  'tenants.removeMember': [
    {
      what: "remove a member of someone else's tenant",
      input: async (f) => {
        const t = await freshTenant(f);
        const owner = f.who === 'domain' ? createCaller({ actor: demoActor('John'), services: f.services }) : f.sam;
        const inv = await owner.tenants.invite({ tenant: t, user: 'Bob', role: 'plain' });
        await createCaller({ actor: demoActor('Bob'), services: f.services }).tenants.answer({ invitationId: inv.id, accept: true, role: 'plain' });
        return { tenant: t, user: 'Bob' };
      },
      expect: DOMAIN_ONLY,
    },
  ],
  'tenants.setRules': [
    {
      what: "set the placement rules of someone else's tenant",
      input: async (f) => ({ tenant: await freshTenant(f), rules: { validateEnvironmentUser: [{ reason: 'owners only', sel: ['$.user.role', 'owner', '::eq'] }] } }),
      expect: DOMAIN_ONLY,
    },
  ],
  'tenants.remove': [{ what: "remove someone else's tenant", input: async (f) => ({ tenant: await freshTenant(f) }), expect: DOMAIN_ONLY }],
  'tenants.roleMap': [{ what: "everyone's roles", input: () => undefined, expect: DOMAIN_ONLY }],
  'tenants.myRoles': [{ what: 'own roles', input: () => undefined, expect: READ }],

  'tokens.list': [{ what: 'own API tokens', input: () => undefined, expect: READ }],
  'tokens.create': [
    { what: 'an API token for themselves', input: (f) => ({ name: `t-${f.uid}` }), expect: READ },
    { what: 'an API token that expires', input: (f) => ({ name: `te-${f.uid}`, expiresInDays: 7 }), expect: READ },
  ],
  'tokens.revoke': [
    {
      what: 'revoke their own token',
      // Anonymous callers have no tokens: Sam's stands in (and stays).
      input: async (f) => ({ id: (await f.services.tokens.create(tokenOwner(f.name), { name: `own-${f.uid}` })).id }),
      expect: READ,
    },
    {
      what: "revoke Bob's token (not found to anyone but a domain admin)",
      input: async (f) => ({ id: (await f.services.tokens.create(tokenOwner('Bob'), { name: `bob-${f.uid}` })).id }),
      expect: { ...signedIn('code:NOT_FOUND'), domain: 'allow' },
    },
    { what: 'a token that does not exist', input: () => ({ id: 999_999 }), expect: signedIn('code:NOT_FOUND') },
  ],

  'users.me': [{ what: 'own profile', input: () => undefined, expect: READ }],
  'users.endSessions': [
    // Anonymous callers name Sam, as everywhere in this matrix.
    { what: 'end their own sessions (sign out everywhere)', input: (f) => ({ user: f.name }), expect: READ },
    { what: "end Bob's sessions", input: () => ({ user: 'Bob' }), expect: DOMAIN_ONLY },
  ],
};

function procedurePaths(): string[] {
  return Object.keys((appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures).sort();
}

describe('authorisation matrix covers every tRPC procedure', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  let state: Fixture['state'];
  let dir: string;
  const ACTORS: Record<Exclude<Who, 'anonymous'>, Actor> = {
    outsider: { id: 'local:nina', name: 'nina', labels: {}, provider: 'test' },
    consumer: demoActor('Alice'),
    nsadmin: demoActor('John'),
    domain: demoActor('Sam'),
  };
  const callerFor = (who: Who) => createCaller({ actor: who === 'anonymous' ? null : ACTORS[who], services });

  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    // The demo users, and nina, who has no role anywhere.
    dir = mkdtempSync(join(tmpdir(), 'keelson-authz-procs-'));
    const usersFile = join(dir, 'users.yaml');
    writeFileSync(usersFile, `${readFileSync(DEMO_USERS_FILE, 'utf8').replace(/\s*$/, '\n')}- name: nina\n  labels: {}\n`);
    services = createServices(repos, { usersFile, domainAdmins: [] });
    const sam = callerFor('domain');
    const head = await repos.policy.head();
    const first = await services.revisions!.ensureForGeneration(head);
    const claims = await sam.resolution.claim({ namespace: 'social', name: 'alice_dev' });
    const key = claims.instances[0]?.key;
    assert.ok(key, 'the demo claim alice_dev has instances');
    await sam.tenants.create({ name: 'sams-tenant', namespaces: [] });
    state = { instanceKey: key, revisionId: first.id, tenant: 'sams-tenant' };
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every procedure has a row, and every row a procedure', () => {
    const paths = procedurePaths();
    const missing = paths.filter((p) => !MATRIX[p]?.length);
    const stale = Object.keys(MATRIX).filter((p) => !paths.includes(p));
    assert.deepEqual(missing, [], `procedures without a row in the authorisation matrix: ${missing.join(', ')}`);
    assert.deepEqual(stale, [], `rows for procedures that do not exist: ${stale.join(', ')}`);
  });

  let n = 0;
  for (const [path, cases] of Object.entries(MATRIX)) {
    for (const c of cases) {
      test(`${path}: ${c.what}`, async () => {
        const got: Partial<Record<Who, Outcome>> = {};
        for (const who of WHO) {
          const uid = `${who}-${++n}`;
          const markApplied = async (id: number) => {
            await h.db.update(revisions).set({ status: 'applied', appliedAt: new Date() }).where(eq(revisions.id, id));
          };
          const f: Fixture = { services, repos, sam: callerFor('domain'), head: () => repos.policy.head(), name: who === 'anonymous' ? 'Sam' : ACTORS[who].name, who, uid, state, markApplied };
          const input = await c.input(f);
          const fn = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], callerFor(who)) as (i: unknown) => Promise<unknown>;
          got[who] = await fn(input).then(
            () => 'allow' as const,
            (e: unknown) => {
              if (!(e instanceof TRPCError)) throw e;
              if (e.code === 'FORBIDDEN') return 'deny' as const;
              if (e.code === 'UNAUTHORIZED') return 'unauth' as const;
              return `code:${e.code}` as const;
            },
          );
        }
        assert.deepEqual(got, c.expect);
      });
    }
  }
});
