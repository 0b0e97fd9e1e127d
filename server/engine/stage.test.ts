/**
 * Where a source's stage lives: in its own folder's `stage.ts`, written to
 * the contract in stage.ts. The engine's assembly (index.ts) imports the
 * stages; no engine module imports it back, so a stage can be read, tested
 * and changed without the rest of the engine in its import graph.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { ENGINE_STAGES } from './index';

const ENGINE = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '.');
const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testdata' ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

test("no engine module imports the engine's assembly (index.ts): stages take the contract from stage.ts", () => {
  const assembly = join(ENGINE, 'index.ts');
  const found: string[] = [];
  for (const f of sources(ENGINE)) {
    if (f === assembly) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith('.')) continue;
      const target = relative(ENGINE, join(dirname(f), spec)).replace(/\.tsx?$/, '');
      if (target === '' || target === 'index') found.push(`${relative(ENGINE, f)} imports '${spec}'`);
    }
  }
  assert.deepEqual(found, []);
});

test("every built-in source stage is its source's <source>/stage.ts", async () => {
  assert.ok(ENGINE_STAGES.length >= 4, 'stages listed');
  for (const stage of ENGINE_STAGES) {
    const file: Record<string, unknown> = await import(`./${stage.source}/stage`).catch(() => ({}));
    assert.ok(Object.values(file).includes(stage), `the ${stage.stage} stage of ${stage.source} is exported by ${stage.source}/stage.ts`);
  }
});
