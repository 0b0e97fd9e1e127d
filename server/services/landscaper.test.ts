/** The scope graph service over stored policy: the seed's application installed twice, then a cycle. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices } from './index';

const fixture = (name: string) => readFileSync(join(process.cwd(), 'server/testing', name), 'utf8');
const sam = { id: 'local:Sam', name: 'Sam', labels: { is_operator: 'true' }, provider: 'test' as const };

describe('LandscaperService.scopes', async () => {
  const repos = memoryRepos();
  await seedDemo(repos);
  const services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], freeNamespaces: ['landscape'] });
  after(() => services.resolution.close());

  test('anonymous callers are refused', async () => {
    await assert.rejects(services.landscaper.scopes(null, {}), /Sign in|signed in|UNAUTHORIZED/i);
  });

  test('application twice: two scopes in the namespace, local names apart, values as computed', async () => {
    await services.policy.apply(sam, { text: fixture('landscaper-application.yaml'), baseGeneration: await repos.policy.head() });
    const g = await services.landscaper.scopes(sam, { namespace: 'landscape' });
    assert.deepEqual(g.scopes.map((s) => s.id), ['ns:landscape', 'scope:landscape/application', 'scope:landscape/application2']);
    assert.deepEqual(g.errors, []);
    const obj = (id: string) => g.objects.find((o) => o.id === id);
    assert.equal(obj('obj:scope:landscape/application:data:databaseaccess')?.value, 'postgres://db.cluster/shop');
    assert.equal(obj('obj:scope:landscape/application2:data:databaseaccess')?.value, 'postgres://db.cluster2/blog');
    assert.equal(obj('obj:ns:landscape:data:exports2')?.value, 'https://ui.cluster2 → postgres://db.cluster2/blog');
    const webui = g.installations.find((i) => i.id === 'landscape/application/webui')!;
    assert.deepEqual(webui.imports.in, 'postgres://db.cluster/shop');
    assert.equal(webui.phase, 'Succeeded');
    // Another namespace's view holds none of it; the view of all holds both.
    assert.deepEqual((await services.landscaper.scopes(sam, { namespace: 'social' })).installations, []);
    assert.equal((await services.landscaper.scopes(sam, {})).installations.length, 6);
  });

  test('a cycle between roots is reported with its path; the rest still runs', async () => {
    await services.policy.apply(sam, { text: fixture('landscaper-cycle.yaml'), baseGeneration: await repos.policy.head() });
    const g = await services.landscaper.scopes(sam, { namespace: 'landscape' });
    const cycle = g.errors.find((e) => e.code === 'cycle');
    assert.ok(cycle, JSON.stringify(g.errors));
    assert.deepEqual(new Set(cycle.cycle), new Set(['ping', 'pong']));
    assert.equal(g.installations.find((i) => i.id === 'landscape/ping')?.phase, 'Failed');
    assert.equal(g.installations.find((i) => i.id === 'landscape/application')?.phase, 'Succeeded');
  });
});
