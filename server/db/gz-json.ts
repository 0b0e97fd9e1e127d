/**
 * Large JSON documents stored whole as gzipped JSON in base64 text (a
 * revision's plan, a generation's resolved state): the database does not
 * parse them, and they travel a tenth of the bytes. Text that is plain JSON
 * (rows written when such columns were jsonb) still reads.
 *
 * The synchronous pair serves drizzle column mappings; the asynchronous one
 * zips on libuv's threads, for the largest documents.
 */
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';

/** How every gzip stream begins, in base64. */
const GZIP_BASE64 = 'H4sI';
const LEVEL = 1;
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export function toGzJson(value: unknown): string {
  return gzipSync(JSON.stringify(value), { level: LEVEL }).toString('base64');
}

export function fromGzJson(text: string): unknown {
  return JSON.parse(text.startsWith(GZIP_BASE64) ? gunzipSync(Buffer.from(text, 'base64')).toString('utf8') : text) as unknown;
}

export async function toGzJsonAsync(value: unknown): Promise<string> {
  return (await gzipAsync(JSON.stringify(value), { level: LEVEL })).toString('base64');
}

export async function fromGzJsonAsync(text: string): Promise<unknown> {
  return JSON.parse(text.startsWith(GZIP_BASE64) ? (await gunzipAsync(Buffer.from(text, 'base64'))).toString('utf8') : text) as unknown;
}
