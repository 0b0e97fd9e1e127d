/**
 * Capact on the stored policy: the corpus Hub saved as policy objects, the
 * Global policy as `policy/system/global`, "try it" under the saved policy
 * and under a draft, and TypeInstance values kept from readers who may not
 * see secrets.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { REDACTED_VALUE } from './policy';
import { createServices, type Services } from './index';

const actor = (name: string, labels: Record<string, string>): Actor => ({ id: `local:${name}`, name, labels, provider: 'test' });
const alice = actor('Alice', { org: 'dev' });
const sam = actor('Sam', { org: 'it', is_operator: 'true', global_ops: 'true' });

const HUB = join(process.cwd(), 'corpus/capact/pkg/sdk/renderer/argo/testdata/hub');
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));

const GLOBAL = (rules: string) => `kind: policy\nmetadata: {namespace: system, name: global}\ninterface:\n  rules:\n${rules}`;
const ALLOW_ALL = GLOBAL(`    - interface: {path: "cap.*"}\n      oneOf:\n        - implementationConstraints: {}\n`);
const GCP = GLOBAL(`    - interface: {path: cap.interface.database.postgresql.install, revision: 0.1.0}
      oneOf:
        - implementationConstraints:
            requires: [{path: cap.type.gcp.auth.service-account, revision: 0.1.0}]
          inject:
            requiredTypeInstances: [{id: c268d3f5-8834-434b-bea2-b677793611c5, description: GCP SA}]
        - implementationConstraints: {path: cap.implementation.bitnami.postgresql.install}
`);
const PG = { interface: { path: 'cap.interface.database.postgresql.install' } };

describe('Capact on the stored policy', () => {
  let services: Services;
  const head = async () => services.policy.head(sam);

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { domainAdmins: [] });
    const text = walk(HUB)
      .sort()
      .map((f) => readFileSync(f, 'utf8').replace(/^---\n/, ''))
      .join('\n---\n');
    await services.policy.apply(sam, { text, baseGeneration: await head(), message: 'the corpus Hub' });
  });

  test('with no Global policy nothing is allowed (Capact without its ConfigMap)', async () => {
    const r = await services.capact.tryIt(alice, PG);
    assert.equal(r.policy, 'none');
    assert.equal(r.implementation, null);
    assert.match(r.explanation!.summary, /no Implementation of cap\.interface\.database\.postgresql\.install:0\.1\.0 is allowed/);
  });

  test('the Interfaces of the stored Hub are listed for the picker', async () => {
    const list = await services.capact.interfaces(alice);
    assert.ok(list.some((i) => i.path === 'cap.interface.database.postgresql.install' && i.revisions.includes('0.1.0')), JSON.stringify(list.map((i) => i.path)));
  });

  test('under the saved Global policy, and under a draft as it is typed', async () => {
    await services.policy.apply(sam, { text: ALLOW_ALL, baseGeneration: await head() });
    const saved = await services.capact.tryIt(alice, PG);
    assert.equal(saved.policy, 'saved');
    assert.deepEqual(saved.implementation, { path: 'cap.implementation.bitnami.postgresql.install', revision: '0.1.0' });
    // Every other Implementation comes with the constraint it failed.
    assert.ok(saved.explanation!.candidates.filter((c) => c.status === 'rejected').every((c) => c.reason.length > 0));

    const draft = await services.capact.tryIt(alice, { ...PG, draft: GCP });
    assert.equal(draft.policy, 'draft');
    assert.deepEqual(draft.implementation, { path: 'cap.implementation.gcp.cloudsql.postgresql.install', revision: '0.1.0' });
    assert.ok(draft.explanation!.injections.some((i) => i.includes('c268d3f5-8834-434b-bea2-b677793611c5') && i.includes('"gcp-sa"')));
    // The draft changed nothing that is saved.
    assert.equal((await services.capact.tryIt(alice, PG)).implementation?.path, 'cap.implementation.bitnami.postgresql.install');
  });

  test('a draft that does not parse answers its problems, with the line', async () => {
    const r = await services.capact.tryIt(alice, { ...PG, draft: 'kind: policy\nmetadata: {namespace: system, name: global}\ninterface:\n  rules: foo\n' });
    assert.equal(r.explanation, null);
    assert.match(r.problems[0]!, /^line 4: .*interface\.rules/);
  });

  test('a signed-out caller may not try', async () => {
    await assert.rejects(services.capact.tryIt(null, PG), /UNAUTHORIZED|sign in/i);
  });

  test('a TypeInstance value is shown whole to a domain admin only', async () => {
    await services.policy.apply(sam, {
      text: 'kind: typeinstance\nmetadata: {namespace: system, name: db-password}\ntypeRef: {path: cap.type.gcp.auth.service-account, revision: 0.1.0}\nvalue: {password: PLANTED-TI-SECRET-42}\n',
      baseGeneration: await head(),
    });
    const id = { kind: 'typeinstance', namespace: 'system', name: 'db-password' };
    const shown = await services.policy.getObject(alice, id);
    assert.ok(!shown.text.includes('PLANTED-TI-SECRET-42'), shown.text);
    assert.ok(shown.text.includes(REDACTED_VALUE));
    assert.ok(!JSON.stringify(shown.spec).includes('PLANTED-TI-SECRET-42'));
    assert.ok((await services.policy.getObject(sam, id)).text.includes('PLANTED-TI-SECRET-42'));
    // Nor does "try it" carry it.
    const r = await services.capact.tryIt(alice, { ...PG, draft: GCP });
    assert.ok(!JSON.stringify(r).includes('PLANTED-TI-SECRET-42'));
    // Saving back what was shown is refused rather than storing the placeholder.
    await assert.rejects(services.policy.apply(sam, { text: shown.text, baseGeneration: await head() }), /paste the real value/);
  });
});
