/**
 * The resolver's threads: new generations on the first, drafts (dry runs,
 * previews) on the others at a lower priority, so a worst-case dry run
 * yields the cores to requests and to the resolution of saves.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createResolver } from './index';

/** Nice values of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return [Number(fields[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}

test('a draft runs on a thread of lower priority; generations keep the normal one', { skip: process.platform !== 'linux' && 'thread nice values are read from /proc (Linux)' }, async () => {
  const resolver = createResolver({ threads: 2 });
  try {
    const input = { objects: [], users: [], domainAdmins: [] };
    await resolver.run({ op: 'full', generation: 1, input });
    assert.deepEqual([...new Set(threadNiceValues())], [0], 'the generations thread (and every other) at the normal priority');
    await resolver.run({ op: 'draft', input });
    const niced = threadNiceValues().filter((n) => n > 0);
    assert.deepEqual(niced, [10], 'exactly one thread, the drafts thread, at nice 10');
  } finally {
    await resolver.close();
  }
});

test("a server's threads start with its pool: the first preview does not wait for a thread to load the engine", { skip: process.platform !== 'linux' && 'thread nice values are read from /proc (Linux)', timeout: 120_000 }, async () => {
  const resolver = createResolver({ threads: 2, warmThreads: true });
  try {
    // No request yet: the drafts thread shows up (at its nice value) on its own.
    while (!threadNiceValues().includes(10)) await new Promise((r) => setTimeout(r, 50));
    const input = { objects: [], users: [], domainAdmins: [] };
    assert.ok(await resolver.run({ op: 'draft', input }), 'and it answers as any thread does');
  } finally {
    await resolver.close();
  }
});
