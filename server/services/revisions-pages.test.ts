/**
 * A revision's plan reaches the browser a page at a time: `revisions.get`
 * carries the first page of its long lists (and their totals), and
 * `revisions.planPage` the rest — every action and step exactly once, in
 * order, redacted as `get` redacts, for the same readers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { createCaller } from '../api/root';
import { DEMO_USERS_FILE } from '../auth/users';
import { openDb, type DbHandle } from '../db/client';
import type { PlanAction, PlanStep } from '../engine/plan';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { createServices, type Services } from './index';
import { PLAN_FIRST_PAGE, PLAN_PAGE_MAX, type StoredPlan } from './revisions.types';

const SECRET = 'PAGED-SECRET-5c21e0';
const actor = (name: string, labels: Record<string, string>): Actor => ({ id: `local:${name}`, name, labels, provider: 'test' });
const alice = actor('Alice', { org: 'dev' });
const bob = actor('Bob', { org: 'dev' });
const john = actor('John', { org: 'it', is_operator: 'true' });
const sam = actor('Sam', { org: 'it', is_operator: 'true', global_ops: 'true' });

/** Claims of one service, each its own instances (root and component): enough steps for several pages. */
const MANY = 320;

function manyPolicy(): string {
  let y = `
- {kind: bundle, metadata: {namespace: social, name: many}, components: [{name: web, code: {type: helm, params: {chartName: web, chartRepo: https://charts.example.com, id: '{{ .Labels.id }}'}}}]}
- {kind: service, metadata: {namespace: social, name: many}, contexts: [{name: c, allocation: {bundle: many, keys: ['{{ .Labels.id }}']}}]}
- kind: bundle
  metadata: {namespace: social, name: leaky}
  components:
    - name: app
      code: {type: helm, params: {chartName: app, chartRepo: https://charts.example.com, token: '{{ .User.Secrets.token }}'}}
- {kind: service, metadata: {namespace: social, name: leaky}, contexts: [{name: only, allocation: {bundle: leaky}}]}`;
  for (let i = 0; i < MANY; i++) y += `\n- {kind: claim, metadata: {namespace: social, name: m${i}}, user: Sam, service: many, labels: {id: 'n${i}', target: k8s-example.west}}`;
  return y;
}

describe('revision plans page on the server', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  let dir: string;
  let revisionId: number;
  let stored: StoredPlan;
  const call = (a: Actor | null) => createCaller({ actor: a, services });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-rev-pages-'));
    const usersFile = join(dir, 'users.yaml');
    writeFileSync(usersFile, readFileSync(DEMO_USERS_FILE, 'utf8').replace(/- name: Alice\n/, `- name: Alice\n  secrets: {token: ${SECRET}}\n`));
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    services = createServices(repos, { usersFile, domainAdmins: [] });
    await services.revisions!.ensureForGeneration(await repos.policy.head());
    await call(sam).policy.applyText({ text: manyPolicy(), baseGeneration: await repos.policy.head() });
    const w = await call(alice).policy.applyText({
      text: '- {kind: claim, metadata: {namespace: social, name: alice_leaky}, user: Alice, service: leaky, labels: {target: k8s-example.west}}',
      baseGeneration: await repos.policy.head(),
    });
    const rev = await services.revisions!.ensureForGeneration(w.generation);
    revisionId = rev.id;
    stored = (await repos.revisions.get(rev.id))!.plan as StoredPlan;
    assert.ok(stored.steps.length > PLAN_PAGE_MAX, `${stored.steps.length} steps: more than one largest page`);
    assert.ok(stored.steps.some((s) => s.sensitive), 'a step is rendered from a secret');
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('get carries a bounded first page, the totals and what deciders need', async () => {
    const view = await call(john).revisions.get({ id: revisionId });
    assert.equal(view.plan.steps.length, PLAN_FIRST_PAGE);
    assert.equal(view.plan.actions.length, PLAN_FIRST_PAGE);
    assert.ok(view.plan.changedClaims.length <= PLAN_FIRST_PAGE);
    assert.deepEqual(view.planTotals, { actions: stored.actions.length, steps: stored.steps.length, changedClaims: stored.changedClaims.length, notes: stored.notes.length, carryOver: 0 });
    assert.deepEqual(view.plan.counts, stored.counts);
    assert.deepEqual(view.plan.cost, stored.cost);
    assert.deepEqual(view.plan.quota, stored.quota);
    assert.deepEqual(
      view.sections.map((s) => s.namespace),
      stored.sections.map((s) => s.namespace),
    );
    for (const s of view.plan.sections) assert.ok(s.keys.length <= 20 && s.keysTotal! >= s.keys.length);
    // Far smaller than the whole plan.
    assert.ok(JSON.stringify(view).length < JSON.stringify(stored).length / 2, `${JSON.stringify(view).length} vs ${JSON.stringify(stored).length}`);
    // In process, without a limit: the whole plan (a service's sections need every action).
    const whole = await services.revisions!.get(sam, revisionId);
    assert.equal(whole.plan.steps.length, stored.steps.length);
    assert.equal(whole.plan.actions.length, stored.actions.length);
  });

  test('pages of steps cover every step exactly once, in plan order, and agree with the first page', async () => {
    const seen: PlanStep[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page = await call(sam).revisions.planPage({ id: revisionId, of: 'steps', offset, limit: 97 });
      assert.equal(page.of, 'steps');
      if (page.of !== 'steps') return;
      assert.equal(page.total, stored.steps.length);
      assert.ok(page.steps.length <= 97);
      seen.push(...page.steps);
      offset = page.nextOffset;
    }
    assert.deepEqual(
      seen.map((s) => s.index),
      stored.steps.map((s) => s.index),
    );
    const first = await call(sam).revisions.get({ id: revisionId });
    assert.deepEqual(
      first.plan.steps.map((s) => s.key),
      seen.slice(0, PLAN_FIRST_PAGE).map((s) => s.key),
    );
  });

  test('pages of actions cover every action exactly once, in section order, as the first page has them', async () => {
    const seen: PlanAction[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page = await call(john).revisions.planPage({ id: revisionId, of: 'actions', offset, limit: PLAN_PAGE_MAX });
      if (page.of !== 'actions') return assert.fail('actions asked, steps came');
      seen.push(...page.actions.map(({ status: _s, ...a }) => a));
      offset = page.nextOffset;
    }
    assert.equal(seen.length, stored.actions.length);
    const key = (a: PlanAction) => `${a.kind}|${a.key}|${a.claim ?? ''}`;
    assert.deepEqual(new Set(seen.map(key)).size, new Set(stored.actions.map(key)).size);
    assert.deepEqual([...seen.map(key)].sort(), [...stored.actions.map(key)].sort());
    const namespaces = seen.map((a) => a.namespace);
    assert.deepEqual(namespaces, [...namespaces].sort(), 'grouped by section');
    const first = await call(john).revisions.get({ id: revisionId });
    assert.deepEqual(first.plan.actions.map(key), seen.slice(0, PLAN_FIRST_PAGE).map(key));
  });

  test('filters: action kind, text, section; totals count the matches', async () => {
    const creates = await call(sam).revisions.planPage({ id: revisionId, of: 'actions', action: 'create', limit: 5 });
    assert.equal(creates.total, stored.counts.create);
    assert.equal(creates.all, stored.actions.length);
    const one = await call(sam).revisions.planPage({ id: revisionId, of: 'steps', text: 'N17#' });
    if (one.of !== 'steps') return assert.fail('steps asked');
    assert.ok(one.total >= 1 && one.steps.every((s) => s.key.toLowerCase().includes('n17#')), one.steps.map((s) => s.key).join());
    const nowhere = await call(sam).revisions.planPage({ id: revisionId, of: 'actions', namespace: 'no-such-section' });
    assert.equal(nowhere.total, 0);
    assert.equal(nowhere.nextOffset, null);
    const past = await call(sam).revisions.planPage({ id: revisionId, of: 'steps', offset: stored.steps.length + 10 });
    if (past.of !== 'steps') return assert.fail('steps asked');
    assert.deepEqual(past.steps, []);
    assert.equal(past.nextOffset, null);
  });

  test('pages are redacted as get redacts: consumers never see the secret, the namespace admin does', async () => {
    const everyPage = async (a: Actor) => {
      let text = '';
      for (let offset: number | null = 0; offset !== null; ) {
        const page = await call(a).revisions.planPage({ id: revisionId, of: 'steps', offset, limit: PLAN_PAGE_MAX });
        text += JSON.stringify(page);
        offset = page.nextOffset;
      }
      return text;
    };
    for (const a of [alice, bob]) {
      const text = await everyPage(a);
      assert.ok(!text.includes(SECRET), `${a.name} saw the secret on a page`);
      assert.ok(text.includes('rendered from user secrets'), `${a.name} is told why a value is hidden`);
    }
    assert.ok((await everyPage(john)).includes(SECRET), 'the namespace admin of social sees it');
  });

  test('the limit is capped: at most PLAN_PAGE_MAX rows, a larger limit is refused at the API', async () => {
    const inProcess = await services.revisions!.planPage(sam, { id: revisionId, of: 'steps', limit: 100_000 });
    assert.equal(inProcess.limit, PLAN_PAGE_MAX);
    if (inProcess.of !== 'steps') return assert.fail('steps asked');
    assert.equal(inProcess.steps.length, PLAN_PAGE_MAX);
    await assert.rejects(call(sam).revisions.planPage({ id: revisionId, of: 'steps', limit: PLAN_PAGE_MAX + 1 }), (e: unknown) => e instanceof TRPCError && e.code === 'BAD_REQUEST');
    const bounded = await services.revisions!.get(sam, revisionId, { limit: 100_000 });
    assert.equal(bounded.plan.steps.length, PLAN_PAGE_MAX);
    await assert.rejects(call(sam).revisions.list({ limit: 101 }), (e: unknown) => e instanceof TRPCError && e.code === 'BAD_REQUEST');
  });

  test('a revision that does not exist is not found; anonymous readers are refused first', async () => {
    await assert.rejects(call(null).revisions.planPage({ id: revisionId, of: 'steps' }), (e: unknown) => e instanceof TRPCError && e.code === 'UNAUTHORIZED');
    await assert.rejects(call(null).revisions.planPage({ id: 999_999, of: 'steps' }), (e: unknown) => e instanceof TRPCError && e.code === 'UNAUTHORIZED');
    await assert.rejects(call(sam).revisions.planPage({ id: 999_999, of: 'actions' }), (e: unknown) => e instanceof TRPCError && e.code === 'NOT_FOUND');
  });
});
