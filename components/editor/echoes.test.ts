import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingEchoes } from './echoes';

// The object page echoes each reported text back as the editor's value; on a
// busy main thread the echo arrives after the user typed on. The previous
// rule (replace the model whenever its text differs from the value) wrote the
// stale echo over the newer text: the e2e "service consumer … can create a
// claim" lost its second edit that way and Create sent the old text.
test('a late echo of an earlier text does not overwrite what was typed since', () => {
  const echoes = new PendingEchoes();
  echoes.reported('namespace: social\nservice: my-service');
  echoes.reported('namespace: social\nservice: twitter_stats');
  const model = 'namespace: social\nservice: twitter_stats';
  assert.equal(echoes.shouldReplace('namespace: social\nservice: my-service', model), false);
  assert.equal(echoes.shouldReplace(model, model), false);
});

test('a change from outside (reload after save, restore) still replaces the text', () => {
  const echoes = new PendingEchoes();
  echoes.reported('a: 1');
  assert.equal(echoes.shouldReplace('a: 1', 'a: 1'), false);
  assert.equal(echoes.shouldReplace('b: 2', 'a: 1'), true);
  // Once the outside text is set, an older report of ours is no longer an echo.
  assert.equal(echoes.shouldReplace('a: 1', 'b: 2'), true);
});

test('an outside change back to an already-echoed text is not mistaken for an echo', () => {
  const echoes = new PendingEchoes();
  echoes.reported('v: 1');
  echoes.reported('v: 2');
  assert.equal(echoes.shouldReplace('v: 2', 'v: 2'), false);
  // "Restore" of generation 1's text: both reports were consumed by the echo of v: 2.
  assert.equal(echoes.shouldReplace('v: 1', 'v: 2'), true);
});

test('reports that are never echoed are bounded', () => {
  const echoes = new PendingEchoes(3);
  for (let i = 0; i < 10; i++) echoes.reported(`n: ${i}`);
  // The oldest reports were dropped: an outside value equal to one of them replaces.
  assert.equal(echoes.shouldReplace('n: 0', 'n: 9'), true);
});
