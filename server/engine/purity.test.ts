/**
 * The engine is pure: plain data in, plain data out. It may not import the
 * web framework, the database, tRPC, React or Node's runtime modules (tests
 * beside it may). This test reads every engine source file's imports.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ENGINE = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '.');
const FORBIDDEN: [RegExp, string][] = [
  [/^node:/, 'Node runtime module'],
  [/^(fs|path|os|crypto|child_process|http|https|net|url|util|worker_threads|process)$/, 'Node runtime module'],
  [/^next(\/|$)/, 'Next.js'],
  [/^react(-dom)?(\/|$)/, 'React'],
  [/^@trpc\//, 'tRPC'],
  [/^drizzle-orm(\/|$)/, 'drizzle'],
  [/^postgres$|^@electric-sql\//, 'database driver'],
  [/(^|\/)(server\/)?(db|repo|services|api|auth)(\/|$)/, 'server layer'],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testdata' ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/gm;

test('server/engine imports nothing impure', () => {
  const files = sources(ENGINE);
  assert.ok(files.length > 5, 'engine sources found');
  const violations: string[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
      for (const [re, what] of FORBIDDEN) {
        const target = spec.startsWith('.') ? relative(ENGINE, join(f, '..', spec)) : spec;
        if (re.test(spec) || (spec.startsWith('.') && target.startsWith('..'))) {
          violations.push(`${relative(ENGINE, f)} imports "${spec}" (${spec.startsWith('.') && target.startsWith('..') ? 'outside the engine' : what})`);
          break;
        }
      }
    }
    if (/\bprocess\.env\b|\bDate\.now\(|new Date\(\)/.test(text)) violations.push(`${relative(ENGINE, f)} reads the environment or the clock`);
  }
  assert.deepEqual(violations, []);
});
