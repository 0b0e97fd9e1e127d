#!/usr/bin/env node
/**
 * `npm run test:reliability [-- --long]`: the reliability suite
 * (server/reliability/ and the remote GitOps tests) on the PostgreSQL server
 * and git that `npm test` uses, at full size — 50 revisions through two
 * consoles and two workers, 10,000 hostile inputs per language — instead of
 * the shortened form inside `npm test`.
 * With --long it prints the figures the tests report, as a table.
 */
import { spawn } from 'node:child_process';

const long = process.argv.includes('--long');
const child = spawn(process.execPath, ['scripts/test.mjs', '--unit', 'server/reliability/', 'server/apply/gitops/remote.test.ts'], {
  env: { ...process.env, KEELSON_RELIABILITY_REVISIONS: process.env.KEELSON_RELIABILITY_REVISIONS ?? '50', KEELSON_FUZZ_RUNS: process.env.KEELSON_FUZZ_RUNS ?? '10000',
    KEELSON_LOAD_RATE: process.env.KEELSON_LOAD_RATE ?? '200',
    KEELSON_LOAD_SECONDS: process.env.KEELSON_LOAD_SECONDS ?? '60',
    KEELSON_OUTAGE_SECONDS: process.env.KEELSON_OUTAGE_SECONDS ?? '10',
    // One file at a time: 200 requests/s in one test must not be another test's outage.
    KEELSON_TEST_CONCURRENCY: process.env.KEELSON_TEST_CONCURRENCY ?? '1',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const figures = [];
let buffer = '';
child.stdout.on('data', (b) => {
  process.stdout.write(b);
  buffer += b;
  let i;
  while ((i = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    const m = /figure (\S+) (.+)$/.exec(line);
    if (m) figures.push([m[1], m[2].trim()]);
  }
});
child.on('exit', (code) => {
  if (long) {
    const w = Math.max(6, ...figures.map(([n]) => n.length));
    console.log(`\n${'figure'.padEnd(w)}  value\n${'-'.repeat(w)}  -----`);
    for (const [n, v] of figures) console.log(`${n.padEnd(w)}  ${v}`);
  }
  process.exit(code ?? 1);
});
