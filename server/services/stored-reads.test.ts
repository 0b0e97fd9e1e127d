/**
 * Reads that evaluate the stored policy — Landscaper's scope graph, whose
 * installations run their spiff mappings and templates, the Capact Hub's
 * Interfaces, and a tenant's selector rules placing a service — run on a
 * resolver thread, never on the thread that answers requests, and a
 * hostile stored installation ends there as its own budget error.
 *
 * Where the work ran is shown by behaviour, not by timing. The engine asks
 * its host for a deadline (a reading of the host's clock) as each root
 * installation starts (engine/host-clock.ts): this process, the request
 * thread's host, grants a clock that counts its readings, and a read
 * through the thread pool leaves it untouched while the same read done in
 * this process does not. And a service given a resolver that refuses all
 * work cannot answer at all: it has no way of its own to evaluate.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { selectEnvironment, type Candidate } from '../engine/axebow/stage';
import { unitDeadline, useEvaluationClock } from '../engine/host-clock';
import { createResolver, ResolverFailure, type Resolver } from '../resolver';
import type { Actor } from './actor';
import { CapactService } from './capact';
import { createServices, type Services } from './index';
import { LandscaperService } from './landscaper';

const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: { is_operator: 'true' }, provider: 'test' };
const alice: Actor = { id: 'local:Alice', name: 'Alice', labels: { org: 'dev' }, provider: 'test' };

const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
/** Doubling a list 17 times and folding it: more than spiff's 100,000 steps. */
const doubling = [`l0: [1]`, ...Array.from({ length: 17 }, (_, i) => `l${i + 1}: "(( l${i} l${i} ))"`), `n: "(( sum[l17|0|s,x|-> s + x] ))"`].map((l) => `        ${l}`).join('\n');
const POLICY = `${API}
kind: Blueprint
metadata: {name: plain, namespace: ls}
imports: [{name: greeting, type: data, required: false, schema: {type: string}}]
exports: [{name: said, type: data, schema: {type: string}}]
exportExecutions:
  - {name: say, type: GoTemplate, template: "exports: {said: '{{ .imports.greeting }}'}"}
---
${API}
kind: Installation
metadata: {name: hostile, namespace: ls}
spec:
  blueprint: {ref: {resourceName: plain}}
  importDataMappings:
    big:
${doubling}
---
${API}
kind: Installation
metadata: {name: fine, namespace: ls}
spec:
  blueprint: {ref: {resourceName: plain}}
  importDataMappings: {greeting: hello}
  exports: {data: [{name: said, dataRef: said}]}
---
ocfVersion: 0.0.1
revision: 0.1.0
kind: Interface
metadata: {prefix: cap.interface.database.postgresql, name: install}
spec: {input: {}, output: {}}
`;

/** A resolver that refuses everything, as a pool whose threads cannot start would. */
const refusing: Pick<Resolver, 'run'> = { run: () => Promise.reject(new ResolverFailure('its thread stopped (exit code 1)')) };

describe('reads that evaluate the stored policy run on a resolver thread', () => {
  let repos: Repos;
  let threaded: Services;
  let inline: Services;
  let readings = 0;

  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    // As the server runs: a pool of threads.
    threaded = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], freeNamespaces: ['ls'], resolver: { threads: 1, timeoutMs: 60_000, memoryMb: 512 } });
    inline = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], freeNamespaces: ['ls'] });
    await threaded.policy.apply(sam, { text: POLICY, baseGeneration: await repos.policy.head() });
  });
  after(async () => {
    await threaded.resolution.close();
    await inline.resolution.close();
  });
  afterEach(() => useEvaluationClock(() => performance.now(), 5000));

  /** This thread's clock, counting how often the engine here reads it. */
  const countReadings = () => {
    readings = 0;
    useEvaluationClock(() => {
      readings++;
      return performance.now();
    }, 5000);
  };

  test('the host of resolutions grants the engine a clock: 5 s per claim, installation or choice', () => {
    assert.equal(unitDeadline()?.ms, 5000);
  });

  test('Landscaper: the installations run on a thread; the hostile one fails on its spiff budget, named; the other succeeds', async () => {
    countReadings();
    const view = await threaded.landscaper.scopes(alice, { namespace: 'ls' });
    const hostile = view.installations.find((i) => i.path === 'hostile')!;
    assert.equal(hostile.phase, 'Failed');
    assert.deepEqual(
      hostile.errors.map((e) => [e.code, e.installation, e.message]),
      [['data_mapping', 'hostile', 'importDataMappings: big: n: evaluation took more than 100000 steps in (( sum[l17|0|s,x|-> s + x] ))']],
    );
    const fine = view.installations.find((i) => i.path === 'fine')!;
    assert.equal(fine.phase, 'Succeeded', JSON.stringify(fine.errors));
    assert.deepEqual(fine.exports, { said: 'hello' });
    assert.equal(readings, 0, 'no installation was run on this thread');

    // The seam sees work done here: the same read, resolving in process, reads this clock (as each root starts, and as its mappings run).
    countReadings();
    const here = await inline.landscaper.scopes(alice, { namespace: 'ls' });
    assert.deepEqual(here.installations, view.installations);
    assert.ok(readings > 0);
  });

  test('Landscaper and Capact: given a resolver that refuses all work, the services cannot answer', async () => {
    const landscaper = new LandscaperService(repos, threaded.access, refusing);
    await assert.rejects(landscaper.scopes(alice, { namespace: 'ls' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'LIMIT_EXCEEDED');
      assert.match(e.message, /^The installations of generation \d+ could not be run: its thread stopped \(exit code 1\)\.$/);
      return true;
    });
    await assert.rejects(new CapactService(repos, undefined, refusing).interfaces(alice), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'LIMIT_EXCEEDED');
      assert.match(e.message, /^The stored Hub could not be read: its thread stopped \(exit code 1\)\.$/);
      return true;
    });
  });

  test('Capact: the Hub read on a thread lists its Interfaces, once per generation', async () => {
    const pool = createResolver({ threads: 1 });
    const asked: string[] = [];
    const counting: Pick<Resolver, 'run'> = {
      run: (req) => {
        asked.push(req.op);
        return pool.run(req);
      },
    };
    try {
      const capact = new CapactService(repos, undefined, counting);
      const want = [{ path: 'cap.interface.database.postgresql.install', revisions: ['0.1.0'] }];
      assert.deepEqual(await capact.interfaces(alice), want);
      assert.deepEqual(await capact.interfaces(sam), want);
      assert.deepEqual(asked, ['capactInterfaces']);
    } finally {
      await pool.close();
    }
  });

  test("Axebow: a tenant's rules choose an environment on a thread, as they would in process", async () => {
    const pool = createResolver({ threads: 1 });
    try {
      const env = (id: number, name: string, tier: string, free: number): Candidate => ({ id, name, info: { id, name, meta: { tier } }, over: [], freeVcpuMillisAfter: free });
      const input = {
        rules: {
          selectEnvironmentService: [{ reason: 'production tier', sel: ['$.environment.meta.tier', 'prod', '::eq'] }],
          selectAcceptEnvironmentService: [{ reason: 'small services, with approval', sel: ['$.service.cost.vcpu', 2, '::lt'] }],
        },
        tenant: { name: 'acme' },
        user: { name: 'alice', role: 'plain' },
        resources: [],
        candidates: [env(1, 'main/dev', 'dev', 9000), env(2, 'main/prod', 'prod', 500), env(3, 'main/big', 'dev', 9000)],
      };
      // What `$.service` reads differs by candidate: its cost where it lands.
      const services: Record<number, Record<string, unknown>> = { 1: { cost: { vcpu: 1 } }, 2: { cost: { vcpu: 1 } }, 3: { cost: { vcpu: 4 } } };
      const onThread = await pool.run({ op: 'placement', input: { ...input, services } });
      assert.deepEqual(onThread, selectEnvironment({ ...input, service: (c) => services[c.id]! }));
      assert.deepEqual(
        onThread.table.map((r) => [r.environment, r.outcome]),
        [
          ['main/prod', 'accepted'],
          ['main/dev', 'requiring'],
          ['main/big', 'excluded'],
        ],
      );
    } finally {
      await pool.close();
    }
  });
});
