export function objectHref(o: { kind: string; namespace: string; name: string }, at?: { line?: number; column?: number }): string {
  const base = `/objects/${encodeURIComponent(o.kind)}/${encodeURIComponent(o.namespace)}/${encodeURIComponent(o.name)}`;
  if (!at?.line) return base;
  return `${base}?line=${at.line}${at.column ? `&column=${at.column}` : ''}`;
}
