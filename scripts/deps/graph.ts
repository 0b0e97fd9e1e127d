/**
 * Reads every import in the tree and checks it against the layer table
 * (layers.ts). Shared by `npm run deps` (main.ts) and deps.test.ts, so the
 * script and the test cannot disagree about what an import is or where it
 * lands.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix as path, relative, sep } from 'node:path';
import ts from 'typescript';
import { CLIENT_MAY_RUN, LAYERS, TESTS_MAY, isTestFile } from './layers';

export interface Import {
  /** Importing file, relative to the root, with forward slashes. */
  from: string;
  line: number;
  spec: string;
  /** The file it resolves to (relative), or the unresolved path for a missing one. */
  to: string;
  /** Erased at compile time (`import type`, `export type`, `import('x').T`): no code crosses. */
  typeOnly: boolean;
}

export interface Violation {
  at: string; // file:line
  message: string;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|jsx)$/;
const SKIP_DIRS = new Set(['node_modules', 'drizzle', 'public', 'corpus', 'examples', 'test-results', 'playwright-report', 'testdata']);
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.jsx', '/index.ts', '/index.tsx', '/index.mjs', '/index.js'];

const slashes = (p: string) => p.split(sep).join('/');

export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (SOURCE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(slashes(relative(root, p)));
    }
  };
  walk(root);
  return out.sort();
}

/** The file an import names: itself, or with the extension or `/index` it leaves out (`./x.js` may name `./x.ts`). */
function resolveFile(known: ReadonlySet<string>, target: string): string {
  if (known.has(target)) return target;
  const bare = target.replace(/\.(m?js|jsx)$/, '');
  for (const ext of EXTENSIONS) if (known.has(bare + ext)) return bare + ext;
  return target;
}

/** Every import of one file: static, re-exports, dynamic `import()`, `require()` and `import('x')` types. */
export function importsOf(known: ReadonlySet<string>, file: string, text: string): Import[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: Import[] = [];
  const add = (lit: ts.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(lit)) return;
    const spec = lit.text;
    let target: string;
    if (spec.startsWith('@/')) target = spec.slice(2);
    else if (spec.startsWith('.')) target = path.join(path.dirname(file), spec);
    else return; // a package, not a folder of ours
    const line = sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1;
    out.push({ from: file, line, spec, to: resolveFile(known, target), typeOnly });
  };
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const allTypes = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(n.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier) {
      const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : undefined;
      add(n.moduleSpecifier, n.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      add(n.moduleReference.expression, n.isTypeOnly);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) {
      add(n.argument.literal, true);
    } else if (ts.isCallExpression(n) && n.arguments.length > 0) {
      const callee = n.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(n.arguments[0]!, false);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * The layer a path belongs to: `server/engine/<sub>` inside the engine
 * (`server/engine` for its own top files), `server/<folder>` or the file
 * itself (`server/env.ts`) under server/, the top folder elsewhere, and the
 * file name for files at the root.
 */
export function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'server') {
    if (parts[1] === 'engine') return parts.length > 3 ? `server/engine/${parts[2]}` : 'server/engine';
    return parts.slice(0, 2).join('/');
  }
  return parts[0]!;
}

export interface Scan {
  files: string[];
  imports: Import[];
  /** Files that end up in the browser: 'use client' files and everything they import for its value. */
  client: Set<string>;
}

const USE_CLIENT = /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*['"]use client['"]/;

export function scan(root: string, files = sourceFiles(root), read = (f: string) => readFileSync(join(root, f), 'utf8')): Scan {
  const texts = new Map(files.map((f) => [f, read(f)]));
  const known = new Set(files);
  const imports = files.flatMap((f) => importsOf(known, f, texts.get(f)!));
  const byFile = new Map<string, Import[]>();
  for (const i of imports) {
    if (!byFile.has(i.from)) byFile.set(i.from, []);
    byFile.get(i.from)!.push(i);
  }
  const client = new Set<string>();
  const queue = files.filter((f) => USE_CLIENT.test(texts.get(f)!));
  while (queue.length) {
    const f = queue.pop()!;
    if (client.has(f)) continue;
    client.add(f);
    for (const i of byFile.get(f) ?? []) if (!i.typeOnly && texts.has(i.to)) queue.push(i.to);
  }
  return { files, imports, client };
}

/** `may` names layers; `x/*` is x and every layer under it, `*` any layer. */
function allowed(fromLayer: string, toLayer: string, may: readonly string[]): boolean {
  if (fromLayer === toLayer) return true;
  return may.some((m) => {
    if (m === '*') return true;
    if (!m.endsWith('/*')) return m === toLayer;
    const base = m.slice(0, -2);
    return toLayer === base || toLayer.startsWith(`${base}/`);
  });
}

/** Every import the table forbids, as `file:line` and why. */
export function violations(s: Scan): Violation[] {
  const out: Violation[] = [];
  for (const i of s.imports) {
    const from = layerOf(i.from);
    const to = layerOf(i.to);
    const at = `${i.from}:${i.line}`;
    const rule = LAYERS[from];
    const test = isTestFile(i.from);
    if (!rule && !test) {
      out.push({ at, message: `${from} is not in the layer table (scripts/deps/layers.ts); add it with the folders it may import` });
      continue;
    }
    if (!LAYERS[to]) {
      out.push({ at, message: `imports "${i.spec}" in ${to}, which is not in the layer table (scripts/deps/layers.ts)` });
      continue;
    }
    const may = test ? TESTS_MAY : rule!.may;
    if (!allowed(from, to, may)) {
      out.push({ at, message: `${from} may not import ${to} ("${i.spec}"): ${from} may import ${may.length ? may.join(', ') : 'nothing outside itself'}` });
      continue;
    }
    if (s.client.has(i.from) && !i.typeOnly && i.to.startsWith('server/') && !CLIENT_MAY_RUN.some((p) => i.to === p || i.to.startsWith(`${p}/`))) {
      out.push({ at, message: `client code imports server code "${i.spec}" for its value; the browser may run only ${CLIENT_MAY_RUN.join(', ')} (or import types with \`import type\`)` });
    }
  }
  return out;
}

/** Imports that cross from one layer to another, counted per pair. */
export function crossings(s: Scan): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const i of s.imports) {
    const from = layerOf(i.from);
    const to = layerOf(i.to);
    if (from === to) continue;
    const row = out.get(from) ?? new Map<string, number>();
    row.set(to, (row.get(to) ?? 0) + 1);
    out.set(from, row);
  }
  return out;
}
