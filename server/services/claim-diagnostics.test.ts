/**
 * A request's failure opens the editor where it is: the engine names the
 * object and field, the stored text gives the line. Here a Deployment
 * Manager deployment whose target is no cluster.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { plugTemplateSandbox } from '../dm-python';
import { createServices } from './index';

plugTemplateSandbox({ python: false });
const sam = { id: 'local:Sam', name: 'Sam', labels: { is_operator: 'true' }, provider: 'test' as const };

describe('a failed request’s diagnostics', async () => {
  const repos = memoryRepos();
  await seedDemo(repos);
  const services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], freeNamespaces: ['shop'] });
  after(() => services.resolution.close());

  test('a deployment whose target is no cluster: the outcome names the deployment, its target field and that field’s line', async () => {
    const text = `kind: deployment
metadata:
  namespace: shop
  name: web
configuration:
  resources:
    - name: cm
      type: ConfigMap
      properties: {apiVersion: v1, kind: ConfigMap, data: {a: b}}
target: elsewhere
`;
    await services.policy.apply(sam, { text, baseGeneration: await repos.policy.head() });
    const { outcome } = await services.claims.get(sam, { namespace: 'shop', name: 'web', kind: 'deployment' });
    assert.equal(outcome.status, 'error');
    assert.deepEqual(outcome.errors, ['target "elsewhere" is not a Keelson cluster'], 'the words are as they were');
    const [d] = outcome.diagnostics ?? [];
    assert.equal(d?.object, 'deployment/shop/web');
    assert.deepEqual(d?.path, ['target']);
    // `target: elsewhere` is the text's tenth line.
    assert.equal(d?.line, 10);
  });
});
