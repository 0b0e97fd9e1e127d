import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretBox } from './secret-box';

test('sealed values open under their key only, and tampering is detected', () => {
  const box = new SecretBox(Buffer.alloc(32, 1));
  const a = box.seal('hunter2');
  const b = box.seal('hunter2');
  assert.notEqual(a, b, 'a fresh nonce per value');
  assert.doesNotMatch(a, /hunter2/);
  assert.equal(box.open(a), 'hunter2');
  assert.throws(() => new SecretBox(Buffer.alloc(32, 2)).open(a));
  const parts = a.split('.');
  parts[3] = Buffer.from('x'.repeat(7)).toString('base64url');
  assert.throws(() => box.open(parts.join('.')));
  assert.throws(() => box.open('plain text'), /not a sealed value/);
  assert.throws(() => new SecretBox(Buffer.alloc(16)), /32 bytes/);
});
