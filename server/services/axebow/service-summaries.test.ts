/**
 * The services list (`DeploymentService.list`) shares one summary list per
 * generation and tenant between readers: a new generation is listed anew,
 * and who may read is checked on every request, never remembered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { memoryRepos } from '../../repo/memory';
import { seedDemo } from '../../seed/demo';
import type { Actor } from '../actor';
import { createServices, type Services } from '..';
import { serviceSummaries } from './service-summaries';
import type { ServiceSummary } from './types';

const actor = (name: string): Actor => ({ id: `local:${name}`, name, labels: {}, provider: 'test' });
const alice = actor('Alice');
const bob = actor('Bob');
const carol = actor('Carol');

describe('services list: summaries shared per generation and tenant', () => {
  let services: Services;

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [], freeNamespaces: ['acme-*', 'beta-*'] });
    await services.tenants.create(alice, { name: 'acme', namespaces: ['acme-web'] });
    await services.tenants.create(bob, { name: 'beta', namespaces: ['beta-web'] });
  });
  after(() => services.resolution.close());

  const claim = (namespace: string, name: string, user: string) =>
    `kind: claim\nmetadata: { namespace: ${namespace}, name: ${name} }\nuser: ${user}\nservice: social/twitter_stats\nlabels: { tsvisimage: x }\n`;
  const write = async (who: Actor, text: string) => {
    const w = await services.policy.apply(who, { text, baseGeneration: await services.policy.head(who), message: 'test' });
    await services.revisions.byGeneration(who, w.generation, { wait: true });
  };

  test('a new generation is listed anew; each tenant sees its own namespaces only', async () => {
    await write(alice, claim('acme-web', 'one', 'Alice'));
    assert.deepEqual((await services.deployments.list(alice, 'acme')).map((s) => s.name), ['one']);
    await write(alice, claim('acme-web', 'two', 'Alice'));
    assert.deepEqual((await services.deployments.list(alice, 'acme')).map((s) => s.name), ['one', 'two'], 'the newer generation, not the remembered list');
    await write(bob, claim('beta-web', 'three', 'Bob'));
    assert.deepEqual((await services.deployments.list(bob, 'beta')).map((s) => `${s.namespace}/${s.name}`), ['beta-web/three']);
    assert.deepEqual((await services.deployments.list(alice, 'acme')).map((s) => `${s.namespace}/${s.name}`), ['acme-web/one', 'acme-web/two']);
  });

  test('a list already built for one reader is refused to a reader who is not a member', async () => {
    assert.equal((await services.deployments.list(alice, 'acme')).length, 2);
    await assert.rejects(services.deployments.list(carol, 'acme'), (e: Error & { code?: string }) => e.code === 'FORBIDDEN');
    await assert.rejects(services.deployments.list(bob, 'acme'), (e: Error & { code?: string }) => e.code === 'FORBIDDEN');
    await assert.rejects(services.deployments.list(null, 'acme'), (e: Error & { code?: string }) => e.code === 'UNAUTHORIZED');
    await assert.rejects(services.deployments.list(alice, 'nope'), (e: Error & { code?: string }) => e.code === 'NOT_FOUND');
  });

  test('the list is shared and frozen: no caller can change what another reads', async () => {
    const first = (await services.deployments.list(alice, 'acme')) as ServiceSummary[];
    assert.throws(() => first.pop(), TypeError);
    assert.throws(() => ((first[0] as { status: string }).status = 'resolved'), TypeError);
    assert.throws(() => first[0]!.errors.push('x'), TypeError);
    assert.equal((await services.deployments.list(alice, 'acme')).length, 2);
    const state = (await services.resolution.get(alice)).state;
    assert.equal(serviceSummaries(state, ['acme-web']), serviceSummaries(state, ['acme-web']), 'built once per state and namespace set');
    assert.deepEqual(serviceSummaries(state, ['beta-web']).map((s) => s.name), ['three']);
  });
});
