/** Model URIs per object; the path decides which JSON Schema applies (see setup.ts). */
export function modelUriFor(kind: string, namespace: string, name: string): string {
  return `file:///objects/${encodeURIComponent(kind)}/${encodeURIComponent(namespace || '_')}/${encodeURIComponent(name || 'new')}.yaml`;
}
