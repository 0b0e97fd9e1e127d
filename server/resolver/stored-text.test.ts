/**
 * A generation's state crosses from a resolver thread as JSON text, and is
 * stored as that text: the request thread parses it once and never
 * serialises it again (gz-json's `parseRemembered`).
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { test } from 'node:test';
import { parseRemembered, storedAsArrived, toGzJsonAsync } from '../db/gz-json';
import { generatePolicy, toPolicyInput } from '../../bench/generator';
import { createResolver } from './index';

const unzip = (b64: string) => gunzipSync(Buffer.from(b64, 'base64')).toString('utf8');

test('a value parsed from text is stored as that very text; any other is serialised', async () => {
  const text = '{"claims": [ {"name": "a"} ], "instances": []}';
  const parsed = parseRemembered(text);
  assert.equal(unzip(await toGzJsonAsync(parsed)), text, 'the text it arrived as (spaces and all), not a new serialisation');
  assert.equal(unzip(await toGzJsonAsync({ ...(parsed as object) })), JSON.stringify(parsed), 'a copy is serialised afresh');
  assert.equal(unzip(await toGzJsonAsync([1, 2])), '[1,2]');
});

test('states from a resolver thread equal the same resolution in process, and store as their JSON', async () => {
  const threaded = createResolver({ threads: 1 });
  const inline = createResolver({ threads: 0 });
  try {
    const input = toPolicyInput(generatePolicy('small'));
    const [a, b] = await Promise.all([threaded.run({ op: 'full', generation: 1, input }), inline.run({ op: 'full', generation: 1, input })]);
    assert.ok(a.instances.length > 100, 'a policy of some size');
    assert.deepEqual(a, JSON.parse(JSON.stringify(b)));
    assert.ok(storedAsArrived(a), 'crossed as text, and stored as that text');
    assert.equal(storedAsArrived(b), false, 'in process nothing crossed: serialised when stored');
    assert.equal(unzip(await toGzJsonAsync(a)), JSON.stringify(b));
    // The warm session's state, and an incremental update's, cross the same way.
    const state = await threaded.run({ op: 'state', generation: 1 });
    assert.deepEqual(state, a);
    assert.ok(storedAsArrived(state));
    const draft = await threaded.run({ op: 'draft', input });
    assert.ok(draft.instances.length > 100);
    assert.equal(storedAsArrived(draft), false, 'a draft is never stored: it crosses as before');
    assert.equal(await threaded.run({ op: 'state', generation: 2 }), null, 'another generation: null, as before');
  } finally {
    await threaded.close();
    await inline.close();
  }
});
