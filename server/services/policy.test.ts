/**
 * Writes through the policy service: bad input of every sort is refused with
 * a message naming object, field and line — and nothing changes.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import type { Actor } from './actor';
import { AppError } from '../errors';
import { AccessService } from './access';
import { PolicyService } from './policy';

const alice: Actor = { id: 'local:alice', name: 'alice', labels: {}, provider: 'test' };

const GOOD = `# the first bundle
- kind: bundle
  metadata:
    namespace: main
    name: web
  components:
    - name: app
      code:
        type: helm
        params: {chartName: web}
- kind: Service
  metadata: {namespace: main, name: web}
  contexts:
    - name: all
      allocation: {bundle: web}
`;

async function refused(p: Promise<unknown>, code: string, ...needles: (string | RegExp)[]): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AppError, `expected AppError, got ${e}`);
    assert.equal(e.code, code, e.message);
    for (const n of needles) {
      const hay = `${e.message}\n${(e.diagnostics ?? []).map((d) => `${d.line}:${d.column} ${d.message} ${d.object ?? ''}`).join('\n')}`;
      if (typeof n === 'string') assert.ok(hay.includes(n), `"${n}" not in:\n${hay}`);
      else assert.match(hay, n);
    }
    return e;
  }
  assert.fail('expected the call to be refused');
}

describe('PolicyService writes', () => {
  let repos: Repos;
  let svc: PolicyService;
  beforeEach(async () => {
    repos = memoryRepos();
    // An empty install: only a configured domain admin may write the first policy.
    svc = new PolicyService(repos, undefined, new AccessService(repos, ['alice']));
    await svc.apply(alice, { text: GOOD, baseGeneration: 0 });
  });

  const unchanged = async () => {
    assert.equal(await repos.policy.head(), 1, 'nothing may be written');
    assert.deepEqual((await repos.policy.listObjects()).map((o) => o.name), ['web', 'web']);
  };

  test('a list of objects becomes one generation; kinds are matched without regard to case', async () => {
    const objs = await repos.policy.listObjects();
    assert.deepEqual(objs.map((o) => `${o.kind}/${o.name}`), ['bundle/web', 'service/web']);
    assert.ok(objs[0]!.text.startsWith('# the first bundle\nkind: bundle'), objs[0]!.text);
  });

  test('--- documents are accepted too', async () => {
    const r = await svc.apply(alice, {
      text: 'kind: claim\nmetadata: {namespace: main, name: c1}\nuser: alice\nservice: web\n---\nkind: claim\nmetadata: {namespace: main, name: c2}\nuser: bob\nservice: main/web\n',
      baseGeneration: 1,
    });
    assert.equal(r.generation, 2);
    assert.deepEqual(r.changes.map((c) => c.name), ['c1', 'c2']);
  });

  test('malformed YAML', async () => {
    await refused(svc.apply(alice, { text: 'kind: bundle\nmetadata: {namespace: main\n', baseGeneration: 1 }), 'INVALID_INPUT', /line 3, column 1/, 'YAML syntax error');
    await unchanged();
  });

  test('unknown kind lists the known kinds', async () => {
    await refused(
      svc.apply(alice, { text: 'kind: widget\nmetadata: {namespace: main, name: w}\n', baseGeneration: 1 }),
      'INVALID_INPUT',
      'unknown kind "widget"; known kinds: aclrule, action, attribute, blueprint, bundle, claim, cluster, context, dataobject, deployment, implementation, installation, interface, policy, rule, service, target, type, typeinstance',
      'line 1, column 7',
    );
    await unchanged();
  });

  test('unknown field names the field, the object and the line', async () => {
    await refused(
      svc.apply(alice, { text: 'kind: claim\nmetadata: {namespace: main, name: c}\nuser: a\nservice: web\nlabelz: {}\n', baseGeneration: 1 }),
      'INVALID_INPUT',
      'unknown field "labelz"',
      'claim/main/c',
      '5:1',
    );
    await unchanged();
  });

  test('wrongly typed field', async () => {
    await refused(
      svc.apply(alice, { text: 'kind: rule\nmetadata: {namespace: main, name: r}\nweight: heavy\nactions: {claim: reject}\n', baseGeneration: 1 }),
      'INVALID_INPUT',
      'weight: expected number, got string "heavy"',
      '3:9',
    );
    await unchanged();
  });

  test('duplicate names in one write', async () => {
    await refused(
      svc.apply(alice, {
        text: '- {kind: claim, metadata: {namespace: main, name: c}, user: a, service: web}\n- {kind: claim, metadata: {namespace: main, name: c}, user: b, service: web}\n',
        baseGeneration: 1,
      }),
      'INVALID_INPUT',
      'duplicate claim "main/c"',
    );
    await unchanged();
  });

  test('an object over 1 MiB', async () => {
    const big = 'x'.repeat(1024 * 1024);
    await refused(
      svc.apply(alice, { text: `kind: bundle\nmetadata: {namespace: main, name: big}\nlabels: {blob: "${big}"}\n`, baseGeneration: 1 }),
      'INVALID_INPUT',
      'over the limit of 1048576 bytes',
      'bundle/main/big',
    );
    await unchanged();
  });

  test('a request over 10 MiB', async () => {
    await refused(svc.apply(alice, { text: ' '.repeat(10 * 1024 * 1024 + 1), baseGeneration: 1 }), 'PAYLOAD_TOO_LARGE', '10 MiB');
    await unchanged();
  });

  test('anonymous writes and reads are refused', async () => {
    await refused(svc.apply(null, { text: GOOD, baseGeneration: 1 }), 'UNAUTHORIZED');
    await refused(svc.delete(null, { ids: [{ kind: 'bundle', namespace: 'main', name: 'web' }], baseGeneration: 1 }), 'UNAUTHORIZED');
    await refused(svc.listObjects(null), 'UNAUTHORIZED');
    await unchanged();
  });

  test('a stale write is a conflict that says what to do', async () => {
    await svc.apply(alice, { text: GOOD.replace('web}', 'web2}'), baseGeneration: 1 });
    await refused(svc.apply(alice, { text: GOOD.replace('chartName: web', 'chartName: other'), baseGeneration: 1 }), 'CONFLICT', 'Reload', 'Nothing was saved');
    assert.equal(await repos.policy.head(), 2);
  });

  test('a save from the editor based on an older generation goes on the newest when nothing since changed its object', async () => {
    // Someone else's write (another object) after the editor loaded generation 1.
    await svc.apply(alice, { text: GOOD.replace(/web/g, 'shop'), baseGeneration: 1 });
    const cur = (await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!;
    const saved = await svc.saveObject(alice, { id: cur, text: cur.text.replace('chartName: web', 'chartName: web2'), baseGeneration: 1 });
    assert.equal(saved.generation, 3);
    // The other write is kept: the save changed its own object only.
    assert.equal((await repos.policy.getGeneration(3))!.changes.map((c) => `${c.kind}/${c.name}`).join(), 'bundle/web');
    assert.ok(await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'shop' }));
    assert.match((await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!.text, /chartName: web2/);
    // A base past the head was never loaded: refused, as before.
    await refused(svc.saveObject(alice, { id: cur, text: cur.text.replace('chartName: web', 'chartName: later'), baseGeneration: 99 }), 'CONFLICT', 'Reload');
    assert.equal(await repos.policy.head(), 3);
  });

  test('a save from the editor is a conflict when its object changed since it was loaded (or was made, for a new one)', async () => {
    const cur = (await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!;
    await svc.saveObject(alice, { id: cur, text: cur.text.replace('chartName: web', 'chartName: theirs'), baseGeneration: 1 });
    // A write to another object after it, so the change to this one is not the newest.
    await svc.apply(alice, { text: GOOD.replace(/web/g, 'shop'), baseGeneration: 2 });
    await refused(svc.saveObject(alice, { id: cur, text: cur.text.replace('chartName: web', 'chartName: mine'), baseGeneration: 1 }), 'CONFLICT', 'Reload', 'Nothing was saved');
    assert.equal(await repos.policy.head(), 3);
    assert.match((await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!.text, /chartName: theirs/);
    // A new object someone else made meanwhile: the editor (loaded at 1) cannot save over it.
    const made = GOOD.replace(/web/g, 'new').split('- kind: Service')[0]!;
    await svc.apply(alice, { text: made, baseGeneration: 3 });
    await refused(svc.saveObject(alice, { text: made.replace('chartName: new', 'chartName: other'), baseGeneration: 1 }), 'CONFLICT');
    assert.equal(await repos.policy.head(), 4);
  });

  test('an object opened while someone saves it is shown as of the generation the editor will save on', async () => {
    // Bob's save of the same object lands while Alice's editor opens it: between the object's read and the head's.
    const inner = repos.policy;
    let once = true;
    const racing: Repos = {
      ...repos,
      policy: Object.assign(Object.create(inner) as typeof inner, {
        getObject: async (...args: Parameters<typeof inner.getObject>) => {
          const found = await inner.getObject(...args);
          if (once && args[0].name === 'web') {
            once = false;
            const cur = (await inner.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!;
            await svc.saveObject(alice, { id: cur, text: cur.text.replace('chartName: web', 'chartName: bobs'), baseGeneration: await inner.head() });
          }
          return found;
        },
      }),
    };
    const editor = new PolicyService(racing, undefined, new AccessService(racing, ['alice']));
    const opened = await editor.getObject(alice, { kind: 'bundle', namespace: 'main', name: 'web' });
    assert.equal(await repos.policy.head(), 2, "Bob's save is in");
    // Alice saves what she saw with her edit: based on what she was shown, it meets Bob's change and is refused.
    await refused(
      editor.saveObject(alice, { id: { kind: 'bundle', namespace: 'main', name: 'web' }, text: opened.text.replace('chartName: web', 'chartName: alices'), baseGeneration: opened.head }),
      'CONFLICT',
      'Reload',
    );
    assert.match((await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!.text, /chartName: bobs/, "Bob's change is kept");
  });

  test('an object opened says whether the reader may change it, and why not', async () => {
    const bob: Actor = { id: 'local:bob', name: 'bob', labels: { team: 'shop' }, provider: 'test' };
    const carol: Actor = { id: 'local:carol', name: 'carol', labels: {}, provider: 'test' };
    // Bob consumes services in main; Carol has no role anywhere; Alice (a domain admin) claims for Bob.
    await svc.apply(alice, {
      text: `kind: aclrule\nmetadata: {namespace: system, name: consumers}\ncriteria: {require-all: ["team == 'shop'"]}\nactions: {add-role: {service-consumer: main}}\n---\nkind: claim\nmetadata: {namespace: main, name: bobs}\nuser: bob\nservice: web\n---\nkind: claim\nmetadata: {namespace: main, name: alices}\nuser: alice\nservice: web\n`,
      baseGeneration: 1,
    });
    const open = (who: Actor, name: string) => svc.getObject(who, { kind: 'claim', namespace: 'main', name });
    assert.deepEqual(await open(bob, 'bobs').then((o) => [o.canEdit, o.readOnlyReason]), [true, null], 'his own claim');
    assert.deepEqual(await open(alice, 'bobs').then((o) => [o.canEdit, o.readOnlyReason]), [true, null], 'a domain admin');
    // Bob may manage claims in main, but not one acting for Alice.
    const forAlice = await open(bob, 'alices');
    assert.equal(forAlice.canEdit, false);
    assert.match(forAlice.readOnlyReason!, /in the name of user "alice"/);
    // Carol is refused both ways: the missing role is what she is told.
    const carols = await open(carol, 'bobs');
    assert.equal(carols.canEdit, false);
    assert.match(carols.readOnlyReason!, /managing claims in namespace main needs the service-consumer/);
  });

  test('the editor may not rename an object in place', async () => {
    const text = (await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!.text.replace('name: web', 'name: web3');
    await refused(svc.saveObject(alice, { id: { kind: 'bundle', namespace: 'main', name: 'web' }, text, baseGeneration: 1 }), 'INVALID_INPUT', 'bundle/main/web3');
    await unchanged();
  });

  test('the new-object editor creates every object of a multi-document text as one generation', async () => {
    const text = 'kind: bundle\nmetadata: {namespace: main, name: api}\ncomponents:\n  - name: app\n    code: {type: helm, params: {chartName: api}}\n---\nkind: claim\nmetadata: {namespace: main, name: c1}\nuser: alice\nservice: web\n';
    const r = await svc.saveObject(alice, { text, baseGeneration: 1 });
    assert.equal(r.generation, 2);
    assert.deepEqual(r.objects.map((o) => `${o.kind}/${o.name}`), ['bundle/api', 'claim/c1']);
    assert.deepEqual(r.object, { kind: 'bundle', namespace: 'main', name: 'api' });
    assert.deepEqual((await repos.policy.getGeneration(2))!.changes.map((c) => `${c.op} ${c.kind}/${c.name}`), ['create bundle/api', 'create claim/c1']);
  });

  test('a multi-object create with one bad object names it, its field and line, and saves nothing', async () => {
    const text = 'kind: bundle\nmetadata: {namespace: main, name: api}\ncomponents:\n  - name: app\n    code: {type: helm, params: {chartName: api}}\n---\nkind: claim\nmetadata: {namespace: main, name: c1}\nuser: alice\nservic: web\n';
    await refused(svc.saveObject(alice, { text, baseGeneration: 1 }), 'INVALID_INPUT', 'claim/main/c1', /line (7|1[01])/, 'servic', 'Nothing was saved');
    await unchanged();
  });

  test('a multi-object create never overwrites: an object that exists is named with its line', async () => {
    const text = 'kind: claim\nmetadata: {namespace: main, name: c1}\nuser: alice\nservice: web\n---\n' + GOOD.split('- kind: Service')[0]!.replace('# the first bundle\n- ', '').replace(/^  /gm, '');
    await refused(svc.saveObject(alice, { text, baseGeneration: 1 }), 'CONFLICT', 'bundle main/web already exists', '6:1', 'Nothing was saved');
    await unchanged();
    // An object's own page still holds exactly one.
    const cur = (await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!;
    await refused(svc.saveObject(alice, { id: cur, text: `${cur.text}---\n${text.split('---\n')[0]}`, baseGeneration: 1 }), 'INVALID_INPUT', 'exactly one object');
    await unchanged();
  });

  test('saving an object bumps the generation; saving it unchanged does not', async () => {
    const cur = (await repos.policy.getObject({ kind: 'bundle', namespace: 'main', name: 'web' }))!;
    const same = await svc.saveObject(alice, { id: cur, text: cur.text, baseGeneration: 1 });
    assert.equal(same.changed, false);
    const edited = await svc.saveObject(alice, { id: cur, text: cur.text.replace('chartName: web', 'chartName: web2'), baseGeneration: 1 });
    assert.equal(edited.generation, 2);
    assert.equal((await repos.policy.getGeneration(2))?.author, 'alice');
  });

  test('delete, then the diff between generations shows it', async () => {
    await svc.delete(alice, { ids: [{ kind: 'service', namespace: 'main', name: 'web' }], baseGeneration: 1 });
    const d = await svc.diff(alice, 1, 2);
    assert.deepEqual(d.changed, [{ kind: 'service', namespace: 'main', name: 'web' }]);
    assert.ok(d.from.includes('kind: Service'));
    assert.ok(!d.to.includes('kind: Service'));
  });
});
