export function objectHref(o: { kind: string; namespace: string; name: string }): string {
  return `/objects/${encodeURIComponent(o.kind)}/${encodeURIComponent(o.namespace)}/${encodeURIComponent(o.name)}`;
}
