import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TextMemo } from './text-memo';

test('a text is computed once, and the memo holds at most its budget of characters (oldest out first)', () => {
  const calls: string[] = [];
  const memo = new TextMemo((t: string) => (calls.push(t), { length: t.length }), 10);
  assert.equal(memo.get('aaaa').length, 4);
  assert.equal(memo.get('aaaa'), memo.get('aaaa'));
  assert.deepEqual(calls, ['aaaa']);
  memo.get('bbbb');
  memo.get('cccc'); // 12 characters: 'aaaa' goes
  memo.get('bbbb');
  memo.get('aaaa');
  assert.deepEqual(calls, ['aaaa', 'bbbb', 'cccc', 'aaaa']);
  memo.get('x'.repeat(11)); // over the budget by itself: computed, never kept
  memo.get('x'.repeat(11));
  assert.equal(calls.filter((c) => c.startsWith('x')).length, 2);
});
