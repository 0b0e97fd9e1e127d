/**
 * Hostile policies end as errors on their claims, fast, through the paths a
 * user takes — saving (the generation is resolved and its revision
 * computed) and previewing — while the server keeps answering: the event
 * loop is never blocked for long and a concurrent read returns quickly.
 * A YAML alias bomb is refused at load.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { createCaller } from '../api/root';
import { openDb, type DbHandle } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import { RevisionRepo } from '../repo/revisions';
import { TenantRepo } from '../repo/tenants';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { createServices, type Services } from './index';

const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: { global_ops: 'true' }, provider: 'test' };

const component = (params: string) => `- {kind: bundle, metadata: {namespace: main, name: hb}, components: [{name: x, code: {type: helm, params: {${params}}}}]}`;
const serviceAndClaim = (name: string, extra = '') => `
- {kind: service, metadata: {namespace: main, name: hs}, contexts: [{name: c, allocation: {bundle: hb}}]}
- {kind: claim, metadata: {namespace: main, name: ${name}}, user: Sam, service: hs, labels: {target: k8s-example.west${extra}}}`;

function fanOut(levels: number): string {
  let y = '';
  for (let i = 0; i < levels; i++) {
    y += `\n- {kind: bundle, metadata: {namespace: main, name: fb${i}}, components: [{name: l, service: fs${i + 1}}, {name: r, service: fs${i + 1}}]}`;
    y += `\n- {kind: service, metadata: {namespace: main, name: fs${i}}, contexts: [{name: c, allocation: {bundle: fb${i}, keys: ['{{ .Labels.k }}']}}]}`;
  }
  y += `\n- {kind: bundle, metadata: {namespace: main, name: fb${levels}}, components: [{name: leaf, code: {type: helm}}]}`;
  y += `\n- {kind: service, metadata: {namespace: main, name: fs${levels}}, contexts: [{name: c, allocation: {bundle: fb${levels}}}]}`;
  y += `\n- {kind: claim, metadata: {namespace: main, name: fan}, user: Sam, service: fs0, labels: {k: v, target: k8s-example.west}}`;
  return y;
}

const PAYLOADS: { name: string; claim: string; yaml: string; error: RegExp }[] = [
  {
    name: 'huge printf widths in nested ranges',
    claim: 'printf',
    yaml: component(`a: '{{ range $i, $x := .Labels }}{{ range $j, $y := $.Labels }}{{ printf "%0900000d" 1 }}{{ end }}{{ end }}'`) + serviceAndClaim('printf'),
    error: /larger than|exceeded/,
  },
  { name: '2^30 fan-out through services (traced)', claim: 'fan', yaml: fanOut(30), error: /walks more than 20000 service levels/ },
  { name: 'NUL in the output', claim: 'nul', yaml: component(`a: '{{ printf "%c" 0 }}'`) + serviceAndClaim('nul'), error: /rendered a NUL character, which cannot be stored/ },
  {
    name: 'catastrophic =~ on a long label',
    claim: 'regex',
    yaml: component('a: b') + serviceAndClaim('regex', `, long: '${'a'.repeat(20000)}!'`).replace('allocation: {bundle: hb}', () => `criteria: {require-all: ["long =~ '(a+)+$'"]}, allocation: {bundle: hb}`),
    error: /unable to find matching context/,
  },
];

describe('hostile policies end as claim errors while the server keeps answering', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] }, new RevisionRepo(h.db), new TenantRepo(h.db));
    await services.revisions!.ensureForGeneration(await repos.policy.head());
  });
  after(() => h.close());
  const api = () => createCaller({ actor: sam, services });

  /** Run `work` while timing the event loop and a concurrent read. */
  async function responsive<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; maxLagMs: number; readMs: number }> {
    let maxLag = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      maxLag = Math.max(maxLag, now - last - 10);
      last = now;
    }, 10);
    const t0 = performance.now();
    const read = (async () => {
      await new Promise((r) => setTimeout(r, 5));
      const r0 = performance.now();
      await api().policy.list({});
      return performance.now() - r0;
    })();
    try {
      const value = await work();
      return { value, ms: performance.now() - t0, maxLagMs: maxLag, readMs: await read };
    } finally {
      clearInterval(tick);
    }
  }

  for (const p of PAYLOADS) {
    test(`${p.name}: saved, it fails its claim within 2 s`, async () => {
      const r = await responsive(async () => {
        const w = await api().policy.applyText({ text: p.yaml, baseGeneration: await repos.policy.head() });
        const state = (await services.resolution.ensure(w.generation)).state;
        await services.revisions!.ensureForGeneration(w.generation);
        return state.claims.find((c) => c.namespace === 'main' && c.name === p.claim)!;
      });
      assert.equal(r.value.status, 'error', JSON.stringify(r.value.errors));
      assert.match(r.value.errors[0]!, p.error);
      assert.ok(r.ms < 2000, `took ${r.ms.toFixed(0)} ms`);
      assert.ok(r.readMs < 500, `a concurrent read took ${r.readMs.toFixed(0)} ms`);
      assert.ok(r.maxLagMs < 500, `the event loop was blocked for ${r.maxLagMs.toFixed(0)} ms`);
      // The rest of the demo still resolves.
      const demo = (await services.resolution.ensure(await repos.policy.head())).state.claims.find((c) => c.name === 'alice_dev')!;
      assert.equal(demo.status, 'resolved');
    });

    test(`${p.name}: previewed, it fails its claim within 2 s`, async () => {
      const r = await responsive(() => api().revisions.preview({ text: p.yaml }));
      assert.equal(r.value.ok, true);
      const c = r.value.ok ? r.value.claims.find((x) => x.name === p.claim) : undefined;
      assert.ok(!c || c.status === 'error', JSON.stringify(c));
      assert.ok(r.ms < 2000, `took ${r.ms.toFixed(0)} ms`);
      assert.ok(r.readMs < 500, `a concurrent read took ${r.readMs.toFixed(0)} ms`);
    });
  }

  test('a YAML alias bomb is refused at load, through save and preview, with nothing written', async () => {
    const levels = Array.from({ length: 8 }, (_, i) => `x${i + 1}: &a${i + 1} [*a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}]`).join('\n');
    const bomb = `kind: bundle\nmetadata: {namespace: main, name: bomb}\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n${levels}\ncomponents: [{name: x, code: {type: helm, params: {v: *a8}}}]\n`;
    const head = await repos.policy.head();
    const t0 = performance.now();
    const err = await api().policy.applyText({ text: bomb, baseGeneration: head }).catch((e: unknown) => e);
    assert.ok(err instanceof TRPCError && err.code !== 'INTERNAL_SERVER_ERROR', String(err));
    assert.match(err.message, /alias count indicates a resource exhaustion attack/i);
    const pv = await api().revisions.preview({ text: bomb });
    assert.equal(pv.ok, false);
    assert.ok(performance.now() - t0 < 2000);
    assert.equal(await repos.policy.head(), head);
  });

  test('a label holding NUL is refused at load with its path and line, not a storage failure', async () => {
    const head = await repos.policy.head();
    const err = await api().policy.applyText({ text: 'kind: claim\nmetadata: {namespace: main, name: nul-label}\nuser: Sam\nservice: hs\nlabels: {a: "x\\0y"}\n', baseGeneration: head }).catch((e: unknown) => e);
    assert.ok(err instanceof TRPCError && err.code !== 'INTERNAL_SERVER_ERROR', String(err));
    assert.match(err.message, /line 5, column \d+: labels\.a holds a NUL character/);
    assert.equal(await repos.policy.head(), head);
  });
});
