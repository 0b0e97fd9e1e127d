/**
 * `keelson policy` on the Capact corpus: the choice, its JSON shape, the
 * Action policy taking priority, the merge order, deny-all, and the
 * refusals a user meets (bad policy, bad flags).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { main } from './main';

const HUB = 'corpus/capact/pkg/sdk/renderer/argo/testdata/hub';
const POLICIES = (parse(readFileSync('corpus/capact/derived/render-cases.yaml', 'utf8')) as { policies: Record<string, unknown> }).policies;

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe('keelson policy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-policy-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const policyFile = (name: string, body: unknown) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, stringify(body));
    return file;
  };
  const pg = ['--interface', 'cap.interface.database.postgresql.install', '--implements', 'path'];

  test('the GCP policy picks CloudSQL and injects the service account under its alias', async () => {
    const r = await cli('policy', HUB, policyFile('gcp', POLICIES.gcpGlobal), ...pg);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.deepEqual(out.implementation, { path: 'cap.implementation.gcp.cloudsql.postgresql.install', revision: '0.1.0' });
    assert.deepEqual(
      out.injected.requiredTypeInstances.map((t: { alias: string; id: string }) => [t.alias, t.id]),
      [['gcp-sa', 'c268d3f5-8834-434b-bea2-b677793611c5']],
    );
    assert.equal(out.rule.oneOfIndex, 0);
    // Every other Implementation is listed with the reason it lost.
    const rejected = Object.fromEntries(out.rejected.map((x: { path: string; revision: string; reason: string }) => [`${x.path}@${x.revision}`, x.reason]));
    assert.ok(rejected['cap.implementation.aws.rds.postgresql.install@0.1.0'], JSON.stringify(out.rejected));
  });

  test('a Keelson `kind: policy` envelope is read like a bare Capact policy', async () => {
    const r = await cli('policy', HUB, policyFile('envelope', { kind: 'policy', metadata: { namespace: 'system', name: 'global' }, ...(POLICIES.gcpGlobal as object) }), ...pg);
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).implementation.path, 'cap.implementation.gcp.cloudsql.postgresql.install');
  });

  test('an Action policy outranks the Global one by default, and --order turns that round', async () => {
    // Global: CloudSQL with the GCP account first, Bitnami second. Action: Bitnami only.
    const global = policyFile('gcp-global', POLICIES.gcpGlobal);
    const action = policyFile('action', {
      interface: {
        rules: [{ interface: { path: 'cap.interface.database.postgresql.install', revision: '0.1.0' }, oneOf: [{ implementationConstraints: { path: 'cap.implementation.bitnami.postgresql.install' } }] }],
      },
    });
    const chosen = (r: { out: string }) => JSON.parse(r.out).implementation.path;
    const byAction = await cli('policy', HUB, global, '--action-policy', action, ...pg);
    assert.equal(byAction.code, 0, byAction.err);
    assert.equal(chosen(byAction), 'cap.implementation.bitnami.postgresql.install');
    const byGlobal = await cli('policy', HUB, global, '--action-policy', action, '--order', 'GLOBAL,ACTION', ...pg);
    assert.equal(byGlobal.code, 0, byGlobal.err);
    assert.equal(chosen(byGlobal), 'cap.implementation.gcp.cloudsql.postgresql.install');
  });

  test('a Global and an Action policy injecting service accounts of one Type: the Action\'s is injected, in both modes', async () => {
    // A second GCP service account beside the corpus Hub's, for the team's Action policy to name.
    const teamSa = policyFile('team-sa', {
      id: 'team-gcp-sa',
      typeRef: { path: 'cap.type.gcp.auth.service-account', revision: '0.1.0' },
      latestResourceVersion: { resourceVersion: 1, spec: { value: {} } },
    });
    const gcp = (POLICIES.gcpGlobal as { interface: { rules: { interface: unknown; oneOf: { implementationConstraints: unknown }[] }[] } }).interface.rules[0]!;
    const action = policyFile('team-action', {
      interface: {
        rules: [{ interface: gcp.interface, oneOf: [{ implementationConstraints: gcp.oneOf[0]!.implementationConstraints, inject: { requiredTypeInstances: [{ id: 'team-gcp-sa', description: 'team SA' }] } }] }],
      },
    });
    for (const mode of ['documented', 'capact-compat']) {
      const r = await cli('policy', HUB, teamSa, policyFile('gcp', POLICIES.gcpGlobal), '--action-policy', action, '--merge', mode, ...pg);
      assert.equal(r.code, 0, `${mode}: ${r.out}${r.err}`);
      const out = JSON.parse(r.out);
      assert.deepEqual(out.errors, [], mode);
      assert.deepEqual(
        out.injected.requiredTypeInstances.map((t: { alias: string; id: string }) => [t.alias, t.id]),
        [['gcp-sa', 'team-gcp-sa']],
        mode,
      );
    }
  });

  test('deny-all: no Implementation, exit 1, the explanation says so', async () => {
    const r = await cli('policy', HUB, policyFile('deny', POLICIES.denyAll), ...pg, '--format', 'text');
    assert.equal(r.code, 1);
    assert.match(r.out, /^no Implementation of cap\.interface\.database\.postgresql\.install:0\.1\.0 is allowed by the policy/);
  });

  test('no Global policy at all is an empty policy: nothing is allowed (Capact without its ConfigMap)', async () => {
    const r = await cli('policy', HUB, ...pg);
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.out).implementation, null);
  });

  test('a policy that is not a policy is refused with the file named', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'interface: foo\n');
    const r = await cli('policy', HUB, file, ...pg);
    assert.equal(r.code, 1);
    assert.match(r.err, /bad\.yaml: Global policy: interface/);
    assert.match(r.err, /nothing was chosen/);
  });

  test('two Global policies are one too many', async () => {
    const r = await cli('policy', HUB, policyFile('a', POLICIES.allowAll), policyFile('b', POLICIES.denyAll), ...pg);
    assert.equal(r.code, 1);
    assert.match(r.err, /more than one Global policy/);
  });

  test('usage errors exit 2 and say what is wrong', async () => {
    assert.match((await cli('policy', HUB)).err, /name the Interface with --interface/);
    assert.equal((await cli('policy', HUB, '--interface', 'postgres')).code, 2);
    assert.match((await cli('policy', HUB, ...pg, '--order', 'ACTION,USER')).err, /--order takes ACTION, GLOBAL, WORKFLOW/);
    assert.match((await cli('policy', HUB, ...pg, '--merge', 'newest')).err, /--merge must be documented or capact-compat/);
  });
});
