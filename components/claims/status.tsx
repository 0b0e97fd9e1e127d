const CLASS: Record<string, string> = { resolved: 'badge-ok', rejected: 'badge-warn', error: 'badge-error' };

export function ClaimStatus({ status }: { status: string }) {
  return (
    <span className={`badge ${CLASS[status] ?? ''}`} data-testid="claim-status">
      {status}
    </span>
  );
}

/**
 * Each kind of request has its own route: a claim and a DM deployment may
 * share a namespace and a name, and one route for both reached only one.
 * A request's outcome without a kind is an Aptomi claim.
 */
export const REQUEST_ROUTES = { claim: 'claims', action: 'actions', installation: 'installations', deployment: 'deployments' } as const;

export function claimHref(c: { namespace: string; name: string; kind?: keyof typeof REQUEST_ROUTES }, generation?: number) {
  return `/${REQUEST_ROUTES[c.kind ?? 'claim']}/${encodeURIComponent(c.namespace)}/${encodeURIComponent(c.name)}${generation !== undefined ? `?generation=${generation}` : ''}`;
}

export function isRequestKind(kind: string): kind is keyof typeof REQUEST_ROUTES {
  return Object.hasOwn(REQUEST_ROUTES, kind);
}
