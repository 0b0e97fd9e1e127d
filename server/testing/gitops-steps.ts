/**
 * Test fixtures: real instances from resolving Aptomi's shipped examples
 * (twitter-analytics + guestbook, as in derived/expected-examples.yaml), and
 * hand-made steps for cases the corpus does not cover.
 *
 * Not named `*.test.ts`, so the test runner does not load it as a suite.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { formatDiagnostic, hasErrors } from '../engine/diagnostics';
import { parseUsers } from '../engine/model/users';
import { resolvePolicy, type Instance } from '../engine/resolve';
import { loadPolicyFiles } from '../loader/files';
import type { ApplyContext, ApplyStep } from '../apply/actuator';

const CORPUS = join(process.cwd(), 'corpus/aptomi');

let cached: Instance[] | undefined;

/** Instances of the `twitter-analytics+guestbook` example set, resolved by the engine. */
export function corpusInstances(): Instance[] {
  if (cached) return cached;
  const sets = parse(readFileSync(join(CORPUS, 'derived/expected-examples.yaml'), 'utf8')) as Record<
    string,
    { files: string[]; users: string }
  >;
  const set = sets['twitter-analytics+guestbook'];
  if (!set) throw new Error('example set twitter-analytics+guestbook missing from the corpus');
  const loaded = loadPolicyFiles(set.files.map((f) => join(CORPUS, f)));
  if (hasErrors(loaded.diagnostics)) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
  const users = parseUsers(readFileSync(join(CORPUS, set.users), 'utf8')).users;
  cached = resolvePolicy({ objects: loaded.objects, users }).instances;
  return cached;
}

/** A plan step for an instance, as the engine's plan would make it (shape of `PlanStep`). */
export function stepFor(inst: Instance, index: number, action: ApplyStep['action'] = 'create'): ApplyStep {
  return {
    index,
    action,
    key: inst.key,
    deployName: inst.deployName,
    instanceId: inst.instanceId,
    target: inst.target,
    code: inst.code,
    claims: inst.claims,
  };
}

/** Steps for every deployable instance (errored ones are never planned). */
export function corpusSteps(): ApplyStep[] {
  return corpusInstances()
    .filter((i) => !i.error)
    .map((inst, index) => stepFor(inst, index));
}

export function byKey(key: string): Instance {
  const inst = corpusInstances().find((i) => i.key === key);
  if (!inst) throw new Error(`instance ${key} not in the corpus resolution`);
  return inst;
}

export function helmStep(over: Partial<ApplyStep> = {}, params: Record<string, unknown> = {}): ApplyStep {
  return {
    index: 0,
    action: 'create',
    key: 'system#k8s-example#east#platform#kafka#platform#kafka',
    deployName: 'a-b26gs9dni7muc',
    instanceId: '1234567',
    target: { clusterNamespace: 'system', cluster: 'k8s-example', namespace: 'east' },
    code: {
      type: 'helm',
      params: {
        chartRepo: 'https://mirantisworkloads.storage.googleapis.com',
        chartName: 'kafka',
        chartVersion: '1.6.0',
        replicas: 1,
        antiAffinity: 'soft',
        zookeeper: { deployChart: false, addresses: { zookeeper: 'zk-0:2181' } },
        ...params,
      },
    },
    claims: ['social/bob_dev', 'social/alice_dev'],
    ...over,
  };
}

export function rawStep(manifest: string, over: Partial<ApplyStep> = {}): ApplyStep {
  return {
    index: 0,
    action: 'create',
    key: 'system#k8s-example#west#social#guestbook#personal#Alice#frontend',
    deployName: 'a-7ilbf2j7m3pva',
    instanceId: '3037740885',
    target: { clusterNamespace: 'system', cluster: 'k8s-example', namespace: 'west' },
    code: { type: 'raw', params: { manifest } },
    claims: ['social/alice_guestbook'],
    ...over,
  };
}

export function ctx(revisionId: number, generation: number, accepters: string[] = ['alice']): ApplyContext {
  return { revisionId, generation, accepters, author: 'bob' };
}
