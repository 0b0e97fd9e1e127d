/**
 * A Python template that loops forever, saved as a deployment on a server
 * with resolver threads: the save answers at once (it does not run Python),
 * the deployment resolves to the time-limit error, reads keep answering
 * while the sandbox runs, and a sound Python deployment resolves afterwards.
 * And templates that each stay under the limit but together would not: the
 * sandbox's own limit, shared by the deployment's templates, stops them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from './index';

describe('a Python template that never ends, on a serving server', () => {
  let services: Services;
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  before(async () => {
    // Read by each resolver thread's sandbox when it starts. 4 s: a sound template, or the parent template below, fits
    // many times over on a loaded machine, so the limit stops only the templates meant to run into it.
    process.env.KEELSON_DM_PYTHON_TIMEOUT_S = '4';
    const repos = memoryRepos();
    await seedDemo(repos);
    // The resolution's budget far away (it counts the sandbox's boot, which takes a minute on a loaded machine): only
    // the sandbox's own time limit, the limit under test, can stop these templates.
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], resolver: { threads: 1, timeoutMs: 900_000, memoryMb: 512 } });
  });
  after(async () => {
    delete process.env.KEELSON_DM_PYTHON_TIMEOUT_S;
    await services.resolution.close();
  });

  const deployment = (name: string, source: string) =>
    stringify({
      kind: 'deployment',
      metadata: { namespace: 'main', name },
      target: 'k8s-example',
      configuration: { resources: [{ name: 'app', type: 'app.py', properties: { image: 'nginx' } }] },
      imports: { 'app.py': source },
    });

  test('the save answers without running it; the deployment fails at the limit; reads answer meanwhile; the next deployment resolves', async () => {
    // The save answers before any Python runs: what it reports is the save, never the template's fate.
    const w = await services.policy.apply(sam, { text: deployment('spin', 'def GenerateConfig(c):\n  while True:\n    pass\n'), baseGeneration: await services.policy.head(sam) });
    assert.ok(w.generation > 0);
    let reads = 0;
    const resolving = services.resolution.ensure(w.generation);
    let done = false;
    void resolving.finally(() => (done = true));
    // Reads answer while the template spins (no duration is asserted: a loaded machine fails nothing).
    while (!done) {
      await services.policy.head(sam);
      reads++;
      await new Promise((ok) => setTimeout(ok, 20));
    }
    const outcome = (await resolving).state.claims.find((c) => c.kind === 'deployment' && c.name === 'spin')!;
    assert.equal(outcome.status, 'error');
    assert.match(outcome.errors.join('\n'), /Python template 'app\.py' ran over its time limit of 4 s and was stopped/);
    assert.equal(outcome.timedOut, true, 'a time limit decided it: the next generation expands it again');
    assert.ok(reads > 0, 'reads answered while it ran');

    const ok = await services.policy.apply(sam, {
      text: deployment('web', "def GenerateConfig(c):\n  return {'resources': [{'name': 'web', 'type': 'Service', 'properties': {'apiVersion': 'v1', 'kind': 'Service', 'spec': {'ports': [{'port': 80}]}}}]}\n"),
      baseGeneration: await services.policy.head(sam),
    });
    const web = (await services.resolution.ensure(ok.generation)).state.claims.find((c) => c.kind === 'deployment' && c.name === 'web')!;
    assert.equal(web.status, 'resolved', web.errors.join('\n'));
    assert.equal(web.instances?.length, 1);
  });

  test("a deployment's Python templates share the sandbox's time limit: it, not the resolution's, stops them, naming the template", async () => {
    // Each child spins 1.5 s, under the 4 s limit; eight of them would run 12 s.
    const spin = "import time\ndef GenerateConfig(c):\n  t = time.time()\n  while time.time() - t < 1.5:\n    pass\n  return {'resources': []}\n";
    const parent = "def GenerateConfig(c):\n  return {'resources': [{'name': 'w%d' % i, 'type': 'spin.py'} for i in range(8)]}\n";
    const text = stringify({
      kind: 'deployment',
      metadata: { namespace: 'main', name: 'many' },
      target: 'k8s-example',
      configuration: { resources: [{ name: 'top', type: 'parent.py' }] },
      imports: { 'parent.py': parent, 'spin.py': spin },
    });
    const w = await services.policy.apply(sam, { text, baseGeneration: await services.policy.head(sam) });
    const many = (await services.resolution.ensure(w.generation)).state.claims.find((c) => c.kind === 'deployment' && c.name === 'many')!;
    assert.equal(many.status, 'error');
    assert.match(many.errors.join('\n'), /Python template 'spin\.py' ran over the Python sandbox's time limit of 4 s, which one deployment's Python templates share, and was stopped/);
    assert.equal(many.timedOut, true);
  });
});
