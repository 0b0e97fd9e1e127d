/**
 * A request or response body read whole, or not at all: reading stops (and
 * the stream is cancelled) as soon as more than `max` bytes have arrived,
 * whatever Content-Length claimed — it may be absent (chunked) or wrong.
 */
export async function readCapped(body: ReadableStream<Uint8Array>, max: number): Promise<{ bytes: Uint8Array<ArrayBuffer> } | { over: number }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return { over: size };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes };
}
