/**
 * `$(ref.NAME.PATH)` in a deployment, from save to the GitOps repository: a
 * reference the configuration answers is filled in before anything is
 * planned; one only the cluster can answer holds its revision's section back
 * (nobody may accept it, whatever their role), so the text is never
 * committed; the user removes it, saves, and the next revision applies.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GitOpsActuator, readTrackedFiles } from '../apply/gitops/actuator';
import { runOnce } from '../apply/worker';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { AppError } from '../errors';
import { createServices, type Services } from './index';

const deployment = (configMapData: string) => `kind: deployment
metadata:
  namespace: shop
  name: web
target: k8s-example
configuration:
  resources:
    - name: frontend-svc
      type: Service
      properties:
        apiVersion: v1
        kind: Service
        metadata: {name: frontend}
        spec:
          ports: [{port: 8080}]
          selector: {app: frontend}
    - name: web-config
      type: ConfigMap
      properties:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: web-config}
        data:
${configMapData}
`;

describe('DM references from save to the GitOps repository', () => {
  let repos: Repos;
  let services: Services;
  const dir = mkdtempSync(join(tmpdir(), 'keelson-dm-refs-'));
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
  });
  after(async () => {
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const save = async (text: string) => (await services.policy.apply(sam, { text, baseGeneration: await services.policy.head(sam) })).generation;

  test('a reference only the cluster can answer: the section says so and cannot be accepted, even by a domain admin', async () => {
    const gen = await save(deployment('          url: "http://frontend:$(ref.frontend-svc.spec.ports[0].port)"\n          ip: "$(ref.frontend-svc.spec.clusterIP)"'));
    const rev = await services.revisions!.ensureForGeneration(gen);
    const shop = (await services.revisions!.get(sam, rev.id)).sections.find((s) => s.namespace === 'shop')!;
    assert.equal(shop.unresolvedReferences.length, 1);
    assert.match(shop.unresolvedReferences[0]!, /web-config: \$\(ref\.frontend-svc\.spec\.clusterIP\) \(a value only the cluster knows\)$/);
    assert.equal(shop.canDecide, false);
    assert.match(shop.reason!, /^Section shop cannot be accepted: .*write the value into the configuration or remove the reference/);
    await assert.rejects(services.revisions!.decide(sam, { revisionId: rev.id, namespace: 'shop', decision: 'accept' }), (e: AppError) => /Section shop cannot be accepted/.test(e.message));
    assert.equal((await services.revisions!.get(sam, rev.id)).sections.find((s) => s.namespace === 'shop')!.status, 'pending');
  });

  test('with the reference removed, the revision is accepted and the repository holds the value the configuration gave, no reference text', async () => {
    const gen = await save(deployment('          url: "http://frontend:$(ref.frontend-svc.spec.ports[0].port)"'));
    const rev = await services.revisions!.ensureForGeneration(gen);
    const detail = await services.revisions!.get(sam, rev.id);
    assert.deepEqual(detail.sections.filter((s) => s.unresolvedReferences.length > 0).map((s) => s.namespace), []);
    await services.revisions!.decide(sam, { revisionId: rev.id, decision: 'accept' });
    assert.equal(await runOnce({ revisions: repos.revisions, actuator: new GitOpsActuator(dir) }), true);
    assert.equal((await repos.revisions.get(rev.id))!.status, 'applied');
    const files = await readTrackedFiles(dir);
    const config = Object.entries(files).find(([, text]) => /kind: ConfigMap/.test(text) && /name: web-config/.test(text));
    assert.ok(config, Object.keys(files).join('\n'));
    assert.match(config[1], /url: http:\/\/frontend:8080/);
    assert.equal(Object.values(files).filter((t) => t.includes('$(ref.')).length, 0);
  });
});
