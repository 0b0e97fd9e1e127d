import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quantity } from './format';

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
