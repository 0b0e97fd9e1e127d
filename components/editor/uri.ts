/** Model URIs per object; the path decides which JSON Schema applies (see setup.ts). */
export function modelUriFor(kind: string, namespace: string, name: string): string {
  return `file:///objects/${encodeURIComponent(kind)}/${encodeURIComponent(namespace || '_')}/${encodeURIComponent(name || 'new')}.yaml`;
}

/**
 * The new-object editor's model: outside `/objects/<kind>/`, so no one kind's
 * schema applies; any-kind.json does (a list or `---` documents of any kinds).
 */
export function newObjectUri(kind: string): string {
  return `file:///new/${encodeURIComponent(kind)}.yaml`;
}
