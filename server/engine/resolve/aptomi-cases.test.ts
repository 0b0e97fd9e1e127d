/**
 * Aptomi's own expectations, as data: the 14 resolver unit tests transcribed
 * in corpus/aptomi/derived/resolver-cases.yaml, and the golden output of
 * Aptomi's resolver on its shipped examples (derived/expected-examples.yaml).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { formatDiagnostic, hasErrors } from '../diagnostics';
import { loadObjects } from '../model/validate';
import { parseUsers, type PolicyUser } from '../model/users';
import { loadPolicyFiles } from '../../loader/files';
import { resolvePolicy, type DesiredState } from './index';
import { aptomiOf } from '../state';

const CORPUS = join(process.cwd(), 'corpus/aptomi');

interface CaseExpect {
  claims: Record<string, { resolved: boolean; instance?: string; error?: string }>;
  instanceCount: number;
  instances?: Record<string, { claims?: number; labels?: Record<string, string>; labelsAbsent?: string[]; discovery?: unknown; codeParams?: unknown }>;
}
interface ResolverCase {
  name: string;
  users: { name: string; labels?: Record<string, string> }[];
  policy: unknown[];
  expect: CaseExpect;
}

const cases = (parse(readFileSync(join(CORPUS, 'derived/resolver-cases.yaml'), 'utf8')) as { cases: ResolverCase[] }).cases;

describe('Aptomi resolver cases (derived/resolver-cases.yaml)', () => {
  test('the file holds the 14 cases', () => assert.equal(cases.length, 14));
  for (const c of cases) {
    test(c.name, () => {
      const loaded = loadObjects(stringify(c.policy), `${c.name}.yaml`);
      assert.ok(!hasErrors(loaded.diagnostics), loaded.diagnostics.map(formatDiagnostic).join('\n'));
      const users: PolicyUser[] = c.users.map((u) => ({ name: u.name, labels: u.labels ?? {}, secrets: {} }));
      const state = resolvePolicy({ objects: loaded.objects, users });
      const byClaim = new Map(state.claims.map((o) => [`${o.namespace}/${o.name}`, o]));
      for (const [key, want] of Object.entries(c.expect.claims)) {
        const got = byClaim.get(key);
        assert.ok(got, `claim ${key} missing`);
        assert.equal(got.status === 'resolved', want.resolved, `${key}: ${got.status} ${got.errors.join('; ')}`);
        if (want.instance) assert.equal(got.instance, want.instance);
        if (want.error) assert.ok(got.errors.some((e) => e.includes(want.error!)), `${key}: "${want.error}" not in ${JSON.stringify(got.errors)}`);
      }
      assert.equal(state.instances.length, c.expect.instanceCount, state.instances.map((i) => i.key).join('\n'));
      const byKey = new Map(state.instances.map((i) => [i.key, i]));
      for (const [key, want] of Object.entries(c.expect.instances ?? {})) {
        const got = byKey.get(key);
        assert.ok(got, `instance ${key} missing`);
        if (want.claims !== undefined) assert.equal(got.claims.length, want.claims, key);
        if (want.labels) for (const [k, v] of Object.entries(want.labels)) assert.equal(got.labels[k], v, `${key} label ${k}`);
        for (const k of want.labelsAbsent ?? []) assert.ok(!(k in got.labels), `${key} should not have label ${k}`);
        if (want.discovery) assert.deepEqual(got.discovery, want.discovery);
        if (want.codeParams) assert.deepEqual(got.code?.params, want.codeParams);
      }
    });
  }
});

interface ExampleInstance {
  deployName: string;
  instanceId: number;
  isCode: boolean;
  claimDepth: Record<string, number>;
  edgesOut?: string[];
  labels?: Record<string, string>;
  labelKeys?: string[];
  codeParams?: unknown;
  discovery?: unknown;
}
interface ExampleSet {
  files: string[];
  users: string;
  claims: Record<string, { resolved: boolean; instance?: string; errors?: string[] }>;
  instanceCount: number;
  instances: Record<string, ExampleInstance>;
}

const examples = parse(readFileSync(join(CORPUS, 'derived/expected-examples.yaml'), 'utf8')) as Record<string, ExampleSet>;

/** Aptomi's claim key is `ns/claim/name`; ours is `ns/name`. */
const ourClaim = (k: string) => k.replace('/claim/', '/');

export function resolveExample(set: ExampleSet): DesiredState {
  const loaded = loadPolicyFiles(set.files.map((f) => join(CORPUS, f)));
  assert.ok(!hasErrors(loaded.diagnostics), loaded.diagnostics.map(formatDiagnostic).join('\n'));
  const users = parseUsers(readFileSync(join(CORPUS, set.users), 'utf8')).users;
  return resolvePolicy({ objects: loaded.objects, users });
}

describe('Aptomi example golden output (derived/expected-examples.yaml)', () => {
  for (const [name, set] of Object.entries(examples)) {
    test(name, () => {
      const state = resolveExample(set);
      const claims = new Map(state.claims.map((o) => [`${o.namespace}/${o.name}`, o]));
      assert.equal(state.claims.length, Object.keys(set.claims).length);
      for (const [key, want] of Object.entries(set.claims)) {
        const got = claims.get(key)!;
        assert.equal(got.status === 'resolved', want.resolved, `${key}: ${got.errors.join('; ')}`);
        if (want.instance) assert.equal(got.instance, want.instance);
        // Keelson names the deciding rule after Aptomi's message.
        for (const e of want.errors ?? []) assert.ok(got.errors.some((g) => g.startsWith(e)), `${key}: "${e}" not a prefix of ${JSON.stringify(got.errors)}`);
      }
      assert.deepEqual(state.instances.map((i) => i.key), Object.keys(set.instances).sort());
      assert.equal(state.instances.length, set.instanceCount);
      for (const inst of state.instances) {
        const want = set.instances[inst.key]!;
        const ctx = inst.key;
        assert.equal(inst.deployName, want.deployName, ctx);
        assert.equal(inst.instanceId, String(want.instanceId), ctx);
        assert.equal(inst.code !== null, want.isCode, ctx);
        assert.deepEqual(
          aptomiOf(inst)?.claimDepth,
          Object.fromEntries(Object.entries(want.claimDepth).map(([k, v]) => [ourClaim(k), v])),
          ctx,
        );
        assert.deepEqual(inst.edges, [...(want.edgesOut ?? [])].sort(), ctx);
        if (want.labels) assert.deepEqual(inst.labels, want.labels, ctx);
        // Shared instances: Aptomi's label values were non-deterministic; ours are the primary claim's.
        if (want.labelKeys) for (const k of Object.keys(inst.labels)) assert.ok(want.labelKeys.includes(k), `${ctx}: unexpected label ${k}`);
        if (want.codeParams !== undefined) assert.deepEqual(inst.code?.params, want.codeParams, ctx);
        if (want.discovery !== undefined) assert.deepEqual(inst.discovery, want.discovery, ctx);
      }
    });
  }
});
