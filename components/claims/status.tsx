const CLASS: Record<string, string> = { resolved: 'badge-ok', rejected: 'badge-warn', error: 'badge-error' };

export function ClaimStatus({ status }: { status: string }) {
  return (
    <span className={`badge ${CLASS[status] ?? ''}`} data-testid="claim-status">
      {status}
    </span>
  );
}

export function claimHref(c: { namespace: string; name: string }, generation?: number) {
  return `/claims/${encodeURIComponent(c.namespace)}/${encodeURIComponent(c.name)}${generation !== undefined ? `?generation=${generation}` : ''}`;
}
