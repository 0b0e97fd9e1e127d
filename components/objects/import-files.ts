/**
 * Files, folders and zips picked for import become one editor text: every
 * object in them is a `---` document, in path order, so a save creates them
 * all as one generation and every error names its object and line in that
 * text.
 *
 * A folder holding `blueprint.yaml` is a Landscaper blueprint filesystem (as
 * `keelson install` reads one): it becomes one Blueprint object, named after
 * its folder, whose other files (deploy and export executions, schemas) are
 * the blueprint's `files` — they are templates the blueprint refers to, not
 * objects of their own. Elsewhere only `.yaml` and `.yml` files are read;
 * everything else is listed as skipped, by name.
 */
import { parse, parseAllDocuments, stringify } from 'yaml';
import { isRecord } from '@/server/engine/lang/data';
import { isNoise, type ImportEntry } from './zip';

export type { ImportEntry } from './zip';

/** Joins YAML texts as `---` documents, each as written (a leading `---` or byte-order mark dropped). */
export function joinImportedFiles(files: readonly { name: string; text: string }[]): string {
  return files
    .map((f) => f.text.replace(/^\uFEFF/, '').replace(/^(?:---[ \t]*\r?\n)+/, '').trimEnd())
    .filter((t) => t.trim() !== '')
    .map((t) => `${t}\n`)
    .join('---\n');
}

/** YAML files only: anything else picked is refused by name, not read as YAML. */
export function isYamlFile(name: string): boolean {
  return /\.ya?ml$/i.test(name);
}

export function isZipFile(name: string): boolean {
  return /\.zip$/i.test(name);
}

export interface ImportPlan {
  /** The editor's new text. */
  text: string;
  /** Paths read as objects, and blueprint folders as `folder/ (blueprint NAME, N files)`. */
  taken: string[];
  skipped: string[];
  /** Files that could not become objects (a blueprint.yaml that is not YAML), with the line. */
  problems: string[];
}

/** A folder name as an object name: lower case letters, digits, `-` and `.`. */
function objectName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return name || 'blueprint';
}

const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** The one namespace the documents name, when they all name the same one (a domain admin's import picks none). */
function commonNamespace(docs: readonly { text: string }[]): string | undefined {
  const seen = new Set<string>();
  for (const d of docs) {
    for (const doc of parseAllDocuments(d.text)) {
      const v: unknown = doc.errors.length ? undefined : doc.toJS();
      for (const o of Array.isArray(v) ? v : [v]) {
        const ns = (o as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
        if (typeof ns === 'string') seen.add(ns);
      }
    }
  }
  return seen.size === 1 ? [...seen][0] : undefined;
}

/**
 * The import of `entries` (paths relative to what was picked: a zip's
 * entries under the zip's name, so a zip of one blueprint's files is a
 * blueprint named after the zip). `namespace` is given to blueprints that do
 * not name one. A `blueprint.yaml` picked on its own has no folder to be
 * named after: it is read as a document, and says so if it has no name.
 */
export function planImport(entries: readonly ImportEntry[], opts: { namespace?: string } = {}): ImportPlan {
  const files = entries.filter((e) => !isNoise(e.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Blueprint roots: folders holding a blueprint.yaml. A file belongs to the nearest one above it.
  const roots = new Set(files.filter((e) => e.path.endsWith('/blueprint.yaml')).map((e) => dirOf(e.path)));
  const rootOf = (path: string): string | undefined => {
    for (let d = dirOf(path); d !== ''; d = dirOf(d)) if (roots.has(d)) return d;
    return undefined;
  };

  const docs: { name: string; text: string }[] = [];
  const taken: string[] = [];
  const skipped: string[] = [];
  const problems: string[] = [];
  const blueprints = new Map<string, { definition?: string; files: Record<string, string> }>();
  for (const e of files) {
    const root = rootOf(e.path);
    if (root !== undefined) {
      const b = blueprints.get(root) ?? { files: {} };
      const rel = e.path.slice(root.length + 1);
      if (rel === 'blueprint.yaml') b.definition = e.text;
      else b.files[rel] = e.text;
      blueprints.set(root, b);
    } else if (isYamlFile(e.path)) {
      docs.push({ name: e.path, text: e.text });
      taken.push(e.path);
    } else skipped.push(e.path);
  }

  const namespace = opts.namespace ?? commonNamespace(docs);
  for (const [root, b] of blueprints) {
    const where = `${root}/blueprint.yaml`;
    let definition: unknown;
    try {
      definition = parse(b.definition!.replace(/^\uFEFF/, ''), { prettyErrors: true });
    } catch (e) {
      problems.push(`${where}: ${(e as Error).message.split('\n')[0]}`);
      continue;
    }
    if (!definition || typeof definition !== 'object' || Array.isArray(definition)) {
      problems.push(`${where}: a blueprint is a mapping (imports, exports, executions), not ${Array.isArray(definition) ? 'a list' : 'a scalar'}`);
      continue;
    }
    const { apiVersion, kind: _kind, metadata, ...rest } = definition as Record<string, unknown>;
    const md = isRecord(metadata) ? metadata : {};
    const name = typeof md.name === 'string' ? md.name : objectName(root.split('/').pop()!);
    const object = {
      apiVersion: typeof apiVersion === 'string' ? apiVersion : 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Blueprint',
      metadata: { ...md, name, ...(md.namespace === undefined && namespace ? { namespace } : {}) },
      ...rest,
      ...(Object.keys(b.files).length ? { files: b.files } : {}),
    };
    docs.push({ name: where, text: stringify(object, { lineWidth: 0 }) });
    const n = Object.keys(b.files).length;
    taken.push(`${root}/ (blueprint ${name}${n ? `, ${n} file${n === 1 ? '' : 's'}` : ''})`);
  }
  return { text: joinImportedFiles(docs), taken, skipped, problems };
}
