/**
 * Reading policy from disk (CLI, seed, tests). The engine works on text; this
 * module finds the files, expands Aptomi's client-side `@include` macro and
 * tells policy files from users/secrets files.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isScalar, parseAllDocuments, visit, Scalar } from 'yaml';
import type { Diagnostic } from '../engine/diagnostics';
import { dedupe, loadObjects, type AnyLoadedObject } from '../engine/model/validate';
import { looksLikeUsersOrSecrets } from '../engine/model/users';

const POLICY_FILE_RE = /\.ya?ml$/i;

/** Files named on the command line are taken whatever their extension; folders give their *.yaml|*.yml files. */
export function collectFiles(paths: readonly string[]): { files: string[]; diagnostics: Diagnostic[] } {
  const files: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && POLICY_FILE_RE.test(entry.name)) files.push(p);
    }
  };
  for (const p of paths) {
    let st;
    try {
      st = statSync(/*turbopackIgnore: true*/ p);
    } catch {
      diagnostics.push({ code: 'invalid_reference', severity: 'error', message: `no such file or folder: ${p}`, file: p, line: 1, column: 1 });
      continue;
    }
    if (st.isDirectory()) walk(p);
    else files.push(p);
  }
  return { files: [...new Set(files)], diagnostics };
}

const INCLUDE_RE = /^@include\s+(.+)$/;

export interface IncludeOptions {
  /**
   * Let `@include` reach absolute paths and files outside the including
   * file's folder (`--allow-outside`). Off by default: a policy folder from
   * someone else must not be able to read ~/.kube/config or /etc into the
   * text that is sent to the server.
   */
  allowOutside?: boolean;
}

/**
 * Aptomi's `aptomictl` replaced a string value `@include glob[,glob…]` with the
 * matching files (relative to the including file), each preceded by `\n---\n`, before
 * sending the policy. We do the same and write the result into the YAML text
 * as a literal block, so the stored object holds what will be templated.
 */
export function expandIncludes(text: string, file: string, opts: IncludeOptions = {}): { text: string; diagnostics: Diagnostic[] } {
  if (!text.includes('@include')) return { text, diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return { text, diagnostics };
  let changed = false;
  for (const doc of docs) {
    if (doc.errors.length) return { text, diagnostics }; // the parser will report them
    visit(doc, {
      Scalar(_key, node) {
        if (!isScalar(node) || typeof node.value !== 'string') return;
        const m = INCLUDE_RE.exec(node.value.trim());
        if (!m) return;
        const globs = m[1]!.split(',').map((g) => g.trim()).filter(Boolean);
        const parts: string[] = [];
        const at = position(text, node.range?.[0] ?? 0);
        const base = dirname(file);
        for (const g of globs) {
          if (!opts.allowOutside && (isAbsolute(g) || escapes(base, resolve(base, g)))) {
            diagnostics.push({
              code: 'invalid_reference',
              severity: 'error',
              message: `@include ${g}: ${isAbsolute(g) ? 'an absolute path' : 'a path outside the folder of this file'} is not included unless --allow-outside is given`,
              file,
              ...at,
            });
            continue;
          }
          const matches = globFiles(base, g);
          if (matches.length === 0) {
            diagnostics.push({ code: 'invalid_reference', severity: 'error', message: `@include ${g}: no file matches`, file, ...at });
          }
          for (const f of matches) {
            // A symbolic link inside the folder may point outside it.
            if (!opts.allowOutside && escapes(realpathSync(/*turbopackIgnore: true*/ base), realpathSync(/*turbopackIgnore: true*/ f))) {
              diagnostics.push({ code: 'invalid_reference', severity: 'error', message: `@include ${g}: ${relative(base, f)} links outside the folder of this file; not included unless --allow-outside is given`, file, ...at });
              continue;
            }
            parts.push(readFileSync(/*turbopackIgnore: true*/ f, 'utf8'));
          }
        }
        // Exactly aptomictl's joining: every file preceded by "\n---\n".
        node.value = parts.map((p) => `\n---\n${p}`).join('');
        node.type = Scalar.BLOCK_LITERAL;
        changed = true;
      },
    });
  }
  if (!changed) return { text, diagnostics };
  return { text: docs.map((d) => d.toString({ lineWidth: 0 })).join(''), diagnostics };
}

function escapes(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === '..' || rel.startsWith('../') || rel.startsWith('..\\') || isAbsolute(rel);
}

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Minimal glob: `*` and `?` in the last path segment, relative to `base`. */
function globFiles(base: string, pattern: string): string[] {
  const full = resolve(base, pattern);
  const dir = dirname(full);
  const leaf = full.slice(dir.length + 1);
  if (!/[*?]/.test(leaf)) {
    try {
      return statSync(/*turbopackIgnore: true*/ full).isFile() ? [full] : [];
    } catch {
      return [];
    }
  }
  const re = new RegExp('^' + leaf.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
  try {
    return readdirSync(/*turbopackIgnore: true*/ dir)
      .filter((n) => re.test(n))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

export interface LoadedFiles {
  objects: AnyLoadedObject[];
  diagnostics: Diagnostic[];
  /** Files skipped because they hold users or secrets, not policy. */
  skipped: string[];
}

/** Load every policy object under `paths`; diagnostics name files as the paths were given. */
export function loadPolicyFiles(paths: readonly string[], opts: IncludeOptions = {}): LoadedFiles {
  const { files, diagnostics } = collectFiles(paths);
  const objects: AnyLoadedObject[] = [];
  const skipped: string[] = [];
  for (const f of files) {
    const shown = f;
    const raw = readFileSync(/*turbopackIgnore: true*/ f, 'utf8');
    if (isUsersFile(raw)) {
      skipped.push(shown);
      continue;
    }
    const inc = expandIncludes(raw, f, opts);
    diagnostics.push(...inc.diagnostics.map((d) => ({ ...d, file: shown })));
    const r = loadObjects(inc.text, shown);
    objects.push(...r.objects);
    diagnostics.push(...r.diagnostics);
  }
  // Duplicates across files (within a file they were already reported).
  const d = dedupe(objects);
  return { objects: d.objects, diagnostics: [...diagnostics, ...d.diagnostics], skipped };
}

function isUsersFile(text: string): boolean {
  if (/^\s*-?\s*kind\s*:/m.test(text)) return false;
  try {
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.length === 0) return false;
    return docs.every((d) => d.errors.length === 0 && looksLikeUsersOrSecrets(d.toJS()));
  } catch {
    return false;
  }
}
