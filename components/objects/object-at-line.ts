import { isMap, isSeq, LineCounter, parseAllDocuments } from 'yaml';

/**
 * Which object of a (possibly multi-object) YAML text holds `line`, as
 * "kind namespace/name": a problem in a paste of several objects is named
 * by its object, as the server names it. Undefined outside any object.
 */
export function objectAtLine(text: string, line: number): string | undefined {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines });
  if (!Array.isArray(docs)) return undefined;
  for (const doc of docs) {
    const items = isSeq(doc.contents) ? doc.contents.items : [doc.contents];
    for (const item of items) {
      if (!isMap(item) || !item.range) continue;
      const from = lines.linePos(item.range[0]).line;
      // The node's end is where the next one starts: a line there belongs to the next.
      const endPos = lines.linePos(item.range[2]);
      const to = endPos.col === 1 ? endPos.line - 1 : endPos.line;
      if (line < from || line > to) continue;
      const kind = item.get('kind');
      const metadata = item.get('metadata');
      const namespace = isMap(metadata) ? metadata.get('namespace') : undefined;
      const name = isMap(metadata) ? metadata.get('name') : undefined;
      if (typeof kind !== 'string') return undefined;
      return `${kind} ${typeof namespace === 'string' ? namespace : '?'}/${typeof name === 'string' ? name : '?'}`;
    }
  }
  return undefined;
}
