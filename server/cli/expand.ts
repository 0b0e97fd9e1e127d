/**
 * `keelson expand`: expand a Deployment Manager configuration offline, with
 * the engine the server runs (server/engine/dm/). As DM's client did, the
 * files the configuration lists in `imports:` — and, for each template, its
 * `<template>.schema` and the imports that schema lists — are read relative
 * to the configuration's folder, so a configuration needs no other argument.
 * It prints DM's shape: `{config: {resources}, layout: {resources}}`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { expand, referenceProblems } from '../engine/dm';
import { pythonSandbox } from '../dm-python';
import { templateReference } from '../services/dm-templates';
import { parse, UsageError } from './args';
import type { Io } from './main';

const HELP = `Usage: keelson expand CONFIG [--import FILE ...] [--env KEY=VALUE ...] [--format yaml|json]

Expand a Deployment Manager configuration: templates (Jinja, and Python
in a sandbox without network or host files) expanded recursively, schemas validated with their defaults applied, template
outputs and $(ref...) references resolved: to template outputs, then to
the values the expanded configuration holds (what only the cluster knows
stays a reference). Prints {config: {resources}, layout: {resources}} as DM
did.

The files CONFIG lists in imports:, each template's <template>.schema and
the imports a schema lists are read relative to CONFIG's folder.

  --import FILE      one more import, named by its path as given
  --env KEY=VALUE    a template env value (deployment and project default
                     to CONFIG's file name)
  --format FORMAT    yaml (default) or json

Python templates run in Pyodide, in a process with no network (Linux
network namespaces); where the host has none they are refused.
Exit 0 on success, 1 when the configuration does not expand or its
references name no resource or form a cycle (each said on stderr, a cycle
as its path), 2 on usage errors.
`;

/** The types in a layout that name a template by URL or registry name. */
function remoteTypes(layout: unknown): string[] {
  const found = new Set<string>();
  const walk = (node: unknown) => {
    for (const r of ((node as { resources?: unknown } | null)?.resources as unknown[] | undefined) ?? []) {
      const type = (r as { type?: unknown } | null)?.type;
      if (typeof type === 'string' && templateReference(type)) found.add(type);
      walk(r);
    }
  };
  walk(layout);
  return [...found];
}

/** Most files one expansion reads, and the largest one. */
const MAX_FILES = 100;
const MAX_FILE_BYTES = 1024 * 1024;

interface Gathered {
  imports: Record<string, { content: string; path: string }>;
  problems: string[];
}

function importNames(doc: unknown): { name: string; path: string }[] {
  const list = (doc as { imports?: unknown } | null)?.imports;
  if (!Array.isArray(list)) return [];
  return list.flatMap((i) => {
    if (typeof i === 'string') return [{ name: i, path: i }];
    const o = i as { path?: unknown; name?: unknown };
    return typeof o?.path === 'string' ? [{ name: typeof o.name === 'string' ? o.name : o.path, path: o.path }] : [];
  });
}

function read(base: string, path: string, g: Gathered): string | undefined {
  const abs = join(base, path);
  if (Object.keys(g.imports).length >= MAX_FILES) {
    g.problems.push(`${path}: more than ${MAX_FILES} files to import`);
    return undefined;
  }
  if (!existsSync(abs) || !statSync(abs).isFile()) {
    g.problems.push(`${path}: no such file (relative to ${base})`);
    return undefined;
  }
  if (statSync(abs).size > MAX_FILE_BYTES) {
    g.problems.push(`${path}: over ${MAX_FILE_BYTES} bytes`);
    return undefined;
  }
  return readFileSync(abs, 'utf8');
}

/** An import, then for a template its schema and the schema's imports. */
function gather(base: string, name: string, path: string, g: Gathered): void {
  if (name in g.imports) return;
  const content = read(base, path, g);
  if (content === undefined) return;
  g.imports[name] = { content, path };
  if (!['.jinja', '.py'].includes(extname(path))) return;
  const schemaPath = `${path}.schema`;
  if (!existsSync(join(base, schemaPath))) return;
  const schema = read(base, schemaPath, g);
  if (schema === undefined) return;
  g.imports[`${name}.schema`] = { content: schema, path: schemaPath };
  let doc: unknown;
  try {
    doc = parseYaml(schema);
  } catch (e) {
    g.problems.push(`${schemaPath}: ${(e as Error).message.split('\n')[0]}`);
    return;
  }
  for (const i of importNames(doc)) gather(base, i.name, i.path, g);
}

export async function expandCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  const env: Record<string, string> = {};
  try {
    parsed = parse(argv, {
      import: { type: 'string', multiple: true },
      env: { type: 'string', multiple: true },
      format: { type: 'string', default: 'yaml' },
      help: { type: 'boolean', short: 'h' },
    });
    if (parsed.values.help) {
      io.out(HELP);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new UsageError('name one configuration file');
    if (!['json', 'yaml'].includes(String(parsed.values.format))) throw new UsageError(`--format must be yaml or json, not "${parsed.values.format}"`);
    for (const kv of (parsed.values.env as string[] | undefined) ?? []) {
      const i = kv.indexOf('=');
      if (i <= 0) throw new UsageError(`--env takes KEY=VALUE, not "${kv}"`);
      env[kv.slice(0, i)] = kv.slice(i + 1);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson expand: ${e.message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }

  const configPath = parsed.positionals[0]!;
  const base = dirname(configPath);
  const g: Gathered = { imports: {}, problems: [] };
  const config = read(dirname(configPath), basename(configPath), g);
  if (config !== undefined) {
    let doc: unknown = null;
    try {
      doc = parseYaml(config);
    } catch {
      // The engine reports the configuration's own YAML errors, with DM's words.
    }
    for (const i of importNames(doc)) gather(base, i.name, i.path, g);
    for (const extra of (parsed.values.import as string[] | undefined) ?? []) gather('.', extra, extra, g);
  }
  if (config === undefined || g.problems.length > 0) {
    for (const p of g.problems) io.err(`${p}\n`);
    io.err(`keelson expand: the input is incomplete (${g.problems.length} problem${g.problems.length === 1 ? '' : 's'}); nothing was expanded\n`);
    return 1;
  }

  const name = basename(configPath, extname(configPath));
  const r = expand({ config, imports: g.imports }, { env: { deployment: name, project: name, ...env }, runPython: pythonSandbox().run, renderJinja: pythonSandbox().jinja, resolveReferences: true });
  if (r.errors.length > 0) {
    for (const e of r.errors) io.err(`${e.message}\n`);
    return 1;
  }
  // What the deploy step refuses, said as the console says it.
  const refused = referenceProblems(r.references);
  if (refused.length > 0) {
    for (const m of refused) io.err(`${m}\n`);
    return 1;
  }
  // The console fetches templates named by URL or registry name from the
  // hosts its operator allows; this command reads no network, so such a type
  // stays a primitive here — said, not silent.
  for (const type of remoteTypes(r.layout)) io.err(`keelson expand: type '${type}' refers to a template elsewhere, which keelson expand does not fetch (it works offline); it stays a primitive\n`);
  const output = { config: r.config, layout: r.layout };
  io.out(parsed.values.format === 'json' ? JSON.stringify(output, null, 2) + '\n' : stringify(output));
  return 0;
}
