/**
 * A claim and a DM deployment with one namespace and name: each is reached
 * by its own kind (the console gives each kind its own route), and neither
 * takes the other's outcome or decision trace.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices } from './index';

const sam = { id: 'local:Sam', name: 'Sam', labels: { is_operator: 'true' }, provider: 'test' as const };

const DEPLOYMENT = `kind: deployment
metadata: {namespace: social, name: prod}
target: cluster-us-east
configuration:
  resources:
    - name: web
      type: ConfigMap
      properties: {apiVersion: v1, kind: ConfigMap, metadata: {name: web}, data: {a: b}}
`;

describe('requests of different kinds sharing a namespace and a name', async () => {
  const repos = memoryRepos();
  await seedDemo(repos);
  const services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
  after(() => services.resolution.close());

  test('the claim social/prod and the DM deployment social/prod each answer as themselves', async () => {
    await services.policy.apply(sam, { text: DEPLOYMENT, baseGeneration: await repos.policy.head() });
    const claim = (await services.claims.get(sam, { namespace: 'social', name: 'prod', kind: 'claim' })).outcome;
    const deployment = (await services.claims.get(sam, { namespace: 'social', name: 'prod', kind: 'deployment' })).outcome;
    assert.equal(claim.kind, undefined, 'an Aptomi claim');
    assert.match(claim.service, /twitter_stats/);
    assert.ok(claim.trace.some((s) => s.kind === 'context'), 'with its decision trace');
    assert.equal(deployment.kind, 'deployment');
    assert.ok(!deployment.trace.some((s) => s.kind === 'context'), 'the claim’s decision trace is not the deployment’s');
    await assert.rejects(services.claims.get(sam, { namespace: 'social', name: 'prod', kind: 'action' }), /Action social\/prod at generation \d+/);
  });
});
