/**
 * `npm run deps`: every import from one layer to another (grouped, with
 * counts), then every one the layer table (layers.ts) forbids, as
 * file:line. Exits 1 when there is one.
 */
import { join } from 'node:path';
import { crossings, scan, violations } from './graph';
import { isTestFile } from './layers';

const root = join(import.meta.dirname, '..', '..');
const s = scan(root);
// Tests may import any layer (layers.ts, TESTS_MAY): the listing is of the product's own code.
const product = { ...s, imports: s.imports.filter((i) => !isTestFile(i.from)) };
for (const [from, row] of [...crossings(product)].sort(([a], [b]) => a.localeCompare(b))) {
  const total = [...row.values()].reduce((a, b) => a + b, 0);
  console.log(`${from} (${total})`);
  for (const [to, n] of [...row].sort(([a], [b]) => a.localeCompare(b))) console.log(`  → ${to} ${n}`);
}
const bad = violations(s);
const testImports = s.imports.length - product.imports.length;
console.log(`\n${s.files.length} files, ${s.imports.length} imports of our own code (${testImports} of them in tests, not listed), ${s.client.size} files in the browser's bundle`);
if (bad.length) {
  console.error(`\n${bad.length} import(s) the layer table (scripts/deps/layers.ts) forbids:`);
  for (const v of bad) console.error(`${v.at}: ${v.message}`);
  process.exit(1);
}
console.log('every import follows the layer table (scripts/deps/layers.ts)');
