/**
 * Dependencies point down: every import in the tree follows the layer table
 * (scripts/deps/layers.ts), and the check names each one that does not.
 * The engine's own purity (no Node, framework or database) is
 * server/engine/purity.test.ts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { layerOf, scan, sourceFiles, violations } from './graph';
import { isTestFile, LAYERS } from './layers';

const ROOT = join(import.meta.dirname, '..', '..');

/** The check over a tree given as { path: text }. */
function check(tree: Record<string, string>) {
  return violations(scan('/nowhere', Object.keys(tree), (f) => tree[f]!));
}

describe('the layer table', () => {
  test('every import in the tree follows it', () => {
    const bad = violations(scan(ROOT));
    assert.deepEqual(bad.map((v) => `${v.at}: ${v.message}`), []);
  });

  test('every folder of the tree has a row, and every row allows only rows', () => {
    const missing = [...new Set(sourceFiles(ROOT).filter((f) => !isTestFile(f)).map(layerOf))].filter((l) => !LAYERS[l]);
    assert.deepEqual(missing, [], 'layers without a row in scripts/deps/layers.ts');
    const unknown = Object.entries(LAYERS).flatMap(([l, { may }]) => may.filter((m) => m !== '*' && !LAYERS[m.replace(/\/\*$/, '')]).map((m) => `${l} → ${m}`));
    assert.deepEqual(unknown, []);
  });

  test('an upward import is named by file and line', () => {
    const bad = check({
      'server/db/schema.ts': "import { x } from './client';\n// the repositories sit above the schema\nimport type { Marks } from '../repo/estate.types';\n",
      'server/db/client.ts': 'export const x = 1;\n',
      'server/repo/estate.types.ts': 'export interface Marks { vcpu?: number }\n',
    });
    assert.equal(bad.length, 1);
    assert.equal(bad[0]!.at, 'server/db/schema.ts:3');
    assert.match(bad[0]!.message, /server\/db may not import server\/repo \("\.\.\/repo\/estate\.types"\)/);
  });

  test('imports through the @/ alias, re-exports and dynamic imports count too', () => {
    const bad = check({
      'server/engine/model/sources/aptomi.ts': "export { q } from '../../plan/quantity';\n",
      'server/engine/plan/quantity.ts': 'export const q = 1;\n',
      'server/repo/revisions.ts': "const m = await import('@/server/services/revision-state');\n",
      'server/services/revision-state.ts': 'export const s = 1;\n',
    });
    assert.deepEqual(bad.map((v) => v.at), ['server/engine/model/sources/aptomi.ts:1', 'server/repo/revisions.ts:1']);
  });

  test('a test may import any layer; production code may not import test support', () => {
    const bad = check({
      'server/db/schema.test.ts': "import { s } from '../services/x';\nimport { t } from '../testing/t';\n",
      'server/services/x.ts': "import { t } from '../testing/t';\nexport const s = t;\n",
      'server/testing/t.ts': 'export const t = 1;\n',
    });
    assert.deepEqual(bad.map((v) => v.at), ['server/services/x.ts:1']);
  });

  test('a folder with no row fails the check, so a new folder cannot slip past the table', () => {
    const bad = check({ 'server/gadgets/a.ts': "import { e } from '../env';\n", 'server/env.ts': 'export const e = 1;\n' });
    assert.equal(bad.length, 1);
    assert.match(bad[0]!.message, /server\/gadgets is not in the layer table/);
  });

  test('client code runs no server code but the pure engine; types may cross', () => {
    const bad = check({
      'components/graph/graph-explorer.tsx': "'use client';\nimport { decodeView } from '@/server/services/graph-view';\nimport type { RemoteBucket } from '@/server/services/graph-types';\nimport { key } from './key';\n",
      // not 'use client' itself, but shipped to the browser because a client file imports it
      'components/graph/key.ts': "import { instanceKey } from '@/server/engine/state/key';\nimport { env } from '@/server/services/env-reader';\nexport const key = instanceKey;\n",
      'components/claims/request-page.tsx': "import { notFoundUnless } from '@/server/pages/exists';\n",
      'server/services/graph-view.ts': 'export const decodeView = 1;\n',
      'server/services/graph-types.ts': 'export type RemoteBucket = 1;\n',
      'server/services/env-reader.ts': 'export const env = 1;\n',
      'server/engine/state/key.ts': 'export const instanceKey = 1;\n',
      'server/pages/exists.ts': 'export const notFoundUnless = 1;\n',
    });
    assert.deepEqual(bad.map((v) => v.at), ['components/graph/graph-explorer.tsx:2', 'components/graph/key.ts:2']);
    assert.match(bad[0]!.message, /client code imports server code "@\/server\/services\/graph-view" for its value/);
  });
});
