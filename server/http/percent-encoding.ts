/**
 * Percent-encoding a request may carry. A `%` that does not start a valid
 * UTF-8 escape (`/tenant/%ff`, `%E0%A4%A`) is the client's error: every door
 * answers it with a 400 in its own shape, before anything decodes the text
 * (Next.js's own routing answered a bare 500; URLSearchParams quietly reads
 * U+FFFD instead).
 */

export const BAD_PATH_ENCODING = 'The request path is not valid percent-encoding.';
export const BAD_QUERY_ENCODING = 'The request query is not valid percent-encoding.';

/** Whether `text` (a path or a query string, as sent) decodes: every `%` starts a valid UTF-8 escape. */
export function decodesCleanly(text: string): boolean {
  if (!text.includes('%')) return true;
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** The path's, then the query's, encoding problem; undefined when both decode. */
export function encodingProblem(url: URL): string | undefined {
  if (!decodesCleanly(url.pathname)) return BAD_PATH_ENCODING;
  if (!decodesCleanly(url.search)) return BAD_QUERY_ENCODING;
  return undefined;
}
