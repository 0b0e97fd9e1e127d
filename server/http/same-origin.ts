/**
 * Cross-site writes. A browser sends the console's session cookie with a
 * request whichever page made it: SameSite=Lax keeps it off cross-site
 * POSTs, but a page on another port or subdomain of the same site (another
 * app on the same host, say) is "same-site" and gets it. So a
 * state-changing request that acts through the session must come from the
 * console's own pages:
 *
 *  - GET, HEAD and OPTIONS change nothing (tRPC takes mutations only by
 *    POST; REST's GET routes only read) and pass.
 *  - Sec-Fetch-Site, which every current browser sends and no page can set:
 *    only `same-origin` passes (and `none`, a request the user made
 *    themselves, typed or bookmarked).
 *  - Without it (older browsers), Origin, which browsers send with every
 *    cross-origin write: it must be the console's own — NEXTAUTH_URL's
 *    origin (what browsers see behind a reverse proxy), or the Host the
 *    request was sent to. `Origin: null` (a sandboxed frame, a redirect
 *    across origins) never passes.
 *  - Neither header: no browser made it cross-site (curl or a script with a
 *    cookie it holds, the CLI's password sign-in, Node's fetch), so it passes.
 *
 * Requests with a bearer token carry no ambient credential and are never
 * asked (`bearerOrSession` checks only the session path); next-auth's own
 * routes keep their CSRF token.
 */

/** Methods that change nothing. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface RequestLike {
  readonly method: string;
  readonly headers: { get(name: string): string | null };
}

/**
 * Why a request acting through the session cookie is refused as a
 * cross-site write, or null when it may go on. `consoleUrl`: the console's
 * public URL (NEXTAUTH_URL), when known.
 */
export function crossSiteRefusal(req: RequestLike, consoleUrl?: string): string | null {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const site = req.headers.get('sec-fetch-site')?.trim().toLowerCase();
  const origin = req.headers.get('origin')?.trim();
  if (site) {
    if (site === 'same-origin' || site === 'none') return null;
    return refusal(`it was sent from another ${site === 'cross-site' ? 'site' : 'origin'}${origin ? ` (${origin})` : ''}`);
  }
  if (!origin) return null;
  if (origin !== 'null' && isOwnOrigin(origin, req.headers.get('host'), consoleUrl)) return null;
  return refusal(`it was sent from ${origin === 'null' ? 'an opaque origin' : origin}`);
}

function refusal(why: string): string {
  return `A change made with the console's session must come from the console's own pages, but ${why}. Scripts and other sites use an API token (Authorization: Bearer …).`;
}

function isOwnOrigin(origin: string, host: string | null, consoleUrl: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (consoleUrl) {
    try {
      if (new URL(consoleUrl).origin === url.origin) return true;
    } catch {
      // A bad NEXTAUTH_URL stops the server at start (env.ts); nothing to match here.
    }
  }
  // The host the browser sent the request to: a page there is the console's own (read as a URL, so `:443` on https is no difference).
  if (!host) return false;
  try {
    return new URL(`${url.protocol}//${host.trim()}`).host === url.host;
  } catch {
    return false;
  }
}
