/**
 * The guard against postgres.js's deferred write to a closed connection
 * (postgres-guard.ts): that one error no longer ends the process; any other
 * uncaught error still does. Each case runs in a child process, since what
 * is tested is whether the process survives.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { isClosedSocketWrite } from './postgres-guard';

/** The error as postgres.js throws it (its stack is what identifies it). */
const CLOSED_WRITE = `
  const e = new TypeError("Cannot read properties of null (reading 'write')");
  e.stack = "TypeError: Cannot read properties of null (reading 'write')\\n    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)\\n    at process.processImmediate (node:internal/timers:483:21)";
`;

function run(body: string) {
  const script = `import { guardPostgresClosedSocketWrite } from './server/db/postgres-guard.ts';\nguardPostgresClosedSocketWrite();\n${body}`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
}

describe('postgres.js closed-connection guard', () => {
  test('a rollback written to a closed connection is logged once and the process carries on', () => {
    const r = run(`${CLOSED_WRITE}\nsetImmediate(() => { throw e; });\nsetImmediate(() => { throw e; });\nsetTimeout(() => console.log('still serving'), 50);`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /still serving/);
    assert.equal(r.stderr.match(/wrote a rollback to a connection that had closed/g)?.length, 1);
  });

  test('any other uncaught error, or an unhandled rejection, still ends the process with its report', () => {
    const thrown = run(`setImmediate(() => { throw new TypeError("Cannot read properties of null (reading 'write')"); });\nsetTimeout(() => console.log('still serving'), 200);`);
    assert.equal(thrown.status, 1);
    assert.doesNotMatch(thrown.stdout, /still serving/);
    assert.match(thrown.stderr, /Uncaught exception: TypeError/);
    const rejected = run(`Promise.reject(new Error('lost'));\nsetTimeout(() => console.log('still serving'), 200);`);
    assert.equal(rejected.status, 1);
    assert.match(rejected.stderr, /Unhandled rejection: Error: lost/);
  });

  test('only that error matches: same message elsewhere, or another message from postgres.js, does not', () => {
    const other = new TypeError("Cannot read properties of null (reading 'write')");
    other.stack = `${other.message}\n    at write (file:///app/server/mine.ts:1:1)`;
    assert.equal(isClosedSocketWrite(other), false);
    const pgOther = new TypeError("Cannot read properties of null (reading 'end')");
    pgOther.stack = `${pgOther.message}\n    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)`;
    assert.equal(isClosedSocketWrite(pgOther), false);
    assert.equal(isClosedSocketWrite(new Error('x')), false);
  });
});
