'use client';
/** A timestamp shown relative ("3 min ago") with the exact time on hover. */
export function Time({ value }: { value: Date | string }) {
  const d = typeof value === 'string' ? new Date(value) : value;
  return (
    <time dateTime={d.toISOString()} title={d.toLocaleString()}>
      {relative(d)}
    </time>
  );
}

function relative(d: Date): string {
  const s = Math.round((Date.now() - d.getTime()) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 86400 * 14) return `${Math.round(s / 86400)} d ago`;
  return d.toLocaleDateString();
}
