#!/usr/bin/env node
/**
 * `npm run dm:differential`: ask DM's own expansion code what each
 * differential case (server/engine/dm/differential/<family>/<case>.yaml)
 * gives, and store the answer beside the case as <case>.dm.json. The oracle
 * (/work/shared/tools/dm-oracle/expand.sh, or $DM_ORACLE) needs Python and
 * is not in CI, so CI compares Keelson with these stored answers
 * (server/engine/dm/differential.test.ts); rerun this after adding or editing
 * a case. Arguments filter cases by path substring.
 *
 * A case file: `what` (one line: the behaviour it checks), `config` (the
 * configuration's text), `imports` ({file name: text}), optional `env`, and
 * optional `dm_imports` ({file name: text}): what the oracle reads instead of
 * a Python template, because the oracle is Python 3 and DM ran Python 2 —
 * e.g. `a / 2` becomes `a // 2` so the stored answer is Python 2's number.
 * It is written out as a folder holding config.yaml and its imports, which
 * is what both expand.sh and `keelson expand` read.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** JSON with its integers exact (above 2^53 too): the oracle prints Python's integers, and PyYAML's are exact. */
const parseExact = (text) => parse(text, { schema: 'json', intAsBigInt: true });
const stringifyExact = (value) =>
  JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `__int__${v}` : v), 2).replace(/"__int__(-?\d+)"/g, '$1');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const casesDir = join(root, 'server/engine/dm/differential');
const oracle = process.env.DM_ORACLE ?? '/work/shared/tools/dm-oracle/expand.sh';
const filters = process.argv.slice(2);

function* cases(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* cases(p);
    else if (e.name.endsWith('.yaml') && dir !== casesDir) yield p;
  }
}

let n = 0;
let refused = 0;
for (const file of cases(casesDir)) {
  const rel = relative(casesDir, file);
  if (filters.length && !filters.some((f) => rel.includes(f))) continue;
  const text = readFileSync(file, 'utf8');
  const c = parse(text);
  const tmp = mkdtempSync(join(tmpdir(), 'dm-diff-'));
  try {
    writeFileSync(join(tmp, 'config.yaml'), c.config);
    for (const [name, text] of Object.entries({ ...c.imports, ...c.dm_imports })) {
      mkdirSync(dirname(join(tmp, name)), { recursive: true });
      writeFileSync(join(tmp, name), text);
    }
    const r = spawnSync(oracle, [join(tmp, 'config.yaml'), JSON.stringify(c.env ?? {})], { encoding: 'utf8' });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    let answer;
    try {
      answer = parseExact(line);
    } catch {
      // The oracle itself broke (not DM refusing): stop rather than store a wrong answer.
      console.error(`${rel}: the oracle gave no answer (exit ${r.status}):\n${r.stderr}`);
      process.exit(1);
    }
    // The case's hash goes with the answer so the test can tell an answer stored for an older version of the case.
    const sha256 = createHash('sha256').update(text).digest('hex');
    const stored = answer.ok ? { case_sha256: sha256, result: answer.result } : { case_sha256: sha256, refused: `${answer.stage}: ${answer.error}` };
    writeFileSync(file.replace(/\.yaml$/, '.dm.json'), stringifyExact(stored) + '\n');
    n++;
    if (!answer.ok) refused++;
    console.log(`${rel}: ${answer.ok ? 'expanded' : 'refused'}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
console.log(`${n} answers stored (${refused} refused by DM)`);
