/**
 * Rights before work: request text is read only after the writer's right to
 * it is known. A user with no role who sends a 10 MiB YAML, a 9 MB string,
 * a Deployment Manager template that renders ten million characters, or
 * text that is not YAML at all gets a refusal (FORBIDDEN) — not the parse
 * error, the size error or the template error that reading it would have
 * found — through every door that takes policy text. A writer with the
 * right gets those per-object errors, with their lines, as before; a writer
 * without the right to one object is refused before any object's kind
 * checks run. What is evaluated goes to the resolver's admission lane,
 * never the request thread.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { createCaller } from '../api/root';
import { loadLocalUsers } from '../auth/users';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { createResolver, InlineResolver, type Resolver } from '../resolver';
import { seedDemo } from '../seed/demo';
import { AccessService } from './access';
import type { Actor } from './actor';
import { PolicyAdmission } from './admission';
import { createServices, type Services } from './index';

const person = (name: string): Actor => {
  const u = loadLocalUsers().find((x) => x.name === name);
  return { id: `local:${name}`, name, labels: u?.labels ?? {}, provider: 'test' };
};
/** Signed in, and given no role by any ACL rule or tenant. */
const nobody = person('nina');

/** A claim with 100,000 labels: a 10 MiB text (within the request limit) that takes the YAML parser seconds. */
const manyLabels = (ns: string) => {
  const value = 'v'.repeat(88);
  let y = `kind: claim\nmetadata: {namespace: ${ns}, name: big}\nuser: nina\nservice: twitter_stats\nlabels:\n`;
  for (let i = 0; i < 100_000; i++) y += `  l${i}: ${value}\n`;
  return y;
};
const longString = (ns: string) => `kind: claim\nmetadata: {namespace: ${ns}, name: long}\nuser: John\nservice: twitter_stats\nlabels: {a: '${'x'.repeat(9_000_000)}'}\n`;
/** A deployment whose save-time check (DM's expansion) would render ten million characters. */
const centred = (ns: string) => `kind: deployment
metadata: {namespace: ${ns}, name: centred}
target: k8s-example
configuration:
  imports: [t.jinja]
  resources: [{name: a, type: t.jinja}]
imports:
  t.jinja: "{{ ''|center(10000000) }}"
`;
const malformed = (ns: string) => `kind: bundle\nmetadata: {namespace: ${ns}, name: broken}\ncomponents: [{name: x, code: {type: helm}\n  nope: : :\n`;

const PAYLOADS = [
  { name: 'a 10 MiB YAML of 100,000 labels', text: manyLabels },
  { name: 'a 9 MB string', text: longString },
  { name: "a DM template {{ ''|center(10000000) }}", text: centred },
  { name: 'malformed YAML', text: malformed },
];

/** The tRPC code and message of a call's refusal ('OK' when it succeeded). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (e) {
    if (e instanceof TRPCError) return `${e.code}: ${e.message}`;
    throw e;
  }
}

describe('rights before work: request text is read only after the right to it is known', () => {
  let repos: Repos;
  let services: Services;
  const as = (a: Actor) => createCaller({ actor: a, services });
  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
  });
  after(() => services.resolution.close());

  for (const p of PAYLOADS) {
    test(`a user with no role sending ${p.name} is refused (FORBIDDEN) by save, apply, delete, preview and Capact's Try it; nothing is written`, async () => {
      const head = await repos.policy.head();
      const text = p.text('social');
      const doors: [string, () => Promise<unknown>][] = [
        ['policy.applyText', () => as(nobody).policy.applyText({ text, baseGeneration: head })],
        ['policy.save', () => as(nobody).policy.save({ text, baseGeneration: head })],
        ['policy.deleteText', () => as(nobody).policy.deleteText({ text, baseGeneration: head })],
        ['revisions.preview', () => as(nobody).revisions.preview({ text })],
        ['capact.tryIt', () => as(nobody).capact.tryIt({ interface: { path: 'cap.interface.database.postgresql.install' }, draft: text })],
      ];
      for (const [door, call] of doors) {
        assert.match(await outcome(call()), /^FORBIDDEN: You may not .*: you have no role that lets you change policy in any namespace/, door);
      }
      assert.equal(await repos.policy.head(), head, 'nothing was written');
    });
  }

  test('with the right, the same texts get their per-object errors with lines, as before: on save, and as a preview that cannot be shown', async () => {
    const john = as(person('John'));
    const head = await repos.policy.head();
    const cases = [
      { text: longString('social'), error: /^UNPROCESSABLE_CONTENT: The policy has an error — line 1, column 1: object is \d+ bytes, over the limit of 1048576 bytes \(1 MiB\) \(claim\/social\/long\)/ },
      // Whatever budget stops the template (the renderer's own, or its output cap), DM's error names the object at its configuration.
      { text: centred('social'), error: /^UNPROCESSABLE_CONTENT: The policy has an error — line 5, column 3: ExpansionError: .*\(deployment\/social\/centred\)/ },
      { text: malformed('social'), error: /^UNPROCESSABLE_CONTENT: The policy has (an error|\d+ errors) — line \d+, column \d+: YAML syntax error/ },
    ];
    for (const c of cases) {
      const err = await john.policy.applyText({ text: c.text, baseGeneration: head }).catch((e: unknown) => e);
      assert.ok(err instanceof TRPCError, String(err));
      assert.match(`${err.code}: ${err.message}`, c.error);
      const diagnostics = (err as TRPCError & { cause?: { diagnostics?: { line?: number }[] } }).cause?.diagnostics ?? [];
      assert.ok(diagnostics.length > 0 && diagnostics.every((d) => typeof d.line === 'number'), 'every diagnostic has its line, for the editor');
      const pv = await john.revisions.preview({ text: c.text });
      assert.equal(pv.ok, false);
      assert.match(pv.ok ? '' : pv.message, /^Fix \d+ problems? to see the preview\.$/);
    }
    assert.equal(await repos.policy.head(), head);
  });

  test('a writer without the right to one of the objects is refused before any object is checked: a costly template beside it is never rendered', async () => {
    // John is a namespace admin of social, and has no role in main: the deployment in social would be his to save, the bundle in main is not.
    const text = `${centred('social')}---\nkind: bundle\nmetadata: {namespace: main, name: theirs}\ncomponents: [{name: x, code: {type: helm}}]\n`;
    const head = await repos.policy.head();
    assert.match(await outcome(as(person('John')).policy.applyText({ text, baseGeneration: head })), /^FORBIDDEN: You may not change bundle main\/theirs/);
    assert.match(await outcome(as(person('John')).revisions.preview({ text })), /^FORBIDDEN: You may not change bundle main\/theirs/);
    // A consumer may save claims in their own name, not deployments: refused with the object named, not with DM's error.
    assert.match(await outcome(as(person('Alice')).policy.applyText({ text: centred('social'), baseGeneration: head })), /^FORBIDDEN: You may not change deployment social\/centred/);
    assert.equal(await repos.policy.head(), head);
  });

  test('with the right, valid text still saves: a claim in one’s own name, a deployment, a delete by text', async () => {
    const john = as(person('John'));
    const claim = 'kind: claim\nmetadata: {namespace: social, name: johns}\nuser: John\nservice: twitter_stats\n';
    const w = await john.policy.applyText({ text: claim, baseGeneration: await repos.policy.head() });
    assert.equal(w.changed, true);
    const d = await john.policy.applyText({ text: centred('social').replace("{{ ''|center(10000000) }}", 'resources: []'), baseGeneration: await repos.policy.head() });
    assert.equal(d.changed, true);
    const del = await john.policy.deleteText({ text: claim, baseGeneration: await repos.policy.head() });
    assert.deepEqual(del.changes.map((c) => `${c.op} ${c.kind}/${c.namespace}/${c.name}`), ['delete claim/social/johns']);
  });
});

describe('admission: what is evaluated is read on the resolver’s admission lane, after the rights', () => {
  /** The requests the admission sends to the resolver, answered in process. */
  function recordingReader(): { reader: Pick<Resolver, 'run'>; ops: string[] } {
    const inline = new InlineResolver();
    const ops: string[] = [];
    return { ops, reader: { run: (req) => (ops.push(req.op), inline.run(req)) } };
  }
  let repos: Repos;
  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
  });

  test('a user with no role: the reader is never asked, whatever the text', async () => {
    const { reader, ops } = recordingReader();
    const admission = new PolicyAdmission(new AccessService(repos, []), reader);
    for (const p of PAYLOADS) {
      await assert.rejects(admission.admit(nobody, p.text('social'), { verb: 'change policy', claimVerb: 'save' }), /you have no role/);
    }
    assert.deepEqual(ops, []);
  });

  test('a kind with a check (templates, DM expansion) is loaded on the lane even when small; a small claim is read in place; a large text is named on the lane too', async () => {
    const { reader, ops } = recordingReader();
    const admission = new PolicyAdmission(new AccessService(repos, []), reader);
    const john = person('John');
    const admit = (text: string) => admission.admit(john, text, { verb: 'change policy', claimVerb: 'save' });
    const dm = await admit(centred('social').replace("{{ ''|center(10000000) }}", 'resources: []'));
    assert.deepEqual([dm.objects.map((o) => o.kind), ops.splice(0)], [['deployment'], ['load']]);
    const claim = await admit('kind: claim\nmetadata: {namespace: social, name: c}\nuser: John\nservice: twitter_stats\n');
    assert.deepEqual([claim.objects.map((o) => o.kind), ops.splice(0)], [['claim'], []]);
    const big = await admit(longString('social'));
    assert.deepEqual([big.diagnostics.map((d) => d.code), ops.splice(0)], [['too_large'], ['identify', 'load']]);
  });

  test('over the admission lane’s budget, the text is refused with the budget named (the thread is replaced; the server carries on)', async () => {
    // A budget far below what parsing 10 MiB of YAML takes on any machine (seconds): the thread's start is not counted in it.
    const pool = createResolver({ threads: 1, admissionThreads: 1, admissionTimeoutMs: 100 });
    try {
      const admission = new PolicyAdmission(new AccessService(repos, []), pool);
      await assert.rejects(
        admission.admit(person('John'), manyLabels('social'), { verb: 'change policy', claimVerb: 'save' }),
        (e: Error & { code?: string }) => e.code === 'LIMIT_EXCEEDED' && /^The server stopped reading this policy: it took longer than 0\.1 s \(KEELSON_READ_TIMEOUT_S\)\. Nothing was saved\.$/.test(e.message),
      );
    } finally {
      await pool.close();
    }
  });
});
