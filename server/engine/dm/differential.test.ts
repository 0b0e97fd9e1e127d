/**
 * Differential test against DM's own expansion code (issue 36): every case
 * under dm/differential/<family>/ is expanded as `keelson expand`
 * expands it, and the result is compared, as parsed data, with the answer
 * DM's expandybird gave (<case>.dm.json, stored by `npm run dm:differential`
 * because the oracle needs Python and is not in CI).
 *
 * Both refused = agree; the same {config, layout} = agree; anything else
 * differs. Differences are expected while issue 36 is open, so KNOWN.yaml
 * lists the cases known to differ, each with its reason: a difference not
 * listed fails (a regression, or a new case whose reason must be written
 * down), and so does a listed case that now agrees (the list only shrinks).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { after, describe, test } from 'node:test';
import { parse } from 'yaml';
import { main } from '../../cli/main';
import { pythonSandbox } from '../../dm-python';

const DIR = join(process.cwd(), 'server/engine/dm/differential');

interface Case {
  what: string;
  config: string;
  imports?: Record<string, string>;
  env?: Record<string, string>;
  /** Only the oracle reads these (Python 3 stand-ins for DM's Python 2 sources); Keelson reads `imports`. */
  dm_imports?: Record<string, string>;
}
type DmAnswer = { result: unknown } | { refused: string };
type Stored = DmAnswer & { case_sha256: string };
type Verdict = 'agree' | 'differ' | 'refused only by DM' | 'refused only by Keelson';

function caseFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return caseFiles(p);
      return e.name.endsWith('.yaml') && dir !== DIR ? [p] : [];
    });
}

/** Both answers parsed with integers exact: 2^53 + 1 must not compare equal to 2^53. */
const parseExact = (text: string): unknown => parse(text, { schema: 'json', intAsBigInt: true });
const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? (Number.isSafeInteger(Number(x)) ? Number(x) : `${x}n`) : x));

const files = caseFiles(DIR);
const ids = files.map((f) => relative(DIR, f).replace(/\.yaml$/, ''));
const known: Record<string, string> = parse(readFileSync(join(DIR, 'KNOWN.yaml'), 'utf8')) ?? {};

/** `keelson expand <folder>/config.yaml --format json`, the case written out as its files. */
async function keelsonExpand(c: Case): Promise<{ result: unknown } | { refused: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-dm-diff-'));
  try {
    writeFileSync(join(dir, 'config.yaml'), c.config);
    for (const [name, text] of Object.entries(c.imports ?? {})) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    let out = '';
    let err = '';
    const env = Object.entries(c.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    const code = await main(['expand', join(dir, 'config.yaml'), '--format', 'json', ...env], { out: (s) => (out += s), err: (s) => (err += s) });
    return code === 0 ? { result: parseExact(out) } : { refused: err.trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The oracle stands for expandybird's Python; DM's Go service then carried
 * the result as JSON (ghodss/yaml into encoding/json), which holds no
 * infinity or NaN and failed on one. The oracle marks such a float
 * (`{__float__: 'inf'}`), so an answer holding the mark is DM refusing.
 */
function asDmServiceCarried(dm: DmAnswer): DmAnswer {
  const nonFinite = (v: unknown): boolean =>
    Array.isArray(v) ? v.some(nonFinite) : typeof v === 'object' && v !== null && ('__float__' in v || Object.values(v).some(nonFinite));
  return 'result' in dm && nonFinite(dm.result) ? { refused: 'service: json: unsupported value (a float JSON cannot hold)' } : dm;
}

function verdict(dm: DmAnswer, ours: DmAnswer): Verdict {
  if ('refused' in dm) return 'refused' in ours ? 'agree' : 'refused only by DM';
  if ('refused' in ours) return 'refused only by Keelson';
  return isDeepStrictEqual(dm.result, ours.result) ? 'agree' : 'differ';
}

const verdicts = new Map<string, Verdict>();

after(() => pythonSandbox().close());

describe('Keelson expands as DM expanded (issue 36 differential)', () => {
  test('every case has DM’s stored answer, and KNOWN.yaml names only cases that exist', () => {
    const missing = files.filter((f) => {
      try {
        readFileSync(f.replace(/\.yaml$/, '.dm.json'));
        return false;
      } catch {
        return true;
      }
    });
    assert.deepEqual(missing.map((f) => relative(DIR, f)), [], 'run `npm run dm:differential` where the DM oracle is available');
    // An answer stored before its case was edited says nothing about the case as it is now.
    const stale = files.filter((f) => !missing.includes(f)).filter((f) => {
      const stored = parseExact(readFileSync(f.replace(/\.yaml$/, '.dm.json'), 'utf8')) as Stored;
      return stored.case_sha256 !== createHash('sha256').update(readFileSync(f, 'utf8')).digest('hex');
    });
    assert.deepEqual(stale.map((f) => relative(DIR, f)), [], 'these cases changed since DM answered them: run `npm run dm:differential <case>` where the oracle is available');
    assert.deepEqual(Object.keys(known).filter((id) => !ids.includes(id)), []);
    for (const [id, reason] of Object.entries(known)) assert.ok(typeof reason === 'string' && reason.trim() !== '', `${id}: KNOWN.yaml gives no reason`);
  });

  for (const [i, file] of files.entries()) {
    const id = ids[i]!;
    const c: Case = parse(readFileSync(file, 'utf8'));
    test(`${id}: ${c.what}`, async () => {
      const { case_sha256: _, ...dm } = parseExact(readFileSync(file.replace(/\.yaml$/, '.dm.json'), 'utf8')) as Stored;
      const ours = await keelsonExpand(c);
      const v = verdict(asDmServiceCarried(dm), ours);
      verdicts.set(id, v);
      const detail = `\n  DM:      ${show(dm)}\n  Keelson: ${show(ours)}`;
      if (id in known) assert.notEqual(v, 'agree', `${id} now agrees with DM: remove it from KNOWN.yaml`);
      else assert.equal(v, 'agree', `${id} ${v} (not in KNOWN.yaml):${detail}`);
    });
  }

  // Runs after the cases (a suite's tests run in order): how far Keelson is from DM, by family, while issue 36 is open.
  test('summary by family', (t) => {
    const families = new Map<string, Record<Verdict, number>>();
    for (const [id, v] of verdicts) {
      const family = id.split('/')[0]!;
      const row = families.get(family) ?? { agree: 0, differ: 0, 'refused only by DM': 0, 'refused only by Keelson': 0 };
      row[v]++;
      families.set(family, row);
    }
    for (const [f, r] of families) {
      t.diagnostic(`${f.padEnd(14)} agree ${r.agree}, differ ${r.differ}, refused only by DM ${r['refused only by DM']}, refused only by Keelson ${r['refused only by Keelson']}`);
    }
    const all = [...verdicts.values()];
    t.diagnostic(`all: ${all.filter((v) => v === 'agree').length} of ${all.length} agree with DM`);
    assert.equal(all.length, files.length, 'every case was compared');
  });
});
