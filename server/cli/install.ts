/**
 * `keelson install`: run Landscaper installations offline, on files, with
 * the engine the server runs (server/engine/landscaper/). Deploy items go
 * to a mock deployer (as Landscaper's `mock`), so their exports — and what
 * other installations import from them — appear.
 *
 * PATHs hold Installations, DataObjects, Targets, Contexts, Secrets and
 * ConfigMaps (YAML files or folders of them); a folder holding a
 * `blueprint.yaml` is a blueprint filesystem, known by its folder name.
 * `--blueprint NAME=DIR` maps a blueprint reference (a `resourceName`, or a
 * `cd://…` URI) to a local folder, so installations that point at a remote
 * registry run offline.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { stringify } from 'yaml';
import { installAll, parseYamlDocuments } from '../engine/landscaper';
import { parse, UsageError } from './args';
import type { Io } from './main';

const HELP = `Usage: keelson install PATH... [--blueprint NAME=DIR ...] [--format json|yaml]

Run the Landscaper installations in PATHs offline and print, per
installation, its scope, phase, imports, exports and errors; the order they
ran in; and the DataObjects they wrote. Deploy items are executed by a mock
deployer, so exports computed from them appear.

  --blueprint NAME=DIR   the blueprint an installation names NAME (its
                         resourceName, or a cd:// reference) is the folder DIR
  --format FORMAT        json (default) or yaml

Exit 0 when every installation succeeded, 1 when one failed or the input
is invalid, 2 on usage errors.
`;

/** Every file below `dir`, by path relative to it (a blueprint's filesystem). */
function filesystem(dir: string, root = dir, depth = 0): Record<string, string> {
  const out: Record<string, string> = {};
  if (depth > 20) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) continue;
    if (e.isDirectory()) Object.assign(out, filesystem(p, root, depth + 1));
    else if (e.isFile()) out[relative(root, p).split('\\').join('/')] = readFileSync(p, 'utf8');
  }
  return out;
}

interface Collected {
  objects: unknown[];
  blueprints: Record<string, Record<string, string>>;
  problems: string[];
}

function collect(paths: readonly string[], into: Collected, depth = 0): void {
  for (const path of paths) {
    if (!existsSync(path)) {
      into.problems.push(`${path}: no such file or folder`);
      continue;
    }
    const st = lstatSync(path);
    if (st.isDirectory()) {
      if (existsSync(join(path, 'blueprint.yaml'))) {
        into.blueprints[basename(path)] = filesystem(path);
        continue;
      }
      if (depth < 20) collect(readdirSync(path).sort().map((n) => join(path, n)), into, depth + 1);
      continue;
    }
    if (!/\.ya?ml$/.test(path)) continue;
    try {
      into.objects.push(...parseYamlDocuments(readFileSync(path, 'utf8')));
    } catch (e) {
      into.problems.push(`${path}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
}

export async function installCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  const mapped: [string, string][] = [];
  try {
    parsed = parse(argv, {
      blueprint: { type: 'string', multiple: true },
      format: { type: 'string', default: 'json' },
      help: { type: 'boolean', short: 'h' },
    });
    if (parsed.values.help) {
      io.out(HELP);
      return 0;
    }
    if (parsed.positionals.length === 0) throw new UsageError('name at least one file or folder');
    if (!['json', 'yaml'].includes(String(parsed.values.format))) throw new UsageError(`--format must be json or yaml, not "${parsed.values.format}"`);
    for (const m of (parsed.values.blueprint as string[] | undefined) ?? []) {
      const i = m.indexOf('=');
      if (i <= 0 || i === m.length - 1) throw new UsageError(`--blueprint takes NAME=DIR, not "${m}"`);
      mapped.push([m.slice(0, i), m.slice(i + 1)]);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson install: ${e.message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }

  const input: Collected = { objects: [], blueprints: {}, problems: [] };
  collect(parsed.positionals, input);
  for (const [name, dir] of mapped) {
    if (!existsSync(join(dir, 'blueprint.yaml'))) input.problems.push(`--blueprint ${name}=${dir}: no blueprint.yaml in ${dir}`);
    else input.blueprints[name] = filesystem(dir);
  }
  if (input.problems.length > 0) {
    for (const p of input.problems) io.err(`${p}\n`);
    io.err(`keelson install: the input is invalid (${input.problems.length} problem${input.problems.length === 1 ? '' : 's'}); nothing was installed\n`);
    return 1;
  }

  const run = installAll({ objects: input.objects, blueprints: input.blueprints });
  const output = {
    installations: run.installations.map((i) => ({
      name: i.name,
      scope: i.scope,
      phase: i.phase,
      imports: i.imports,
      exports: i.exports,
      errors: i.errors.map((e) => e.message),
    })),
    order: run.order,
    dataObjects: run.dataObjects,
    ...(run.errors.length ? { errors: run.errors.map((e) => e.message) } : {}),
  };
  io.out(parsed.values.format === 'yaml' ? stringify(output) : JSON.stringify(output, null, 2) + '\n');
  const failed = run.errors.length > 0 || run.installations.some((i) => i.phase !== 'Succeeded');
  return failed ? 1 : 0;
}
