/**
 * The editor's preview says what a save would change, on the seeded demo
 * (deployed, as `npm start` leaves it): the changed instances with their
 * parameters before and after (redacted for the asking user as the revision
 * page redacts them), the sections and who must accept each, and the claims
 * whose outcome changes — before anything is saved.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parseUsers } from '../engine/model/users';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { deployDemo, seedDemo } from '../seed/demo';
import { PLANTED, PLANTED_CLAIMS, PLANTED_PLATFORM, PLANTED_SOCIAL } from '../testing/planted-secrets';
import type { Actor } from './actor';
import { createServices, type Services } from './index';
import type { Preview } from './revisions.types';

const users = parseUsers(readFileSync('corpus/aptomi/examples/common/users.yaml', 'utf8')).users;
const as = (name: string): Actor => ({ id: `local:${name}`, name, labels: users.find((u) => u.name === name)!.labels, provider: 'test' });
const sam = as('Sam'); // domain admin
const john = as('John'); // namespace admin of social; claim social/prod is his
const alice = as('Alice'); // consumer in social

const PROD = readFileSync('corpus/aptomi/examples/twitter-analytics/policy/john-prod-ts.yaml', 'utf8');
const ALICE_DEV = readFileSync('corpus/aptomi/examples/twitter-analytics/policy/alice-dev-ts.yaml', 'utf8');

function ok(p: Preview): Extract<Preview, { ok: true }> {
  assert.ok(p.ok, `the preview answers: ${p.ok ? '' : p.message}`);
  return p;
}

describe('the preview shows what a save changes (services on the seeded demo)', () => {
  let repos: Repos;
  let services: Services;
  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos, 'keelson', { allSources: true });
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    await deployDemo(repos, services);
  });
  after(() => services.resolution.close());

  test('a user who may not save the object is refused before the preview reads it', async () => {
    await assert.rejects(services.revisions.preview(alice, { text: PLANTED_SOCIAL }), /bundle social\/planted-db/);
  });

  test("a claim's new image tag: the changed instance with its parameter diff, the section and who must accept it", async () => {
    const p = ok(await services.revisions.preview(john, { text: PROD.replace('tsvisimage: demo11', 'tsvisimage: demo21') }));
    assert.equal(p.noop, false);
    const viz = p.instances.find((i) => i.key.includes('tweeviz'));
    assert.ok(viz, `tweeviz is listed: ${p.instances.map((i) => i.key).join(', ')}`);
    assert.equal(viz.action, 'update');
    assert.match(viz.before, /demo11/);
    assert.match(viz.after, /v1\.2\.0-demo21/);
    assert.ok(!viz.before.includes('demo21'));
    assert.ok(p.instances.every((i) => i.action === 'update'), 'nothing else is created or removed');
    assert.equal(p.instancesTotal, p.instances.length);
    const social = p.sections.find((s) => s.namespace === 'social');
    assert.ok(social, JSON.stringify(p.sections));
    assert.equal(social.acceptedBy, 'a namespace admin of social, or a domain admin');
    assert.equal(social.youMayAccept, true);
    // The claim still resolves to the same service and context: its outcome does not change.
    assert.deepEqual(p.outcomes, []);
    assert.equal(p.outcomesTotal, 0);
  });

  test('a consumer is told who accepts the section, and why not she', async () => {
    const p = ok(await services.revisions.preview(alice, { text: ALICE_DEV.replace('tsvisimage: demo12', 'tsvisimage: demo13') }));
    const social = p.sections.find((s) => s.namespace === 'social');
    assert.ok(social, JSON.stringify(p.sections));
    assert.equal(social.acceptedBy, 'a namespace admin of social, or a domain admin');
    assert.equal(social.youMayAccept, false);
    assert.match(social.reason!, /needs the namespace-admin role in social or domain-admin/);
  });

  test('a claim that resolved and would fail: its outcome, before → after', async () => {
    const p = ok(await services.revisions.preview(john, { text: PROD.replace('service: twitter_stats', 'service: no_such_service') }));
    const prod = p.outcomes.find((o) => o.namespace === 'social' && o.name === 'prod');
    assert.ok(prod, JSON.stringify(p.outcomes));
    assert.equal(prod.before?.status, 'resolved');
    assert.match(prod.before!.to!, /^social · twitter_stats · /);
    assert.equal(prod.after?.status, 'error');
    assert.equal(prod.after?.to, null);
    assert.match(prod.after!.error!, /no_such_service/);
    // What the claim used goes: removed instances are listed, the first few with what they were.
    assert.ok(p.instances.some((i) => i.action === 'delete' && i.before !== '' && i.after === ''), JSON.stringify(p.instances.map((i) => [i.action, i.key])));
  });

  test('no change: an empty list, a no-op', async () => {
    const p = ok(await services.revisions.preview(john, { text: PROD }));
    assert.equal(p.noop, true);
    assert.deepEqual(p.instances, []);
    assert.deepEqual(p.sections, []);
    assert.deepEqual(p.outcomes, []);
  });

  test('a change to an instance rendered from platform credentials: a namespace admin sees it changed, its parameters redacted; a domain admin sees them', async () => {
    // Platform credentials (the Hub TypeInstance, the Target) rendered into instances of social, deployed: only domain admins may read them.
    // Planted last: once they are deployed, the demo's instances on k8s-example are redacted for John too.
    await services.policy.apply(sam, { text: PLANTED_PLATFORM, baseGeneration: await repos.policy.head() });
    await services.policy.apply(john, { text: PLANTED_SOCIAL, baseGeneration: await repos.policy.head() });
    await services.policy.apply(alice, { text: PLANTED_CLAIMS, baseGeneration: await repos.policy.head() });
    const rev = await services.revisions.ensureForGeneration(await repos.policy.head());
    await services.revisions.decide(sam, { revisionId: rev.id, decision: 'accept' });

    const text = PLANTED_SOCIAL.replace('chartName: planted-app,', 'chartName: planted-app2,');
    const asJohn = ok(await services.revisions.preview(john, { text }));
    const app = asJohn.instances.find((i) => i.key.includes('planted-db') && i.key.endsWith('app'));
    assert.ok(app, `the app component is listed as changed: ${asJohn.instances.map((i) => i.key).join(', ')}`);
    assert.equal(app.action, 'update');
    assert.match(app.notes.join(' '), /chartName/);
    const johnSees = JSON.stringify(asJohn);
    assert.ok(!johnSees.includes(PLANTED.typeInstance), 'no planted credential in what John is shown');
    assert.match(app.before, /rendered from platform credentials/);
    assert.match(app.after, /rendered from platform credentials/);

    const asSam = ok(await services.revisions.preview(sam, { text }));
    const samApp = asSam.instances.find((i) => i.key === app.key)!;
    assert.match(samApp.before, /chartName: planted-app\n/);
    assert.match(samApp.after, /chartName: planted-app2\n/);
    assert.ok(samApp.after.includes(PLANTED.typeInstance), 'a domain admin reads what the credentials rendered');
  });
});
