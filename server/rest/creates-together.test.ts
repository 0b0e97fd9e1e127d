/**
 * Creates that arrive together: one caller's creates on one tenant, sent
 * while another is being committed, share the next generation (group
 * commit) — each client still gets its own answer, a name sent twice is
 * refused once, other callers keep their own generations, and a batch that
 * would jointly pass an environment's marks falls back to one at a time,
 * so the one that no longer fits is refused (422) and the others land.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { restHarness } from '../testing/rest';


describe('REST API: creates sent together', () => {
  let hold: (() => Promise<void>) | undefined;
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  const api = restHarness({
    freeNamespaces: ['acme-*', 'beta-*', 'gamma-*'],
    // A commit can be held, so that others arrive while it runs (on this in-memory store they would not).
    prepare(repos) {
      const commit = repos.policy.commit.bind(repos.policy);
      repos.policy.commit = async (req) => {
        const h = hold;
        hold = undefined;
        if (h) await h();
        return commit(req);
      };
    },
  });
  const call = api.call;
  // The image the user's demo claim runs: a user's services share its dev instances, and another image would conflict with it (a 422).
  const create = (user: string, tenant: string, name: string, extra: Record<string, unknown> = {}) =>
    call(user, 'POST', `/tenant/${tenant}/service/${name}`, { service: 'social/twitter_stats', labels: { tsvisimage: user === 'Alice' ? 'demo12' : 'demo11' }, ...extra });
  /** Send `first`, hold its commit until `waiting` of `others` (all, by default) wait for it, then let it go. */
  const together = async <T,>(first: () => Promise<T>, others: (() => Promise<T>)[], waiting = others.length): Promise<T[]> => {
    let release!: () => void;
    let held!: () => void;
    const isHeld = new Promise<void>((r) => (held = r));
    hold = () => {
      held();
      return new Promise<void>((r) => (release = r));
    };
    const a = first();
    await Promise.race([isHeld, a.then((r) => { throw new Error(`the first request answered before its commit: ${JSON.stringify(r)}`); })]);
    const rest = others.map((o) => o());
    while (api.services.deployments.createsWaiting() < waiting) await new Promise((r) => setTimeout(r, 5));
    release();
    return Promise.all([a, ...rest]);
  };
  const messageOf = async (generation: number) => (await api.services.policy.getGeneration(sam, generation)).info?.message ?? '';

  test('one caller: every create answered, later arrivals share one generation and one revision', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    const names = ['s1', 's2', 's3', 's4', 's5', 's6'];
    const answers = await together(() => create('Alice', 'acme', names[0]!), names.slice(1).map((n) => () => create('Alice', 'acme', n)));
    for (const a of answers) assert.equal(a.status, 202, JSON.stringify(a.body));
    const generations = answers.map((a) => a.body.data.generation as number);
    // The first one is committed at once, alone; those arriving meanwhile go together.
    assert.equal(new Set(generations).size, 2, `generations: ${generations.join(' ')}`);
    const shared = generations[1]!;
    assert.deepEqual(generations.slice(1), Array(5).fill(shared));
    assert.equal(generations[0], shared - 1);
    assert.match(await messageOf(shared), /^\d+ services of tenant acme \(API, created together\): /);
    const sharers = answers.filter((a) => a.body.data.generation === shared);
    assert.equal(new Set(sharers.map((a) => a.body.data.revision.id)).size, 1, 'one revision holds them');
    assert.notEqual(sharers[0]!.body.data.revision.id, null);
    // Each service is there, in its own history, written in Alice's name.
    const list = await call('Alice', 'GET', '/tenant/acme/service');
    for (const n of names) assert.ok((list.body.data as { name: string }[]).some((s) => s.name === n), `${n} listed`);
    for (const n of names) {
      const history = await call('Alice', 'GET', `/tenant/acme/service/${n}/history`);
      assert.equal(history.body.data[0].author, 'Alice');
    }
  });

  test('a name already taken is refused (409) and the others of its batch still land together', async () => {
    const before = await api.services.policy.head(sam);
    const [first, taken, ...fresh] = await together(() => create('Alice', 'acme', 'warm2'), [() => create('Alice', 'acme', 's1'), () => create('Alice', 'acme', 'f1'), () => create('Alice', 'acme', 'f2')]);
    assert.equal(first!.status, 202);
    assert.equal(taken!.status, 409, JSON.stringify(taken!.body));
    assert.match(taken!.body.content!.message!, /already has a service s1 \(acme-web\)/);
    assert.deepEqual(fresh.map((a) => a.status), [202, 202]);
    assert.equal(fresh[0]!.body.data.generation, fresh[1]!.body.data.generation, 'written together');
    assert.equal(await api.services.policy.head(sam), before + 2, 'the lone first and the batch: two generations');
    assert.match(await messageOf(fresh[0]!.body.data.generation), /^2 services of tenant acme/);
  });

  test('a name sent twice together is created once and refused once (409)', async () => {
    const [first, ...twice] = await together(() => create('Alice', 'acme', 'warm'), [() => create('Alice', 'acme', 'dup'), () => create('Alice', 'acme', 'dup')]);
    assert.equal(first!.status, 202);
    assert.deepEqual(twice.map((a) => a.status).sort(), [202, 409]);
    assert.match(twice.find((a) => a.status === 409)!.body.content!.message!, /already has a service dup/);
  });

  test('different callers do not share a generation', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme/user/Bob?role=admin')).status, 201);
    assert.equal((await call('Bob', 'PUT', '/tenant/acme/user?role=admin')).status, 200);
    const answers = await together(() => create('Alice', 'acme', 'a1'), [() => create('Alice', 'acme', 'a2'), () => create('Alice', 'acme', 'a3'), () => create('Bob', 'acme', 'b1')], 2);
    for (const a of answers) assert.equal(a.status, 202, JSON.stringify(a.body));
    const bob = answers[3]!.body.data.generation as number;
    assert.ok(!answers.slice(0, 3).some((a) => a.body.data.generation === bob), 'Bob’s create is his own generation');
    assert.equal(answers[1]!.body.data.generation, answers[2]!.body.data.generation, 'Alice’s two waiting creates share one');
    assert.equal((await api.services.policy.getGeneration(sam, bob)).info?.author, 'Bob');
  });

  test('together over an environment’s marks: committed one at a time, and the one that no longer fits is refused (422)', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/beta', { namespaces: ['beta-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/beta/account/main', {})).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/beta/account/main/environment/small', { cluster: 'k8s-example', marks: { services: 2 } })).status, 201);
    // Each is placed while the environment is empty, so each fits alone; together the three do not.
    const [first, ...rest] = await together(
      () => create('Alice', 'beta', 'x0', { environment: 'main/small' }),
      ['x1', 'x2'].map((n) => () => create('Alice', 'beta', n, { environment: 'main/small' })),
    );
    assert.equal(first!.status, 202);
    assert.deepEqual(rest.map((a) => a.status).sort(), [202, 422]);
    const refused = rest.find((a) => a.status === 422)!;
    assert.match(refused.body.content!.message!, /^Now, service x[12] would take environment main\/small over its marks \(services: 3 needed, 2 allowed\)/);
    const list = (await call('Alice', 'GET', '/tenant/beta/service')).body.data as { name: string }[];
    assert.equal(list.filter((s) => s.name.startsWith('x')).length, 2, 'two services landed, the third changed nothing');
  });

  test('one create that waited behind another is checked against the marks again (422 when it no longer fits)', async () => {
    // A tenant of its own: usage counts a tenant's services on the environment's cluster.
    assert.equal((await call('Alice', 'POST', '/tenant/gamma', { namespaces: ['gamma-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/gamma/account/main', {})).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/gamma/account/main/environment/one', { cluster: 'k8s-example', marks: { services: 1 } })).status, 201);
    const [first, second] = await together(
      () => create('Alice', 'gamma', 'y0', { environment: 'main/one' }),
      [() => create('Alice', 'gamma', 'y1', { environment: 'main/one' })],
    );
    assert.equal(first!.status, 202);
    assert.equal(second!.status, 422, JSON.stringify(second!.body));
    assert.match(second!.body.content!.message!, /^Now, service y1 would take environment main\/one over its marks \(services: 2 needed, 1 allowed\)/);
  });
});
