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

/**
 * Values that arrived as JSON text (a state from a resolver thread, parsed
 * here), with that text: storing one zips the text it came as instead of
 * serialising the value again on this thread. Such a value is never changed
 * after it is parsed (a generation's state is shared by every reader), so
 * its text stays its JSON.
 */
const arrivedAs = new WeakMap<object, string>();

/** `JSON.parse(text)`, remembering the text for `toGzJsonAsync`. */
export function parseRemembered(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (value !== null && typeof value === 'object') arrivedAs.set(value, text);
  return value;
}

/** `value`, remembered as the text it equals (built from parts of other values, and stored as that text). */
export function rememberText<T extends object>(value: T, text: string): T {
  arrivedAs.set(value, text);
  return value;
}

/** Whether `toGzJsonAsync` will store `value` as the text it arrived as. */
export function storedAsArrived(value: unknown): boolean {
  return value !== null && typeof value === 'object' && arrivedAs.has(value);
}

export async function toGzJsonAsync(value: unknown): Promise<string> {
  const text = (value !== null && typeof value === 'object' && arrivedAs.get(value)) || JSON.stringify(value);
  return (await gzipAsync(text, { level: LEVEL })).toString('base64');
}

export async function fromGzJsonAsync(text: string): Promise<unknown> {
  return JSON.parse(text.startsWith(GZIP_BASE64) ? (await gunzipAsync(Buffer.from(text, 'base64'))).toString('utf8') : text) as unknown;
}
