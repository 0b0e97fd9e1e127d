import assert from 'node:assert/strict';
import { test } from 'node:test';
import { carriedText, carriesOthers, quantity } from './format';

test('quota figures read as people write them: GiB/MiB, cores, instances', () => {
  assert.equal(quantity(40 * 2 ** 40, 'bytes'), '40960 GiB');
  assert.equal(quantity(3 * 2 ** 30, 'bytes'), '3 GiB');
  assert.equal(quantity(1.5 * 2 ** 30, 'bytes'), '1.5 GiB');
  assert.equal(quantity(512 * 2 ** 20, 'bytes'), '512 MiB');
  assert.equal(quantity(0, 'bytes'), '0 MiB');
  assert.equal(quantity(0.25, 'vCPU'), '0.25 cores');
  assert.equal(quantity(1, 'vCPU'), '1 core');
  assert.equal(quantity(12, 'instances'), '12 instances');
});

test("a revision says whose changes it carries: each author once, with their generations, oldest first", () => {
  const carries = { changes: [{ generation: 7, author: 'carol' }, { generation: 6, author: 'sam' }, { generation: 5, author: 'sam' }], more: 0 };
  assert.equal(carriedText(carries), 'sam (generations 5, 6), carol (generation 7)');
  assert.equal(carriesOthers(carries, 'carol'), true);
  const own = { changes: [{ generation: 8, author: 'carol' }], more: 0 };
  assert.equal(carriesOthers(own, 'carol'), false);
  assert.equal(carriedText({ ...own, more: 2 }), 'carol (generation 8), and 2 older generations');
});
