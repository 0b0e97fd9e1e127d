/**
 * YAML text → object candidates with source positions.
 *
 * A file may hold one object, a YAML list of objects (Aptomi's style), or
 * several `---` documents. Every candidate keeps enough of the parse tree to
 * map any field path back to a line and column, and keeps its own text as
 * written (comments included) so the store can save it verbatim.
 */
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  visit,
  type Document,
  type Node as YamlNode,
  type Scalar,
} from 'yaml';
import type { Diagnostic, SourcePos } from '../diagnostics';
import { PyYamlError, pyyamlValue } from '../dm/pyyaml';

export interface SourceObject {
  /** The plain JS value of the object. */
  value: unknown;
  /** Verbatim text of this object (dedented when it was a list item). */
  text: string;
  file?: string;
  /** Where the object starts in the file. */
  pos: SourcePos;
  /**
   * Resolves a field path inside this object to a position; with `inner`,
   * a line and column inside that field's string (a template's own error
   * position) to the file's line and column.
   */
  locate(path: readonly PropertyKey[], opts?: { key?: boolean; inner?: InnerPos }): SourcePos;
}

/** A 1-based position inside a string value (a template or expression). */
export interface InnerPos {
  line?: number;
  column?: number;
}

export interface ParseResult {
  objects: SourceObject[];
  diagnostics: Diagnostic[];
}

/** Aliases multiply data; a handful is plenty for policy files. */
const MAX_ALIAS_COUNT = 100;

/**
 * A DM deployment's `configuration` is DM's YAML, which DM read with PyYAML
 * (`yes` is true, `y` is text, `017` is 15): read it so, not as the rest of
 * the file's YAML 1.2, so a configuration means the same in a policy file as
 * in `keelson expand`.
 */
function readDmConfiguration(value: unknown, node: YamlNode, doc: Document): void {
  const o = value as Record<string, unknown> | null;
  if (!o || typeof o.kind !== 'string' || o.kind.toLowerCase() !== 'deployment' || o.apiVersion !== undefined || !isMap(node)) return;
  const configuration = node.get('configuration', true);
  if (configuration !== undefined) o.configuration = pyyamlValue(configuration, doc);
}

export function parseYamlObjects(text: string, file?: string): ParseResult {
  const lineCounter = new LineCounter();
  const diagnostics: Diagnostic[] = [];
  const objects: SourceObject[] = [];
  let docs: Document.Parsed[];
  try {
    // The parser's own unique-key check compares every key with every other (10,000 labels: 850 ms
    // of a request thread); duplicateKeys below finds the same duplicates in one pass.
    docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: false }) as Document.Parsed[];
  } catch (e) {
    diagnostics.push({ code: 'yaml_syntax', severity: 'error', message: String(e), file, line: 1, column: 1 });
    return { objects, diagnostics };
  }
  if (!Array.isArray(docs)) docs = [docs];

  const posOf = (offset: number, end?: number): SourcePos => {
    const p = lineCounter.linePos(offset);
    const out: SourcePos = { line: p.line, column: p.col };
    if (end !== undefined) {
      const e = lineCounter.linePos(end);
      out.endLine = e.line;
      out.endColumn = e.col;
    }
    return out;
  };

  for (const doc of docs) {
    if (doc.errors.length === 0) {
      const dup = firstDuplicateKey(doc);
      if (dup) {
        diagnostics.push({ code: 'yaml_syntax', severity: 'error', message: 'YAML syntax error: Map keys must be unique', file, ...posOf(dup) });
        continue;
      }
    }
    if (doc.errors.length > 0) {
      for (const err of doc.errors) {
        diagnostics.push({
          code: 'yaml_syntax',
          severity: 'error',
          message: `YAML syntax error: ${firstLine(err.message)}`,
          file,
          ...posOf(err.pos[0]),
        });
      }
      continue;
    }
    const root = doc.contents as YamlNode | null;
    if (root == null || (isScalar(root) && root.value == null)) continue; // empty document
    const docEnd = doc.range[2];
    const items: { node: YamlNode; listItem: boolean; end: number }[] = isSeq(root)
      ? root.items.map((n, i) => ({
          node: n as YamlNode,
          listItem: true,
          // An item's text runs to where the next item (with its leading comments) begins.
          end: itemEnd(text, (root.items[i + 1] as YamlNode | undefined)?.range?.[0], docEnd),
        }))
      : [{ node: root, listItem: false, end: docEnd }];
    for (const { node, listItem, end } of items) {
      const range = node?.range;
      const start = range ? range[0] : 0;
      if (!isMap(node)) {
        diagnostics.push({
          code: 'not_an_object',
          severity: 'error',
          message: 'expected an object (a mapping with kind and metadata)',
          file,
          ...posOf(start),
        });
        continue;
      }
      let value: unknown;
      try {
        value = node.toJS(doc, { maxAliasCount: MAX_ALIAS_COUNT });
        readDmConfiguration(value, node, doc);
      } catch (e) {
        const at = e instanceof PyYamlError && e.offset !== undefined ? e.offset : start;
        diagnostics.push({ code: 'yaml_syntax', severity: 'error', message: String((e as Error).message), file, ...posOf(at) });
        continue;
      }
      const objText = listItem ? sliceListItem(text, node, end) : sliceNode(text, node, end);
      objects.push({
        value,
        text: objText,
        file,
        pos: posOf(start),
        locate: (path, opts) => locateIn(text, node, path, opts?.key ?? false, posOf, start, opts?.inner),
      });
    }
  }
  return { objects, diagnostics };
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

/** Walk `path` from `node`; return the deepest position reached. */
function locateIn(
  text: string,
  root: YamlNode,
  path: readonly PropertyKey[],
  wantKey: boolean,
  posOf: (o: number, e?: number) => SourcePos,
  fallback: number,
  inner?: InnerPos,
): SourcePos {
  let node: unknown = root;
  let best: [number, number] | undefined = root.range ? [root.range[0], root.range[1]] : undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      const keyNode = pair.key as YamlNode;
      if (last && wantKey && keyNode.range) return posOf(keyNode.range[0], keyNode.range[1]);
      const valueNode = pair.value as YamlNode | null;
      if (valueNode?.range) best = [valueNode.range[0], valueNode.range[1]];
      else if (keyNode.range) best = [keyNode.range[0], keyNode.range[1]];
      node = valueNode;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as YamlNode | undefined;
      if (!item) break;
      if (item.range) best = [item.range[0], item.range[1]];
      node = item;
    } else break;
  }
  if (inner?.line && isScalar(node) && node.range) return insideScalar(text, node, posOf(node.range[0]), inner);
  return best ? posOf(best[0], best[1]) : posOf(fallback);
}

/**
 * A position inside a scalar's string, in the file: block scalars (`|`,
 * `>`) start on the line after their indicator, at the block's indentation;
 * quoted scalars one column after their quote.
 */
function insideScalar(text: string, node: Scalar, start: SourcePos, inner: InnerPos): SourcePos {
  const line = inner.line ?? 1;
  const column = inner.column ?? 1;
  if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
    const contentStart = text.indexOf('\n', node.range![0]) + 1;
    const lineEnd = text.indexOf('\n', contentStart);
    const firstLine = text.slice(contentStart, lineEnd < 0 ? undefined : lineEnd);
    const indent = firstLine.length - firstLine.trimStart().length;
    return { line: start.line + line, column: indent + column };
  }
  const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
  if (line === 1) return { line: start.line, column: start.column + quoted + column - 1 };
  return { line: start.line + line - 1, column };
}

/**
 * Text of a list item as written, made into a stand-alone document: the
 * leading "- " becomes indentation and the block is dedented. Comment lines
 * directly above the item and trailing comments up to the next item travel
 * with it.
 */
function sliceListItem(text: string, node: YamlNode, end: number): string {
  const start = node.range?.[0] ?? 0;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const column = start - lineStart;
  const lines = text.slice(lineStart, end).replace(/\s+$/, '').split('\n');
  // The first line begins with "- " (or "-   "): blank out the dash.
  lines[0] = ' '.repeat(column) + (lines[0] ?? '').slice(column);
  const above = leadingComments(text, lineStart, dashColumn(text, lineStart)).map((l) => l.trimStart());
  return [...above, ...dedent(lines)].join('\n') + '\n';
}

/** A whole document as written: comments above, inside and after it. */
function sliceNode(text: string, node: YamlNode, end: number): string {
  const start = node.range?.[0] ?? 0;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const body = text.slice(lineStart, end).replace(/\n---\s*$/, '').replace(/\n\.\.\.\s*$/, '').replace(/\s+$/, '');
  return [...leadingComments(text, lineStart), body].join('\n') + '\n';
}

/**
 * Where a list item's own text stops: at the start of the line holding the
 * next item, minus the comment lines right above it (they describe the next
 * item); the last item runs to the end of the document.
 */
function itemEnd(text: string, nextStart: number | undefined, docEnd: number): number {
  if (nextStart === undefined) return docEnd;
  let cursor = text.lastIndexOf('\n', nextStart - 1) + 1;
  const comments = leadingComments(text, cursor, dashColumn(text, cursor));
  for (const c of comments) cursor -= c.length + 1;
  return cursor;
}

/**
 * Comment lines directly above `lineStart`. With `maxIndent`, only comments
 * indented no deeper than that count: deeper ones trail the previous item.
 */
function leadingComments(text: string, lineStart: number, maxIndent = Infinity): string[] {
  const out: string[] = [];
  let cursor = lineStart;
  while (cursor > 0) {
    const prevStart = text.lastIndexOf('\n', cursor - 2) + 1;
    const line = text.slice(prevStart, cursor - 1);
    const indent = line.length - line.trimStart().length;
    if (/^\s*#/.test(line) && indent <= maxIndent) {
      out.unshift(line);
      cursor = prevStart;
    } else break;
  }
  return out;
}

/** Column of the "-" that opens the list item on the line starting at `lineStart`. */
function dashColumn(text: string, lineStart: number): number {
  let i = lineStart;
  while (text[i] === ' ') i++;
  return i - lineStart;
}

/** Remove the common indentation of the content lines; comments lose at most that much. */
function dedent(lines: string[]): string[] {
  let min = Infinity;
  for (const l of lines) {
    const t = l.trimStart();
    if (t === '' || t.startsWith('#')) continue;
    min = Math.min(min, l.length - t.length);
  }
  if (!Number.isFinite(min) || min === 0) return lines;
  return lines.map((l) => {
    const indent = l.length - l.trimStart().length;
    return l.trim() === '' ? '' : l.slice(Math.min(indent, min));
  });
}

/**
 * Where a field of an object sits in its YAML text — and, with `inner`, a
 * line and column inside that field's string (a template's own position):
 * so a failure found while resolving opens the editor on its line. Block
 * scalars (`|`, `>`) start on the line after their indicator; quoted
 * scalars one column after their quote. Undefined when the text does not
 * parse or the path is not there.
 */
export function locateField(text: string, path: readonly (string | number)[], inner?: InnerPos): SourcePos | undefined {
  const lineCounter = new LineCounter();
  const doc = parseAllDocuments(text, { lineCounter, prettyErrors: false })[0] as Document.Parsed | undefined;
  if (!doc || doc.errors.length > 0) return undefined;
  let node: unknown = doc.contents;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return undefined;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
    } else return undefined;
    if (node == null) return undefined;
  }
  const range = (node as YamlNode).range;
  if (!range) return undefined;
  const p = lineCounter.linePos(range[0]);
  const at: SourcePos = { line: p.line, column: p.col };
  return inner?.line && isScalar(node) ? insideScalar(text, node, at, inner) : at;
}

/**
 * Where the first repeated key of any mapping of the document is (its
 * offset), in one pass: scalar keys compared by value, as YAML's own check
 * does for the keys a policy uses; other keys (rare, and never a policy
 * field) by their text.
 */
function firstDuplicateKey(doc: Document.Parsed): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const item of map.items) {
        const key = item.key as YamlNode | null;
        const id = key === null || key === undefined ? null : isScalar(key) ? `s:${typeof key.value}:${String(key.value)}` : `n:${String(key)}`;
        if (seen.has(id)) {
          found = key?.range?.[0] ?? map.range?.[0] ?? 0;
          return visit.BREAK;
        }
        seen.add(id);
      }
      return undefined;
    },
  });
  return found;
}
