import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { rmSync } from 'node:fs';
import { main } from './main';

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe('keelson validate', () => {
  test('every Aptomi example and test-data file that holds policy validates clean', async () => {
    const r = await cli('validate', 'corpus/aptomi/examples', 'corpus/aptomi/pkg/testdata');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /27 objects valid; skipped 4 users\/secrets file\(s\)/);
    assert.equal(r.err, '');
  });

  const dir = mkdtempSync(join(tmpdir(), 'keelson-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a broken file gives file:line:col and exit 1', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, '- kind: service\n  metadata: {namespace: main, name: s}\n  contexts:\n    - name: c\n      allocation: {bundel: b}\n');
    const r = await cli('validate', dir);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:20: unknown field "bundel" in contexts\\[0\\]\\.allocation \\(service/main/s\\)$`, 'm'));
    assert.match(r.err, /:5:19: missing required field "contexts\[0\]\.allocation\.bundle"/);
  });

  test('usage errors exit 2', async () => {
    assert.equal((await cli('validate')).code, 2);
    assert.equal((await cli('validate', '--bogus', 'x')).code, 2);
    assert.equal((await cli('frobnicate')).code, 2);
  });

  test('works through npm run --silent keelson', () => {
    const r = spawnSync('npm', ['run', '--silent', 'keelson', '--', 'validate', 'corpus/aptomi/examples/guestbook'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /objects valid/);
  });
});
