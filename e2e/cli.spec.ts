/**
 * The keelson command line against the running console: apply a file as a
 * generation, see its revision, accept it, wait until applied, delete —
 * with the exit codes scripts rely on.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

test.describe.configure({ mode: 'serial' });

function keelson(args: string[], user = 'sam') {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KEELSON_USER: user, KEELSON_PASSWORD: user, KEELSON_SERVER: test.info().project.use.baseURL, KEELSON_CONFIG_DIR: join(dir, 'no-config') },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The CLI with exactly these variables (no KEELSON_* from this process). */
function keelsonWith(args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KEELSON_')));
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], { encoding: 'utf8', env: { ...clean, ...env } as NodeJS.ProcessEnv, timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// Made in beforeAll: Playwright also loads this module in its runner
// process, where a module-level folder would never be removed.
let dir = '';
let file = '';
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'keelson-cli-e2e-'));
  file = join(dir, 'extra.yaml');
  writeFileSync(file, EXTRA_YAML);
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EXTRA_YAML = `- kind: bundle
  metadata: {namespace: social, name: cli-demo}
  components:
    - name: web
      code: {type: helm, params: {chartRepo: https://charts.example.com, chartName: web, replicas: 2, resources: {requests: {cpu: 500m, memory: 1Gi}}}}
- kind: service
  metadata: {namespace: social, name: cli-demo}
  contexts: [{name: only, allocation: {bundle: cli-demo}}]
- kind: claim
  metadata: {namespace: social, name: cli-demo}
  user: John
  service: cli-demo
  labels: {target: k8s-example.west}
`;

test('keelson apply → revision → accept → wait applied → delete', async () => {
  // Deploy whatever is pending first, so this revision's diff is only ours.
  const pending = keelson(['revisions', 'list', '--format', 'json']);
  expect(pending.code, pending.err).toBe(0);
  for (const r of JSON.parse(pending.out) as { id: number; status: string }[]) {
    if (r.status === 'pending') {
      expect(keelson(['revisions', 'accept', String(r.id)]).code).toBe(0);
      expect(keelson(['revisions', 'wait', String(r.id), '--until', 'applied', '--timeout', '60']).code).toBe(0);
    }
  }

  const applied = keelson(['apply', file, '--message', 'add cli-demo', '--format', 'json']);
  expect(applied.code, applied.err).toBe(0);
  const out = JSON.parse(applied.out);
  expect(out.changed).toBe(true);
  expect(out.revision.status).toBe('pending');
  expect(out.revision.counts.create).toBe(2); // the bundle instance and its component
  // 2 replicas × (0.5 vCPU × €22 + 1 GiB × €3) = €28 per month on the demo cluster.
  expect(out.revision.costDelta).toBeCloseTo(28, 2);
  const id = String(out.revision.id);

  const show = keelson(['revisions', 'show', id]);
  expect(show.code).toBe(0);
  expect(show.out).toContain(`Revision ${id} (generation ${out.generation}) by Sam: pending`);
  expect(show.out).toContain('Section social: pending');

  const alice = keelson(['revisions', 'accept', id], 'alice');
  expect(alice.code).toBe(1);
  expect(alice.err).toContain('needs the namespace-admin role in social or domain-admin');

  const accepted = keelson(['revisions', 'accept', id, '--section', 'social', '--comment', 'from the CLI']);
  expect(accepted.code, accepted.err).toBe(0);
  expect(accepted.out).toContain('now accepted (queued for apply)');
  const again = keelson(['revisions', 'accept', id]);
  expect(again.code).toBe(1);
  expect(again.err).toMatch(/already been accepted|being applied|already been applied/);

  const waited = keelson(['revisions', 'wait', id, '--until', 'applied', '--timeout', '60']);
  expect(waited.code, waited.err).toBe(0);

  const unchanged = keelson(['apply', file]);
  expect(unchanged.code).toBe(0);
  expect(unchanged.out).toContain('No changes');

  const deleted = keelson(['delete', file, '--format', 'json']);
  expect(deleted.code, deleted.err).toBe(0);
  const del = JSON.parse(deleted.out);
  expect(del.revision.counts.delete).toBe(2);
  expect(keelson(['revisions', 'reject', String(del.revision.id)]).code).toBe(0);
  const rejected = keelson(['revisions', 'wait', String(del.revision.id), '--until', 'applied', '--timeout', '5']);
  expect(rejected.code).toBe(1);
  expect(rejected.err).toContain('is rejected, it will not become applied');

  // Putting the objects back returns the policy to what is deployed: the
  // revision for that has nothing to do, and the deployment is current again.
  const restored = keelson(['apply', file, '--message', 'restore cli-demo', '--format', 'json']);
  expect(restored.code, restored.err).toBe(0);
  const back = JSON.parse(restored.out);
  expect(back.changed).toBe(true);
  expect(back.revision.status).toBe('no-op');
  expect(back.revision.counts).toMatchObject({ create: 0, update: 0, delete: 0 });
});

test('usage and sign-in errors have their own exit codes', async () => {
  expect(keelson(['revisions', 'show']).code).toBe(2);
  expect(keelson(['revisions', 'wait', '1', '--until', 'soon']).code).toBe(2);
  const bad = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'revisions', 'list'], {
    encoding: 'utf8',
    env: { ...process.env, KEELSON_USER: 'sam', KEELSON_PASSWORD: 'wrong', KEELSON_SERVER: test.info().project.use.baseURL },
  });
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain('sign-in as sam failed');
});

test('keelson login saves a token (0600) that later commands use without a password; logout revokes it', async ({ request }) => {
  const server = test.info().project.use.baseURL!;
  const config = join(dir, 'config', 'keelson');
  const login = keelsonWith(['login', '--server', server], { KEELSON_USER: 'john', KEELSON_PASSWORD: 'john', KEELSON_CONFIG_DIR: config });
  expect(login.code, login.err).toBe(0);
  expect(login.out).toContain(`Logged in to ${server} as john.`);
  const file = join(config, 'credentials.json');
  expect(existsSync(file)).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(config).mode & 0o777).toBe(0o700);
  const saved = JSON.parse(readFileSync(file, 'utf8')).credentials as { server: string; token: string; expiresAt: string }[];
  expect(saved).toHaveLength(1);
  expect(saved[0]!.server).toBe(server);
  expect(saved[0]!.token).toMatch(/^kst_/);

  // No KEELSON_USER / KEELSON_PASSWORD: the saved token (over tRPC, as Authorization: Bearer).
  const listed = keelsonWith(['revisions', 'list', '--server', server, '--format', 'json'], { KEELSON_CONFIG_DIR: config });
  expect(listed.code, listed.err).toBe(0);
  expect(Array.isArray(JSON.parse(listed.out))).toBe(true);
  // …and without --server: the only console logged in to.
  const plain = keelsonWith(['revisions', 'list'], { KEELSON_CONFIG_DIR: config });
  expect(plain.code, plain.err).toBe(0);
  // The token is John's on the REST API too.
  const me = await request.get('/api/1.0-beta/user/info', { headers: { authorization: `Bearer ${saved[0]!.token}` } });
  expect((await me.json()).data.name).toBe('John');

  const out = keelsonWith(['logout'], { KEELSON_CONFIG_DIR: config });
  expect(out.code, out.err).toBe(0);
  expect(out.out).toContain(`Logged out of ${server}: the token was revoked there`);
  expect(existsSync(file)).toBe(false);
  expect((await request.get('/api/1.0-beta/user/info', { headers: { authorization: `Bearer ${saved[0]!.token}` } })).status()).toBe(401);
  const after = keelsonWith(['revisions', 'list', '--server', server], { KEELSON_CONFIG_DIR: config });
  expect(after.code).toBe(2);
  expect(after.err).toContain(`not logged in to ${server}: run keelson login --server ${server}`);
});

test('keelson login with a wrong password exits 1 with one clear line and saves nothing', async () => {
  const server = test.info().project.use.baseURL!;
  const config = join(dir, 'config-wrong');
  const bad = keelsonWith(['login', '--server', server], { KEELSON_USER: 'john', KEELSON_PASSWORD: 'wrong', KEELSON_CONFIG_DIR: config });
  expect(bad.code).toBe(1);
  expect(bad.err).toBe('keelson: sign-in as john failed: wrong user name or password\n');
  expect(existsSync(join(config, 'credentials.json'))).toBe(false);
});
