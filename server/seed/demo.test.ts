/**
 * The console's demo (`npm start`): Aptomi's examples and one small working
 * example of each other source, resolving with no claim in error, and
 * starting deployed (revision #1 accepted) so a preview compares against a
 * running deployment.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Actuator } from '../apply/actuator';
import { runOnce } from '../apply/worker';
import { parseUsers } from '../engine/model/users';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import type { Actor } from '../services/actor';
import { createServices, type Services } from '../services';
import { deployDemo, seedDemo } from './demo';

const users = parseUsers(readFileSync('corpus/aptomi/examples/common/users.yaml', 'utf8')).users;
const as = (name: string): Actor => ({ id: `local:${name}`, name, labels: users.find((u) => u.name === name)!.labels, provider: 'test' });
const sam = as('Sam');
const alice = as('Alice');

describe('the seeded demo', () => {
  let repos: Repos;
  let services: Services;
  let accepted = 0;
  before(async () => {
    repos = memoryRepos();
    assert.deepEqual(await seedDemo(repos, 'keelson', { allSources: true }), [1, 2, 3]);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    accepted = await deployDemo(repos, services);
  });
  after(() => services.resolution.close());

  test("resolves with no claim in error: Aptomi's, the DM deployment, both Landscaper installations, the tenant's services", async () => {
    const r = await services.resolution.get(sam);
    assert.equal(r.generation, await repos.policy.head());
    const errors = r.state.claims.filter((c) => c.status === 'error').map((c) => `${c.kind ?? 'claim'} ${c.namespace}/${c.name}: ${c.errors.join('; ')}`);
    assert.deepEqual(errors, []);
    const resolved = r.state.claims.filter((c) => c.status === 'resolved').map((c) => `${c.kind ?? 'claim'} ${c.namespace}/${c.name}`);
    for (const want of ['deployment web/hello', 'installation garden/database', 'installation garden/webui', 'claim social/prod', 'claim acme/api', 'claim acme/web']) assert.ok(resolved.includes(want), `${want} resolves: ${resolved.join(', ')}`);
  });

  test('Capact: "Try it" answers under the saved Global policy', async () => {
    const r = await services.capact.tryIt(alice, { interface: { path: 'cap.interface.database.postgresql.install' } });
    assert.equal(r.policy, 'saved');
    assert.deepEqual(r.implementation, { path: 'cap.implementation.bitnami.postgresql.install', revision: '0.1.0' });
    assert.deepEqual(r.explanation!.candidates.map((c) => c.status).sort(), ['chosen', 'rejected'], 'two Implementations of the Interface, the other with its reason');
  });

  test('Landscaper: webui imports what database exports', async () => {
    const g = await services.landscaper.scopes(sam, { namespace: 'garden' });
    assert.deepEqual(g.errors, []);
    const webui = g.installations.find((i) => i.id === 'garden/webui')!;
    assert.equal(webui.imports.database, 'postgres://db.garden/shop');
  });

  test('DM: the Jinja template expands into a Service and a ReplicationController', async () => {
    const d = await services.dm.deployment(sam, 'web/hello');
    assert.deepEqual(d.state.errors, []);
    const m = await services.dm.manifest(sam, 'web/hello', d.latestManifest);
    assert.deepEqual(m.errors ?? [], []);
    assert.deepEqual(m.expandedConfig.resources.map((x) => x.type).sort(), ['ReplicationController', 'Service']);
  });

  test('Axebow: tenant acme has an account, two environments, two services and a link', async () => {
    const acme = await services.tenants.get(sam, 'acme');
    assert.deepEqual(acme.namespaces, ['acme']);
    const account = await services.estate.getAccount(sam, { tenant: 'acme', account: 'main' });
    assert.deepEqual([...account.environments].sort(), ['dev', 'prod']);
    assert.deepEqual((await services.deployments.list(sam, 'acme')).map((d) => d.name).sort(), ['api', 'web']);
    assert.deepEqual(acme.links, [{ client: 'web', clientChannel: 'out', server: 'api', serverChannel: 'in' }], 'the tenant page lists the link');
    const links = await services.links.list(sam, { tenant: 'acme', service: 'web' });
    assert.deepEqual(links.map((l) => [l.spec.client_service, l.spec.client_channel, l.spec.server_service, l.spec.server_channel, l.status.linked]), [['web', 'out', 'api', 'in', true]]);
  });

  test('starts deployed: revision #1, of the newest generation, is accepted in every section and applies', async () => {
    // The tenant's two services are created together, as one generation: the first revision is the demo's whole.
    assert.equal(accepted, 1);
    const rev = (await repos.revisions.get(accepted))!;
    assert.equal(rev.generation, await repos.policy.head());
    assert.equal(rev.status, 'accepted');
    const noop: Actuator = { name: 'test', begin: async () => {}, apply: async () => ({ status: 'done' }), finish: async () => ({ changed: true, commit: 'c' }) };
    while (await runOnce({ revisions: repos.revisions, actuator: noop })) {
      /* apply */
    }
    assert.equal((await repos.revisions.get(accepted))!.status, 'applied');
  });
});
