/**
 * Environment selection: outcomes per candidate, the order of the gates,
 * and the tie-breaks, as tables.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Candidate, checkRules, type NeededResource, type Rules, type SelectionInput, selectEnvironment } from './stage';

function env(id: number, name: string, freeMillis: number | null, over: Candidate['over'] = [], meta: Record<string, unknown> = {}): Candidate {
  return { id, name, info: { id, name, meta, labels: {} }, over, freeVcpuMillisAfter: freeMillis };
}

function run(candidates: Candidate[], rules: Rules = {}, extra: Partial<SelectionInput> = {}) {
  return selectEnvironment({
    rules,
    tenant: { name: 'acme' },
    user: { name: 'alice', role: 'plain' },
    service: () => ({ name: 'web', cost: { vcpu: 1 } }),
    resources: [],
    candidates,
    ...extra,
  });
}

const isProd = { reason: 'production only', sel: ['$.environment.meta.tier', 'prod', '::eq'] };
const ownersOnly = { reason: 'owners only', sel: ['$.user.role', 'owner', '::eq'] };

describe('environment selection: tie-breaks', () => {
  const cases: { what: string; candidates: Candidate[]; rules?: Rules; chosen: string | null }[] = [
    { what: 'the most vCPU left free wins', candidates: [env(1, 'a/small', 500), env(2, 'a/big', 3000)], chosen: 'a/big' },
    { what: 'unlimited vCPU counts as the most free', candidates: [env(1, 'a/big', 1e9), env(2, 'a/open', null)], chosen: 'a/open' },
    { what: 'equal room: by name', candidates: [env(2, 'b/x', 1000), env(1, 'a/x', 1000)], chosen: 'a/x' },
    { what: 'equal room and name: by id', candidates: [env(7, 'a/x', 1000), env(3, 'a/x', 1000)], chosen: 'a/x' },
    {
      what: 'accepted beats requiring even with less room',
      candidates: [env(1, 'a/dev', 100, [], { tier: 'dev' }), env(2, 'a/prod', 9000, [], { tier: 'prod' })],
      rules: {
        selectEnvironmentService: [{ reason: 'dev is self-service', sel: ['$.environment.meta.tier', 'dev', '::eq'] }],
        selectAcceptEnvironmentService: [{ reason: 'anything else with approval', sel: [true] }],
      },
      chosen: 'a/dev',
    },
    { what: 'no candidate at all', candidates: [], chosen: null },
    { what: 'every candidate over its marks', candidates: [env(1, 'a/x', -500, [{ dimension: 'vcpu', mark: 1000, usage: 1500 }])], chosen: null },
  ];
  for (const c of cases) {
    test(c.what, () => {
      const s = run(c.candidates, c.rules);
      assert.equal(s.chosen?.environment ?? null, c.chosen);
    });
  }

  test('ties by id pick the lower id', () => {
    assert.equal(run([env(7, 'a/x', 1000), env(3, 'a/x', 1000)]).chosen?.id, 3);
  });
});

describe('environment selection: outcomes and reasons', () => {
  test('no rules: every environment that fits is accepted', () => {
    const s = run([env(1, 'a/x', 1000), env(2, 'a/y', 2000)]);
    assert.deepEqual(
      s.table.map((r) => [r.environment, r.outcome, r.reasons]),
      [
        ['a/y', 'accepted', []],
        ['a/x', 'accepted', []],
      ],
    );
    assert.deepEqual(s.chosen, { environment: 'a/y', id: 2, outcome: 'accepted' });
  });

  test('refused by selectEnvironmentService and no accept rules: excluded, with the rule named', () => {
    const s = run([env(1, 'a/dev', 1000, [], { tier: 'dev' })], { selectEnvironmentService: [isProd] });
    assert.equal(s.chosen, null);
    assert.equal(s.table[0]!.outcome, 'excluded');
    assert.match(s.table[0]!.reasons.join('\n'), /selectEnvironmentService "production only" is false/);
    assert.match(s.table[0]!.reasons.join('\n'), /selectAcceptEnvironmentService: no rule admits it/);
  });

  test('refused by the first set, admitted by the second: requiring, and the reason says it needs acceptance', () => {
    const s = run([env(1, 'a/dev', 1000, [], { tier: 'dev' })], { selectEnvironmentService: [isProd], selectAcceptEnvironmentService: [{ reason: 'with approval', sel: [true] }] });
    assert.deepEqual(s.chosen, { environment: 'a/dev', id: 1, outcome: 'requiring' });
    assert.match(s.table[0]!.reasons[0]!, /^needs explicit acceptance: selectEnvironmentService "production only" is false/);
  });

  test('capacity is checked first: an environment over its marks is excluded whatever the rules say', () => {
    const s = run([env(1, 'a/x', -1, [{ dimension: 'memory', mark: 1024, usage: 2048 }])], { selectEnvironmentService: [{ reason: 'always', sel: [true] }] });
    assert.deepEqual(s.table[0]!.reasons, ['over its memory mark: 2048 needed, 1024 allowed']);
  });

  test('validateEnvironmentUser excludes for the acting user', () => {
    const rules: Rules = { validateEnvironmentUser: [ownersOnly] };
    assert.equal(run([env(1, 'a/x', 1000)], rules).chosen, null);
    assert.match(run([env(1, 'a/x', 1000)], rules).table[0]!.reasons[0]!, /validateEnvironmentUser "owners only" is false/);
    assert.equal(run([env(1, 'a/x', 1000)], rules, { user: { name: 'olga', role: 'owner' } }).chosen?.environment, 'a/x');
  });

  test('a selector that fails to run counts as false, and the error is the reason', () => {
    const s = run([env(1, 'a/x', 1000)], { selectEnvironmentService: [{ reason: 'tier check', sel: ['$.environment.meta.tier', 'prod', '::eq'] }] });
    assert.equal(s.table[0]!.outcome, 'excluded');
    assert.match(s.table[0]!.reasons[0]!, /"tier check" could not run: .*tier/);
  });

  test('the service context reflects the candidate (its cost where it lands)', () => {
    const rules: Rules = { selectEnvironmentService: [{ reason: 'at most 1 vCPU', sel: ['$.service.cost.vcpu', 1, '::lte'] }] };
    const s = run([env(1, 'a/cheap', 1000), env(2, 'a/dear', 5000)], rules, { service: (c) => ({ cost: { vcpu: c.id === 1 ? 1 : 2 } }) });
    assert.equal(s.chosen?.environment, 'a/cheap');
    assert.equal(s.table.find((r) => r.environment === 'a/dear')!.outcome, 'excluded');
  });
});

describe('environment selection: resources', () => {
  const port = (heldBy: string[] = [], info: Record<string, unknown> | null = { kind: 'port', name: 'web', spec: { port: 8080 } }): NeededResource => ({ kind: 'port', name: 'web', info, heldBy });

  test('an unregistered resource excludes every environment', () => {
    const s = run([env(1, 'a/x', 1000)], {}, { resources: [port([], null)] });
    assert.deepEqual(s.table[0]!.reasons, ['port web is not registered in the tenant']);
  });

  test('an exclusive resource held by another service excludes', () => {
    const s = run([env(1, 'a/x', 1000)], {}, { resources: [port(['api'])] });
    assert.deepEqual(s.table[0]!.reasons, ['port web is held by api']);
  });

  test('a shared kind (secret) may be used by several services', () => {
    const secret: NeededResource = { kind: 'secret', name: 'token', info: { kind: 'secret', name: 'token', spec: {} }, heldBy: ['api'] };
    assert.equal(run([env(1, 'a/x', 1000)], {}, { resources: [secret] }).chosen?.environment, 'a/x');
  });

  test('validateEnvironmentResource runs per resource with $.resource', () => {
    const rules: Rules = { validateEnvironmentResource: [{ reason: 'high ports only', sel: ['$.resource.spec.port', 10000, '::gte'] }] };
    const s = run([env(1, 'a/x', 1000)], rules, { resources: [port()] });
    assert.match(s.table[0]!.reasons[0]!, /validateEnvironmentResource \(port web\) "high ports only" is false/);
  });
});

describe('tenant rules: the save-time check', () => {
  const cases: { what: string; rules: Rules; problems: RegExp[] }[] = [
    { what: 'valid rules', rules: { selectEnvironmentService: [isProd], validateEnvironmentUser: [ownersOnly] }, problems: [] },
    { what: 'an unknown operator', rules: { selectEnvironmentService: [{ reason: 'r', sel: [1, 2, '::plus'] }] }, problems: [/^rules\.selectEnvironmentService\[0\]\.sel: .*::plus/] },
    { what: 'a program leaving two values', rules: { validateEnvironmentUser: [{ reason: 'r', sel: [true, true] }] }, problems: [/^rules\.validateEnvironmentUser\[0\]\.sel: /] },
    {
      what: 'a root its rule set does not provide',
      rules: { validateEnvironmentUser: [{ reason: 'r', sel: ['$.service.cost.vcpu', 2, '::lte'] }] },
      problems: [/^rules\.validateEnvironmentUser\[0\]\.sel: \$\.service\.cost\.vcpu: validateEnvironmentUser has no \$\.service/],
    },
    {
      what: '$.resource outside validateEnvironmentResource',
      rules: { selectEnvironmentService: [isProd, { reason: 'r', sel: ['$.resource.kind', 'port', '::eq'] }] },
      problems: [/^rules\.selectEnvironmentService\[1\]\.sel: \$\.resource\.kind: selectEnvironmentService has no \$\.resource/],
    },
  ];
  for (const c of cases) {
    test(c.what, () => {
      const got = checkRules(c.rules).map((p) => `${p.path}: ${p.message}`);
      assert.equal(got.length >= c.problems.length && (c.problems.length > 0 || got.length === 0), true, got.join('\n'));
      c.problems.forEach((re, i) => assert.match(got[i] ?? '', re));
    });
  }
});
