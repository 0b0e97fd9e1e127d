/**
 * Reading DM configurations and import maps (reference/dm.md §1, §2.1).
 *
 * YAML is read as PyYAML's safe_load read it (./pyyaml.ts): DM read every
 * configuration, schema and template output with it, and templates were
 * written against its YAML 1.1 (`yes`/`on` are booleans, `y`/`n` are not).
 * Duplicate keys keep the last value as PyYAML did, and aliases are capped
 * so a "billion laughs" configuration cannot blow up memory.
 */
import { LineCounter, parseDocument, visit } from 'yaml';
import { PyYamlError, pyyamlValue } from './pyyaml';
import type { ImportFile, Json, JsonObject } from './types';
import { isRecord } from '../lang/data';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * PyYAML's wording for the `yaml` package's error codes DM users met most;
 * DM's messages ("Error parsing YAML: mapping values are not allowed here")
 * are what its tests and users searched for.
 */
const PYYAML_WORDING: Record<string, string> = {
  BLOCK_AS_IMPLICIT_KEY: 'mapping values are not allowed here',
  MULTILINE_IMPLICIT_KEY: 'mapping values are not allowed here',
  BAD_INDENT: 'bad indentation of a mapping entry',
  MISSING_CHAR: 'could not find expected character',
  UNEXPECTED_TOKEN: 'did not find expected token',
  TAB_AS_INDENT: 'found character \'\\t\' that cannot start any token',
};

/**
 * Parses YAML text as DM did. `where` names the text in messages (DM printed
 * `"template"` for the top-level configuration and the type for a template's output).
 */
export function parseYaml(text: string, where: string): Parsed<Json | undefined> {
  const lineCounter = new LineCounter();
  // The failsafe schema leaves every scalar as written; pyyamlValue gives them PyYAML's values.
  const doc = parseDocument(text, { version: '1.1', schema: 'failsafe', uniqueKeys: false, prettyErrors: false, lineCounter });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return '';
    const { line, col } = lineCounter.linePos(offset);
    return `, line ${line}, column ${col}`;
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const what = PYYAML_WORDING[e.code] ?? e.message.split('\n')[0];
    return { ok: false, message: `Error parsing YAML: ${what}\n  in "${where}"${at(e.pos[0])}` };
  }
  // A block scalar that ends the text with no line break after it has none in PyYAML (it clips or
  // keeps line breaks the text has); the yaml package gives it one. Jinja2 drops a template's
  // final newline, so a template ending in `key: |` and its lines hits this every time.
  if (!/[\n\r]$/.test(text)) {
    visit(doc, {
      Scalar(_key, node) {
        if ((node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') && node.range?.[2] === text.length) {
          const held = node as { value: unknown; source?: unknown };
          if (typeof held.value === 'string') held.value = held.value.replace(/\n$/, '');
          if (typeof held.source === 'string') held.source = held.source.replace(/\n$/, '');
        }
      },
    });
  }
  try {
    return { ok: true, value: pyyamlValue(doc.contents, doc) };
  } catch (err) {
    // What PyYAML's constructor refused (a date that is none, an unknown tag, aliases beyond the cap) is the text's fault.
    if (err instanceof PyYamlError) return { ok: false, message: `Error parsing YAML: ${err.message}\n  in "${where}"${at(err.offset)}` };
    if (err instanceof RangeError) return { ok: false, message: `Error parsing YAML: the document nests too deeply\n  in "${where}"` };
    throw err;
  }
}

/** A configuration as `_ProcessResource` sees it: the raw resource entries, not yet checked. */
export interface ParsedConfig {
  /** null when the text was empty: DM returns '' for it, and so do we (empty result). */
  resources: Json[] | null;
  /** PR 167 top-level `outputs:`, unchecked. */
  outputs?: Json;
  /** The client-side `imports:` directive: kept for tools, never read by expansion. */
  imports?: Json;
}

/**
 * Parses the top-level configuration (text, or a deployment object's
 * configuration already read). An empty text yields `resources: null`;
 * a missing or null `resources:` yields `[]`, as expandybird did.
 */
export function parseConfig(text: string | JsonObject): Parsed<ParsedConfig> {
  if (typeof text === 'string' && text.trim() === '') return { ok: true, value: { resources: null } };
  // A deployment object's configuration was read as PyYAML reads it when its file was loaded (model/source.ts).
  const parsed = typeof text === 'string' ? parseYaml(text, 'template') : { ok: true as const, value: text };
  if (!parsed.ok) return parsed;
  const doc = parsed.value;
  if (doc === null || doc === undefined) return { ok: true, value: { resources: null } };
  if (!isObject(doc)) return { ok: false, message: 'The configuration is not a mapping with a `resources:` list.' };
  const resources = isEmptyMapping(doc['resources']) ? [] : doc['resources'];
  if (resources !== undefined && resources !== null && !Array.isArray(resources)) {
    return { ok: false, message: "The configuration's `resources:` is not a list." };
  }
  const value: ParsedConfig = { resources: resources ?? [] };
  if (doc['outputs'] !== undefined) value.outputs = doc['outputs'];
  if (doc['imports'] !== undefined) value.imports = doc['imports'];
  return { ok: true, value };
}

/** Imports normalised to `{content, path?}` (the API's shape; PR 167's `SimpleImportMap`). */
export function normalizeImports(imports: Record<string, string | ImportFile> | undefined): Map<string, ImportFile> {
  const out = new Map<string, ImportFile>();
  for (const [name, v] of Object.entries(imports ?? {})) {
    out.set(name, typeof v === 'string' ? { content: v } : { content: v.content, ...(v.path !== undefined ? { path: v.path } : {}) });
  }
  return out;
}

export type TemplateLanguage = 'jinja' | 'python';

/**
 * The language of a template: from the import's path when present, else
 * from the type (`*.jinja`/`*.yaml` are Jinja, `*.py` is Python), as expandybird.
 */
export function languageOf(type: string, file: ImportFile): TemplateLanguage | null {
  const source = file.path ?? type;
  if (/\.(jinja|yaml)$/.test(source)) return 'jinja';
  if (/\.py$/.test(source)) return 'python';
  return null;
}

/** `resources: {}`: DM iterated over a mapping's keys, so an empty one is no resources. */
export function isEmptyMapping(v: unknown): boolean {
  return isObject(v) && Object.keys(v).length === 0;
}

/** A mapping, typed as DM's JSON object. */
export const isObject = isRecord as (v: unknown) => v is JsonObject;
