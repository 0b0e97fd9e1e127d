import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDiagnostic, formatPath as diagnosticsPath } from '../diagnostics';
import { formatPath as spiffPath } from './spiff/errors';
import { formatPath, isRecord } from './data';

test('a field path is written one way wherever an error names it: spec.components[2].name', () => {
  const path = ['spec', 'components', 2, 'name'];
  assert.equal(formatPath(path), 'spec.components[2].name');
  assert.equal(formatPath([0, 'metadata']), '[0].metadata');
  assert.equal(formatPath([]), '');
  // The diagnostics and spiff's errors speak the same path (one definition, re-exported).
  assert.equal(diagnosticsPath, formatPath);
  assert.equal(spiffPath, formatPath);
  assert.equal(formatDiagnostic({ code: 'schema', severity: 'error', message: `${formatPath(path)}: required`, line: 4, column: 3 }), '<input>:4:3: spec.components[2].name: required');
});

test('a mapping is an object that is neither null nor a list', () => {
  assert.equal(isRecord({ a: 1 }), true);
  assert.equal(isRecord({}), true);
  for (const v of [null, undefined, [], [1], 'x', 1, true]) assert.equal(isRecord(v), false, String(v));
});
