/**
 * Who an API request acts for: bearer tokens first (API clients, the CLI);
 * without an Authorization header, the console's session. The REST, DM and
 * tRPC doors all authenticate here, so it sits in auth/, below them, and
 * is given the token check and the session as functions (services/tokens.ts
 * and next-auth live above it).
 */
import { crossSiteRefusal, type RequestLike } from '../http/same-origin';

/** Who a request acts for (null: anonymous), or why it is refused. */
export type Authenticated<A> = { actor: A | null; via?: 'token' | 'session' } | { refuse: string; code?: 'UNAUTHORIZED' | 'FORBIDDEN' };

/**
 * A header that is present but wrong is a 401, never a silent fall-back to
 * anonymous. Every API route (REST, DM, tRPC) authenticates here, so each
 * gets the cross-site rule (http/same-origin.ts) by construction: a write
 * through the session cookie from another origin is 403 before the session
 * is even read.
 */
export function bearerOrSession<A>(
  verifyToken: (raw: string) => Promise<A | null>,
  session: () => Promise<A | null>,
  opts: { consoleUrl?: () => string } = {},
): (req: RequestLike) => Promise<Authenticated<A>> {
  return async (req) => {
    const header = req.headers.get('authorization');
    if (header !== null) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) return { refuse: 'The Authorization header must be "Bearer <token>".' };
      const actor = await verifyToken(m[1]!);
      return actor ? { actor, via: 'token' } : { refuse: 'The token is unknown, revoked or expired.' };
    }
    const crossSite = crossSiteRefusal(req, opts.consoleUrl?.());
    if (crossSite) return { refuse: crossSite, code: 'FORBIDDEN' };
    return { actor: await session(), via: 'session' };
  };
}
