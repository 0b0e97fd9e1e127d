/**
 * The README's commands work as written. Every `sh` block is read:
 * `npm run X` must name a script of package.json; a `keelson` example with
 * real paths (no placeholders) is run, offline, and must succeed with
 * output; a synopsis (`PATH...`, `[--flag]`) and the commands that need a
 * running console or an installation (their own suites run those) must name
 * a command whose `--help` answers and lists every flag the README shows.
 * So a renamed file, a dropped flag or a made-up example fails here, not in
 * a newcomer's terminal.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { main } from './main';

const README = readFileSync('README.md', 'utf8');
const SCRIPTS = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Commands that read only files, so an example of theirs can run here. */
const OFFLINE = new Set(['validate', 'resolve', 'install', 'expand', 'policy']);

interface ReadmeCommand {
  line: number;
  text: string;
  words: string[];
}

/** Shell words, with '…' and "…" quoting (the README needs no more). */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** Every command in the README's `sh` blocks: continuations joined, comments and `&&` split off. */
function readmeCommands(): ReadmeCommand[] {
  const lines = README.split('\n');
  const found: ReadmeCommand[] = [];
  let inSh = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^```/.test(raw)) {
      inSh = !inSh && /^```(sh|bash|shell)\s*$/.test(raw);
      continue;
    }
    if (!inSh) continue;
    const start = i + 1;
    let text = raw;
    while (text.endsWith('\\') && i + 1 < lines.length) text = text.slice(0, -1) + ' ' + lines[++i]!.trim();
    text = text.replace(/\s+#\s.*$/, '').trim();
    for (const part of text.split('&&').map((p) => p.trim()).filter(Boolean)) found.push({ line: start, text: part, words: words(part) });
  }
  return found;
}

/** The arguments of a `keelson` invocation, or undefined when the command is something else. */
function keelsonArgs(c: ReadmeCommand): string[] | undefined {
  const w = c.words;
  if (w[0] === 'keelson') return w.slice(1);
  if (w[0] === 'npm' && w[1] === 'run') {
    const rest = w.slice(2).filter((x) => x !== '--silent' && x !== '-s');
    if (rest[0] === 'keelson' && rest[1] === '--') return rest.slice(2);
  }
  return undefined;
}

const isSynopsis = (args: string[]) => args.some((a) => /\[|\.\.\.|\||\b[A-Z]{2,}\b/.test(a));

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe('the README', () => {
  const commands = readmeCommands();

  test('holds the commands this test reads (the two first-screen commands, keelson examples, npm scripts)', () => {
    assert.ok(commands.some((c) => c.text === 'npm ci' ) && commands.some((c) => c.text === 'npm test') && commands.some((c) => c.text === 'npm start'), 'npm ci && npm start / npm test on the first screen');
    assert.ok(commands.filter((c) => keelsonArgs(c)).length >= 10, `keelson commands found: ${commands.filter((c) => keelsonArgs(c)).length}`);
  });

  test('every npm command names a script package.json has', () => {
    const missing: string[] = [];
    for (const c of commands) {
      const [tool, verb, script] = c.words;
      if (tool !== 'npm') continue;
      if (verb === 'start' || verb === 'test') {
        if (!SCRIPTS[verb]) missing.push(`README.md:${c.line}: npm ${verb}`);
      } else if (verb === 'run' || verb === 'run-script') {
        const name = c.words.slice(2).find((x) => !x.startsWith('-'));
        if (!name || !SCRIPTS[name]) missing.push(`README.md:${c.line}: npm run ${name ?? script}`);
      } else if (verb !== 'ci' && verb !== 'install') {
        missing.push(`README.md:${c.line}: npm ${verb} (not a command this test knows)`);
      }
    }
    assert.deepEqual(missing, []);
  });

  for (const c of commands) {
    const args = keelsonArgs(c);
    if (!args || args.length === 0) continue;
    const [cmd, sub] = args;
    if (OFFLINE.has(cmd!) && !isSynopsis(args)) {
      test(`README.md:${c.line} runs as written: keelson ${args.join(' ')}`, async () => {
        const r = await cli(args);
        assert.equal(r.code, 0, `exit ${r.code}\n${r.err}`);
        assert.ok(r.out.trim().length > 0, 'it printed nothing');
      });
    } else {
      test(`README.md:${c.line} names a command and flags keelson has: keelson ${args.join(' ')}`, async () => {
        const r = await cli([cmd!, '--help']);
        assert.equal(r.code, 0, `keelson ${cmd} --help: exit ${r.code}\n${r.err}`);
        const help = r.out;
        if (cmd === 'revisions') assert.match(help, new RegExp(`^\\s+${sub}\\b`, 'm'), `keelson revisions ${sub} is not in its help`);
        const flags = args.flatMap((a) => [...a.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
        for (const flag of flags) assert.ok(help.includes(flag), `keelson ${cmd} --help does not list ${flag}\n${help}`);
      });
    }
  }
});
