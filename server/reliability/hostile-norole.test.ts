/**
 * Every language the server evaluates — Go templates, govaluate, RE2, YAML,
 * spiff, Jinja, Python, Axebow selectors, Capact rules — sent as a hostile
 * payload through every door that takes it, over HTTP to one console:
 * saved and previewed (tRPC), tried as a Capact draft, carried in an API
 * create's bundle (REST, multipart), expanded by Deployment Manager's API.
 * A user with no role gets a refusal at every door, and nothing is written;
 * a user with the right (the tenant's owner, a namespace admin of its
 * namespace) gets the object's own error — or, for a text that is only
 * costly, an answer — never a 5xx. `npm run bench -- hostile` sends the
 * same payloads while timing the console's other answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { serveEveryDoorForTests } from '../testing/console';
import { DOORS, HOSTILE_TENANT, prepareDoor, prepareRules, send, type Door, type DoorAnswer } from '../testing/hostile-doors';
import { HOSTILE_POLICIES, HOSTILE_SELECTORS } from '../testing/hostile-languages';
import type { TestServer } from '../testing/rest';

/** Signed in; no ACL rule names them, no tenant has them. */
const NOBODY = 'nina';
/** Owner of the tenant: namespace admin of its namespace, and nothing else. */
const OWNER = 'Olga';

describe('hostile payloads in every language: refused to a user with no role at every door; the object’s error for one with the right', () => {
  let repos: Repos;
  let services: Services;
  let server: TestServer;
  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    // As the server runs: resolutions, previews and request text on worker threads. The host's clocks are far away, so what
    // stops a payload is its language's own budget (steps, output, depth) however loaded the machine: beside stress-ng the
    // 20 s read and resolve budgets fired first.
    services = createServices(repos, { usersFile: undefined, domainAdmins: [], freeNamespaces: ['acme-*'], resolver: { threads: 2, timeoutMs: 600_000, admissionTimeoutMs: 600_000, memoryMb: 1024, warmSandbox: true } });
    server = await serveEveryDoorForTests(services);
    const olga = { id: `local:${OWNER}`, name: OWNER, labels: {}, provider: 'test' as const };
    await services.tenants.create(olga, { name: HOSTILE_TENANT.name, namespaces: [HOSTILE_TENANT.namespace] });
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  const through = async (door: Door, p: (typeof HOSTILE_POLICIES)[number], user: string, n: number): Promise<DoorAnswer> =>
    send(server.url, await prepareDoor(door, p, { user, n, baseGeneration: await repos.policy.head() }));

  for (const [i, p] of HOSTILE_POLICIES.entries()) {
    test(`${p.language}, ${p.name}: a user with no role is refused at every door (${DOORS.join(', ')}), and nothing is written`, async () => {
      const head = await repos.policy.head();
      for (const door of DOORS) {
        const r = await through(door, p, NOBODY, i);
        assert.equal(r.status, 403, `${door}: ${r.status} ${r.code} ${r.message}`);
        assert.match(r.message, /^(You may not .*you have no role|Only members of tenant acme may create services)/, door);
      }
      assert.equal(await repos.policy.head(), head);
    });
  }

  for (const [i, s] of HOSTILE_SELECTORS.entries()) {
    test(`Axebow selectors, ${s.name}: refused to a user with no role before it is compiled; the owner gets the program's error`, async () => {
      const r = await send(server.url, prepareRules(s.rules, NOBODY));
      assert.equal(r.status, 403, `${r.status} ${r.message}`);
      const own = await send(server.url, prepareRules(s.rules, OWNER));
      assert.equal(own.status, 400, `${own.status} ${own.message}`);
      assert.match(own.message, /^The tenant's rules have errors: rules\.selectEnvironmentService\[0\]\.sel/, `selector ${i}`);
    });
  }

  // With the right, each through the door that shows its error soonest: a save refuses what cannot be loaded, a preview
  // resolves the rest. Deployment Manager's own door (expand) and a bundle's (an API create) are tried with its template.
  // Python is saved unrun (a save does not wait for an interpreter): the sandbox's own limit stops it (server/dm-python).
  for (const [i, p] of HOSTILE_POLICIES.entries()) {
    // The 9 MB string meets the same per-object limit as the 100,000 labels, for a fraction of the parse.
    if (p.language === 'Python' || p.name.includes('100,000 labels')) continue;
    const outcome = p.fails === 'load' ? 'refused, every error at its line, nothing written' : p.fails === 'resolve' ? 'previewed, its own claims failing' : 'previewed';
    test(`${p.language}, ${p.name}: with the right, ${outcome} — never a 5xx`, async () => {
      const head = await repos.policy.head();
      const n = 100 + i;
      if (p.fails === 'load') {
        const save = await through('save', p, OWNER, n);
        assert.equal(save.code, 'UNPROCESSABLE_CONTENT', `${save.status} ${save.message}`);
        assert.match(save.message, /^The policy has (an error|\d+ errors) — line \d+, column \d+: .*Nothing was saved\.$/);
        const diagnostics = (save.data as { diagnostics?: { severity: string; line?: number; object?: string }[] }).diagnostics ?? [];
        assert.ok(diagnostics.some((d) => d.severity === 'error') && diagnostics.every((d) => typeof d.line === 'number'), JSON.stringify(diagnostics).slice(0, 300));
      } else {
        const preview = await through('preview', p, OWNER, n);
        assert.equal(preview.code, 'OK', `${preview.status} ${preview.message}`);
        const pv = preview.data as { ok: boolean; message?: string; claims?: { name: string; status: string; errors: string[] }[] };
        const own = (pv.claims ?? []).filter((c) => c.name.endsWith(`-hostile-${n}`));
        if (p.fails === 'resolve') assert.ok(!pv.ok || own.every((c) => c.status === 'error'), JSON.stringify(own).slice(0, 300));
      }
      if (p.language === 'Jinja') {
        for (const door of ['expand', 'create'] as const) {
          const r = await through(door, p, OWNER, n);
          assert.equal(r.status, 400, `${door}: ${r.status} ${r.message}`);
          assert.match(r.message, /ExpansionError: /, door);
        }
      }
      assert.equal(await repos.policy.head(), head, 'nothing was written');
    });
  }
});
