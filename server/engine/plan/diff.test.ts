/**
 * Aptomi's diff tests (pkg/engine/diff/policy_resolution_diff_test.go,
 * reference aptomi.md §9), rebuilt as small policies resolved by our
 * resolver. Counts are create, delete, update, attach, detach, as there.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DesiredState } from '../resolve';
import { appliedState, diffSortedLists, planRevision, type ActionKind, type RevisionPlan } from './index';
import { EMPTY_STATE, clustersOf, load, resolveYaml, user } from '../../testing/policy-state';

// Aptomi's makePolicyBuilder: one service whose bundle has one code component
// with `param: {{ .Labels.param }}`, a cluster, and a rule placing everything there.
const BASE = `
- {kind: cluster, metadata: {namespace: system, name: c1}, type: kubernetes, config: {defaultnamespace: k8ns}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 0, actions: {change-labels: {set: {target: c1}}}}
- kind: bundle
  metadata: {namespace: main, name: b1}
  components: [{name: comp, code: {type: helm, params: {param: "{{ .Labels.param }}"}}}]
- {kind: service, metadata: {namespace: main, name: s1}, contexts: [{name: ctx, allocation: {bundle: b1}}]}
`;
const claim = (name: string, userName: string, labels: Record<string, string> = {}) =>
  `\n- {kind: claim, metadata: {namespace: main, name: ${name}}, user: ${userName}, service: s1, labels: ${JSON.stringify(labels)}}`;

const users = [user('u1'), user('u2'), user('u3')];
const resolve = (yaml: string) => {
  const s = resolveYaml(yaml, users);
  for (const c of s.claims) assert.equal(c.status, 'resolved', `${c.name}: ${c.errors.join('; ')}`);
  return s;
};
const plan = (before: DesiredState | null, after: DesiredState, yaml = BASE) => planRevision({ before, after, clusters: clustersOf(load(yaml)) });

/** create, delete, update, attach, detach — the argument order of Aptomi's verifyDiff. */
function assertCounts(p: RevisionPlan, create: number, del: number, update: number, attach: number, detach: number) {
  const want: Record<ActionKind, number> = { create, delete: del, update, 'attach-claim': attach, 'detach-claim': detach };
  assert.deepEqual(p.counts, want, p.actions.map((a) => `${a.kind} ${a.key} ${a.claim ?? ''}`).join('\n'));
}

describe("Aptomi's diff table", () => {
  test('empty: the same policy twice gives 0,0,0,0,0 and a no-op', () => {
    const s = resolve(BASE + claim('d1', 'u1', { param: 'value1' }));
    const p = plan(s, resolve(BASE + claim('d1', 'u1', { param: 'value1' })));
    assertCounts(p, 0, 0, 0, 0, 0);
    assert.equal(p.noop, true);
    assert.deepEqual(p.steps, []);
    assert.deepEqual(p.sections, []);
    assert.deepEqual(p.changedClaims, []);
    // An empty policy against itself too.
    assertCounts(plan(resolve(BASE), resolve(BASE)), 0, 0, 0, 0, 0);
  });

  test('adding a claim gives 2,0,0,2,0; a second claim on the same instance 0,0,0,2,0', () => {
    const empty = resolve(BASE);
    const one = resolve(BASE + claim('d1', 'u1', { param: 'value1' }));
    const p1 = plan(empty, one);
    assertCounts(p1, 2, 0, 0, 2, 0);
    assert.deepEqual(p1.changedClaims, ['main/d1']);
    const two = resolve(BASE + claim('d1', 'u1', { param: 'value1' }) + claim('d2', 'u2', { param: 'value1' }));
    const p2 = plan(one, two);
    assertCounts(p2, 0, 0, 0, 2, 0);
    assert.deepEqual(p2.steps, [], 'attaching a claim runs nothing');
    assert.equal(p2.noop, false);
    assert.deepEqual(p2.actions.map((a) => a.claim), ['main/d2', 'main/d2']);
    // d1 uses instances that gained a claim but did not change: only d2 changed.
    assert.deepEqual(p2.changedClaims, ['main/d2']);
  });

  test('a label that feeds a code parameter gives 0,0,2,0,0: the component and a bump of its root', () => {
    const v1 = resolve(BASE + claim('d1', 'u1', { param: 'value1' }));
    const v2 = resolve(BASE + claim('d1', 'u1', { param: 'value2' }));
    const p = plan(v1, v2);
    assertCounts(p, 0, 0, 2, 0, 0);
    const [bump, update] = [p.actions.find((a) => a.key.endsWith('#root'))!, p.actions.find((a) => a.key.endsWith('#comp'))!];
    // The claim's labels reach the instances too (Aptomi: no action for that, so only a note).
    assert.deepEqual(update.notes, ['params changed: param', 'labels changed']);
    assert.match(bump.notes![0]!, /^bump: 1 component changed \(comp\)$/);
    // The root's update bumps times only: it is counted but is no step.
    assert.deepEqual(p.steps.map((s) => [s.action, s.component]), [['update', 'comp']]);
    const step = p.steps[0]!;
    assert.deepEqual(step.code?.params, { param: 'value2' });
    assert.deepEqual(step.previousCode?.params, { param: 'value1' });
    assert.deepEqual(step.claims, ['main/d1']);
    assert.deepEqual(p.changedClaims, ['main/d1']);
  });

  test('deleting the policy gives 0,2,0,0,2', () => {
    const one = resolve(BASE + claim('d1', 'u1', { param: 'value1' }));
    const p = plan(one, resolveYaml('', users));
    assertCounts(p, 0, 2, 0, 0, 2);
    // Per key: detach first, then delete (Aptomi's order).
    assert.deepEqual(p.actions.map((a) => a.kind), ['detach-claim', 'delete', 'detach-claim', 'delete']);
    // Dependents first: the root goes before its component.
    assert.deepEqual(p.steps.map((s) => [s.action, s.component, s.waitsFor]), [['delete', 'root', []], ['delete', 'comp', [0]]]);
    assert.equal(p.steps[1]!.code, null);
    assert.deepEqual(p.steps[1]!.previousCode?.params, { param: 'value1' });
  });

  test('bundle sharing (3 claims keyed by Claim.ID over a shared child) gives 7,0,0,9,0', () => {
    const yaml = `
- {kind: cluster, metadata: {namespace: system, name: c1}, type: kubernetes, config: {defaultnamespace: k8ns}}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 0, actions: {change-labels: {set: {target: c1}}}}
- {kind: bundle, metadata: {namespace: main, name: b1}, components: [{name: child, service: s2}]}
- {kind: bundle, metadata: {namespace: main, name: b2}}
- {kind: service, metadata: {namespace: main, name: s1}, contexts: [{name: ctx, allocation: {bundle: b1, keys: ["{{ .Claim.ID }}"]}}]}
- {kind: service, metadata: {namespace: main, name: s2}, contexts: [{name: ctx, allocation: {bundle: b2}}]}
- {kind: claim, metadata: {namespace: main, name: d1}, user: u1, service: s1}
- {kind: claim, metadata: {namespace: main, name: d2}, user: u2, service: s1}
- {kind: claim, metadata: {namespace: main, name: d3}, user: u3, service: s1}
`;
    const p = plan(resolveYaml('', users), resolve(yaml), yaml);
    assertCounts(p, 7, 0, 0, 9, 0);
    // Shared child root first, then each claim's service component, then its root.
    const order = p.steps.map((s) => `${s.owner}#${s.component}`);
    assert.equal(order[0], 's2#root');
    for (const s of p.steps) for (const w of s.waitsFor) assert.ok(w < s.index);
    const shared = p.steps[0]!;
    assert.deepEqual(shared.claims, ['main/d1', 'main/d2', 'main/d3']);
    for (const s of p.steps.filter((x) => x.component === 'child')) assert.deepEqual(s.waitsFor, [0]);
  });
});

describe('beyond the table', () => {
  test('a claim moving to another instance detaches and attaches; the emptied instance is deleted', () => {
    const a = resolve(BASE + claim('d1', 'u1', { param: 'x' }) + claim('d2', 'u2', { param: 'x' }));
    // With keys on the user, d2 gets its own instance; the shared one keeps d1.
    const keyed = BASE.replace('allocation: {bundle: b1}', 'allocation: {bundle: b1, keys: ["{{ .User.Name }}"]}');
    const b = resolve(keyed + claim('d1', 'u1', { param: 'x' }) + claim('d2', 'u2', { param: 'x' }));
    const p = plan(a, b);
    // Old shared root+comp: 2 detaches each, then deleted; 2 new pairs created and attached.
    assertCounts(p, 4, 2, 0, 4, 4);
    const deletes = p.steps.filter((s) => s.action === 'delete');
    assert.deepEqual(deletes.map((s) => s.component), ['root', 'comp']);
    assert.ok(p.steps.findIndex((s) => s.action === 'delete') > p.steps.findLastIndex((s) => s.action === 'create'), 'make before break');
  });

  test('labels that change no code are noted, not acted on', () => {
    const yaml = BASE.replace('param: "{{ .Labels.param }}"', 'param: fixed');
    const p = plan(resolve(yaml + claim('d1', 'u1', { color: 'red' })), resolve(yaml + claim('d1', 'u1', { color: 'blue' })));
    assert.equal(p.noop, true);
    assert.deepEqual(
      p.notes.map((n) => [n.key.split('#').at(-1), n.note]),
      [['comp', 'labels changed'], ['root', 'labels changed']],
    );
  });

  test('label and discovery notes ride on the action a key already has', () => {
    const yaml = BASE.replace('code: {type: helm', 'discovery: {url: "{{ .Labels.param }}.svc"}, code: {type: helm');
    const p = plan(resolve(yaml + claim('d1', 'u1', { param: 'a' })), resolve(yaml + claim('d1', 'u1', { param: 'b' })), yaml);
    const update = p.actions.find((a) => a.kind === 'update' && a.key.endsWith('#comp'))!;
    assert.deepEqual(update.notes, ['params changed: param', 'labels changed', 'discovery changed']);
    // The root's labels changed too; its bump carries that.
    const root = p.actions.find((a) => a.key.endsWith('#root'))!;
    assert.deepEqual(root.notes?.slice(1), ['labels changed']);
    assert.deepEqual(p.notes, []);
  });

  test('an instance in conflict is held back: nothing created, what runs is kept', () => {
    const one = resolve(BASE + claim('d1', 'u1', { param: 'a' }));
    const conflicted = resolveYaml(BASE + claim('d1', 'u1', { param: 'a' }) + claim('d2', 'u2', { param: 'b' }), users);
    assert.ok(conflicted.instances.every((i) => i.error), 'both claims fail on the conflict');
    const p = plan(one, conflicted);
    assert.equal(p.noop, true);
    assert.deepEqual(p.steps, []);
    assert.equal(p.notes.length, 2);
    assert.ok(p.notes.every((n) => n.note.startsWith('not deployed: ')));
    // Cost and claims reflect that: what ran still runs; d1 failed, d2 is new.
    assert.deepEqual(p.cost.total.delta.instances, 0);
    assert.equal(p.cost.total.after.instances, 1);
    assert.deepEqual(p.changedClaims, ['main/d1', 'main/d2']);
    // What to record as applied: the instances that still run, so the next diff starts from them.
    assert.deepEqual(appliedState(one, conflicted).instances, one.instances);
    assert.equal(plan(appliedState(one, conflicted), one).noop, true);
    // From nothing, a conflicted state deploys nothing.
    const fresh = plan(null, conflicted);
    assert.equal(fresh.noop, true);
    assert.equal(fresh.cost.total.after.instances, 0);
    // An errored instance in the old state never ran: fixing it creates it.
    const fixed = plan(conflicted, resolve(BASE + claim('d1', 'u1', { param: 'a' })));
    assertCounts(fixed, 2, 0, 0, 2, 0);
    // And dropping it altogether removes nothing.
    const dropped = plan(conflicted, resolveYaml('', users));
    assert.equal(dropped.noop, true);
    assert.deepEqual(dropped.notes, []);
  });

  test('sections: one per namespace, sorted, with counts and keys', () => {
    const yaml = `${BASE}
- kind: bundle
  metadata: {namespace: apps, name: web}
  components: [{name: db, service: main/s1}, {name: app, code: {type: helm, params: {x: "1"}}, dependencies: [db]}]
- {kind: service, metadata: {namespace: apps, name: web}, contexts: [{name: ctx, allocation: {bundle: web}}]}
- {kind: rule, metadata: {namespace: apps, name: place}, weight: 0, actions: {change-labels: {set: {target: c1}}}}
- {kind: claim, metadata: {namespace: apps, name: w}, user: u1, service: web, labels: {param: p}}
`;
    const p = plan(null, resolve(yaml), yaml);
    assert.deepEqual(p.sections.map((s) => [s.namespace, s.counts.create, s.counts['attach-claim'], s.keys.length, s.overMarks]), [
      ['apps', 3, 3, 3, false],
      ['main', 2, 2, 2, false],
    ]);
    // Dependencies first, across namespaces: s1's instances, then db (consumes s1), then app (depends on db), then web's root.
    assert.deepEqual(p.steps.map((s) => `${s.namespace}/${s.component}`), ['main/comp', 'main/root', 'apps/db', 'apps/app', 'apps/root']);
    assert.deepEqual(p.steps.map((s) => s.waitsFor), [[], [0], [1], [2], [2, 3]]);
  });
});

describe('claim list comparison', () => {
  test('sorted lists merge; unsorted ones fall back to sets', () => {
    assert.deepEqual(diffSortedLists(['a', 'b', 'd'], ['b', 'c', 'd', 'e']), { added: ['c', 'e'], removed: ['a'] });
    assert.deepEqual(diffSortedLists([], ['a']), { added: ['a'], removed: [] });
    assert.deepEqual(diffSortedLists(['b', 'a'], ['a', 'c']), { added: ['c'], removed: ['b'] });
    assert.deepEqual(diffSortedLists(['a', 'c'], ['c', 'a', 'b']), { added: ['b'], removed: [] });
    const same = ['x', 'y'];
    assert.deepEqual(diffSortedLists(same, same), { added: [], removed: [] });
  });
});

test('from nothing: a null before is the empty state', () => {
  const s = resolve(BASE + claim('d1', 'u1', { param: 'v' }));
  assert.deepEqual(plan(null, s).counts, plan(EMPTY_STATE, s).counts);
});

describe('restarts (state/restart.ts)', () => {
  test('a restart label updates the instances of that role, with nothing else changed, and the step carries the stamp', () => {
    const v1 = resolve(BASE + claim('d1', 'u1', { param: 'value1' }));
    const v2 = resolve(BASE + claim('d1', 'u1', { param: 'value1', 'restart-comp': '2026-11-25T10:00:00.000Z' }));
    const p = plan(v1, v2);
    assertCounts(p, 0, 0, 1, 0, 0);
    assert.deepEqual(p.actions[0]!.notes?.[0], 'restart requested (2026-11-25T10:00:00.000Z)');
    assert.equal(p.steps.length, 1);
    assert.equal(p.steps[0]!.component, 'comp');
    assert.equal(p.steps[0]!.restartedAt, '2026-11-25T10:00:00.000Z');
    // The same stamp again is nothing to do; another role's stamp does not touch this one.
    assert.equal(plan(v2, resolve(BASE + claim('d1', 'u1', { param: 'value1', 'restart-comp': '2026-11-25T10:00:00.000Z' }))).noop, true);
    assertCounts(plan(v1, resolve(BASE + claim('d1', 'u1', { param: 'value1', 'restart-other': '2026-11-25T10:00:00.000Z' }))), 0, 0, 0, 0, 0);
  });

  test('an instance stamp restarts that instance; the latest of the stamps that apply wins', () => {
    const v1 = resolve(BASE + claim('d1', 'u1', { param: 'value1' }));
    const deployName = v1.instances.find((i) => i.component === 'comp')!.deployName;
    const v2 = resolve(BASE + claim('d1', 'u1', { param: 'value1', 'restart-comp': '2026-11-25T10:00:00.000Z', [`restart_${deployName}`]: '2026-11-25T11:00:00.000Z' }));
    const p = plan(v1, v2);
    assert.equal(p.steps.length, 1);
    assert.equal(p.steps[0]!.restartedAt, '2026-11-25T11:00:00.000Z');
    // A parameter change and a restart together are one update, carrying both.
    const v3 = resolve(BASE + claim('d1', 'u1', { param: 'value2', 'restart-comp': '2026-11-25T12:00:00.000Z' }));
    const both = plan(v1, v3);
    assert.equal(both.steps.filter((s) => s.component === 'comp').length, 1);
    assert.equal(both.steps.find((s) => s.component === 'comp')!.restartedAt, '2026-11-25T12:00:00.000Z');
  });
});
