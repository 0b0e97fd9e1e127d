import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { slowestFiles, slowestFilesReport } from './slowest.mjs';

const reporter = join(import.meta.dirname, 'node-test-reporter.mjs');

test('the timing reporter writes one line per top-level test, with its file, beside the spec output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-times-'));
  try {
    writeFileSync(join(dir, 'a.test.mjs'), `import { test } from 'node:test';\ntest('one', () => {});\ntest('two', () => {});\n`);
    writeFileSync(
      join(dir, 'b.test.mjs'),
      `import { test } from 'node:test';\ntest('outer', async (t) => { await t.test('inner 1', () => {}); await t.test('inner 2', () => {}); });\n`,
    );
    const times = join(dir, 'times.jsonl');
    // Not as a child of this test run: node:test would then report to its parent instead of to the reporters.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(
      process.execPath,
      ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${reporter}`, `--test-reporter-destination=${times}`, 'a.test.mjs', 'b.test.mjs'],
      { cwd: dir, encoding: 'utf8', env },
    );
    assert.equal(run.status, 0, run.stderr);
    // CI reads the spec reporter's summary lines: they are still there.
    assert.match(run.stdout, /^ℹ pass 5$/m);
    assert.match(run.stdout, /^ℹ fail 0$/m);
    const rows = slowestFiles(readFileSync(times, 'utf8'), dir);
    assert.deepEqual(rows.map((r) => [r.file, r.tests]).sort(), [
      ['a.test.mjs', 2],
      ['b.test.mjs', 1],
    ]);
    assert.ok(rows.every((r) => r.ms >= 0));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the Playwright timing reporter writes one line per test, with its spec file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-times-'));
  try {
    // Specs that need no browser and no console: only the reporter is under test.
    // Outside the repository, so the specs name Playwright by its path.
    const playwright = JSON.stringify(join(process.cwd(), 'node_modules', '@playwright', 'test', 'index.js'));
    writeFileSync(join(dir, 'a.spec.ts'), `import { test } from ${playwright};\ntest('one', () => {});\ntest('two', () => {});\n`);
    writeFileSync(join(dir, 'b.spec.ts'), `import { test } from ${playwright};\ntest('three', () => {});\n`);
    writeFileSync(
      join(dir, 'playwright.config.ts'),
      `export default { testDir: ${JSON.stringify(dir)}, workers: 1, reporter: [[${JSON.stringify(join(import.meta.dirname, 'playwright-reporter.ts'))}]] };\n`,
    );
    const times = join(dir, 'times.jsonl');
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, [join('node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', join(dir, 'playwright.config.ts')], {
      encoding: 'utf8',
      env: { ...env, E2E_FILE_TIMES: times },
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const rows = slowestFiles(readFileSync(times, 'utf8'), dir);
    assert.deepEqual(rows.map((r) => [r.file, r.tests]).sort(), [
      ['a.spec.ts', 2],
      ['b.spec.ts', 1],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the slowest files: summed per file, slowest first, ten at most, a torn last line ignored', () => {
  const lines = [
    ...Array.from({ length: 12 }, (_, i) => JSON.stringify({ file: `/r/f${i}.test.ts`, ms: 1000 * (i + 1) })),
    JSON.stringify({ file: '/r/f0.test.ts', ms: 20_000 }),
    '{"file": "/r/cut',
  ].join('\n');
  const rows = slowestFiles(lines, '/r');
  assert.equal(rows.length, 10);
  assert.deepEqual(rows[0], { file: 'f0.test.ts', ms: 21_000, tests: 2 });
  assert.deepEqual(
    rows.slice(1, 4).map((r) => r.file),
    ['f11.test.ts', 'f10.test.ts', 'f9.test.ts'],
  );
});

test('the printed table names each file with its seconds; nothing is printed when nothing ran', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-times-'));
  try {
    const file = join(dir, 'times.jsonl');
    assert.equal(slowestFilesReport(file, dir, 'node:test'), '');
    writeFileSync(file, `${JSON.stringify({ file: join(dir, 'server/x.test.ts'), ms: 12_345 })}\n`);
    const report = slowestFilesReport(file, dir, 'node:test');
    assert.match(report, /^node:test: the 1 slowest files/);
    assert.match(report, /^ +12\.3 +server\/x\.test\.ts +1 test$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
