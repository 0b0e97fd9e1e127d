/**
 * States crossing from the resolver thread as their change from the state
 * sent before (state-delta.ts): what the request thread builds equals the
 * text parsed whole, shares the unchanged items with the previous state,
 * and falls back to the text whenever the change does not fit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatePolicy, toPolicyInput } from '../../bench/generator';
import { storedAsArrived, toGzJsonAsync } from '../db/gz-json';
import { gunzipSync } from 'node:zlib';
import { decodeState, encodeState } from './state-delta';
import { createResolver } from './index';
import type { EngineObject } from '../engine';

const unzip = (b64: string) => gunzipSync(Buffer.from(b64, 'base64')).toString('utf8');

/** A claim of the policy with one label changed: one service placed differently, the rest as it was. */
function relabelled(input: ReturnType<typeof toPolicyInput>, nth: number, value: string): EngineObject {
  const claim = input.objects.filter((o) => o.kind === 'claim')[nth]!;
  const spec = structuredClone(claim.spec) as { labels?: Record<string, string> };
  spec.labels = { ...spec.labels, edited: value };
  return { ...claim, spec } as EngineObject;
}

test('built from the previous state it equals the text parsed whole, sharing what did not change; any other state is parsed', () => {
  const a = { claims: [{ name: 'a', n: 1 }, { name: 'b', n: 2 }], instances: [{ key: 'x' }, { key: 'y' }, null], errors: [], extra: undefined };
  const b = { claims: [{ name: 'b', n: 2 }, { name: 'c', n: 3 }, { name: 'a', n: 1 }], instances: [{ key: 'y' }, { key: 'z', deep: { v: [1, 'é', '\u2028'] } }], errors: [{ message: 'x' }] };
  const first = encodeState(a, undefined);
  assert.equal(first.json, JSON.stringify(a), 'the text is JSON.stringify’s');
  assert.equal(first.change, undefined, 'nothing sent before: no change to send');
  const before = JSON.parse(first.json) as typeof b;
  const second = encodeState(b, first.sent);
  assert.equal(second.json, JSON.stringify(b));
  const built = decodeState(second.change!, before) as typeof b;
  assert.deepEqual(built, JSON.parse(second.json));
  assert.deepEqual(Object.keys(built), Object.keys(JSON.parse(second.json) as object), 'keys in the same order');
  assert.equal(built.claims[0], before.claims[1], 'an unchanged claim is the previous state’s object');
  assert.equal(built.claims[2], before.claims[0]);
  assert.equal(built.instances[0], before.instances[1]);
  assert.equal(JSON.parse(second.change!.fresh.claims!).length, 1, 'only the new claim crossed as its own text');

  // A previous state that is not the one the change is from: shorter, or not a state at all.
  assert.equal(decodeState(second.change!, { claims: [], instances: [] }), undefined);
  assert.equal(decodeState(second.change!, null), undefined);
  assert.equal(decodeState(second.change!, { claims: 'no', instances: [] }), undefined);
  // What JSON.stringify does with holes, values without JSON, and a __proto__ key, the text does too; a state with such a key crosses as text only.
  const odd = { claims: [1, , 3], instances: [undefined, () => 1], errors: { toJSON: () => undefined }, extra: undefined };
  const oddSent = encodeState(odd, first.sent);
  assert.equal(oddSent.json, JSON.stringify(odd));
  assert.deepEqual(decodeState(oddSent.change!, before), JSON.parse(oddSent.json));
  const proto = JSON.parse('{"claims":[],"instances":[],"__proto__":{"polluted":true}}') as object;
  const protoSent = encodeState(proto, first.sent);
  assert.equal(protoSent.json, JSON.stringify(proto));
  assert.equal(protoSent.change, undefined);
  // Not a state (a boolean, an array): plain JSON, remembered as nothing.
  assert.deepEqual(encodeState([1, 2], first.sent), { json: '[1,2]' });
});

test('an item is written once: the same object in the next state reuses its text, an equal new object shares its index, and a handed-out item cannot change under its text', () => {
  const kept = { key: 'kept', deep: { list: [1, 2] } };
  const first = encodeState({ claims: [], instances: [kept, { key: 'gone' }] }, undefined);
  assert.equal(first.sent!.texts.get(kept), JSON.stringify(kept), 'its text is remembered by the object');
  const equal = { key: 'gone' };
  const second = encodeState({ claims: [], instances: [{ key: 'new' }, kept, equal] }, first.sent);
  assert.equal(second.json, JSON.stringify({ claims: [], instances: [{ key: 'new' }, kept, equal] }));
  assert.deepEqual(second.change!.reuse.instances, [-1, 0, 1], 'the kept object and an equal new one point into the previous state');
  assert.equal(second.change!.fresh.instances, '[{"key":"new"}]');
  // Tests run with frozen items: an engine that changed an item after sending it would fail here, not cross stale text.
  assert.ok(Object.isFrozen(kept) && Object.isFrozen(kept.deep.list));
  assert.throws(() => {
    (kept.deep.list as number[]).push(3);
  }, TypeError);
});

test('a resolver thread sends a generation moved on by one claim as its change: equal to the same resolution in process, sharing the rest, stored as its text', async () => {
  const threaded = createResolver({ threads: 1 });
  const inline = createResolver({ threads: 0 });
  try {
    const input = toPolicyInput(generatePolicy('small'));
    const g1 = await threaded.run({ op: 'full', generation: 1, input });
    await inline.run({ op: 'full', generation: 1, input });
    let previous = g1;
    for (let g = 2; g <= 4; g++) {
      const change = { upserts: [relabelled(input, g, `v${g}`)], deletes: [] };
      const [a, b] = await Promise.all([threaded.run({ op: 'update', from: g - 1, generation: g, ...change }), inline.run({ op: 'update', from: g - 1, generation: g, ...change })]);
      assert.ok(a && b, `generation ${g} moved on incrementally`);
      assert.deepEqual(a, JSON.parse(JSON.stringify(b)), `generation ${g} equals the resolution in process`);
      const previousInstances = new Set(previous.instances);
      const shared = a.instances.filter((i) => previousInstances.has(i)).length;
      assert.ok(shared > a.instances.length * 0.9, `generation ${g}: ${shared} of ${a.instances.length} instances are the previous state's objects`);
      assert.ok(storedAsArrived(a), 'stored as the text that crossed');
      assert.equal(unzip(await toGzJsonAsync(a)), JSON.stringify(b));
      previous = a;
    }
    // The warm session's state again: unchanged, so every item is the previous state's.
    const again = await threaded.run({ op: 'state', generation: 4 });
    assert.ok(again);
    assert.deepEqual(again, previous);
    assert.ok(again.instances.every((i, k) => i === previous.instances[k]));
  } finally {
    await threaded.close();
    await inline.close();
  }
});
