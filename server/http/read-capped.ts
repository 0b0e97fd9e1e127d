/**
 * A request or response body read whole, or not at all: reading stops as
 * soon as more than `max` bytes have arrived, whatever Content-Length
 * claimed — it may be absent (chunked) or wrong.
 *
 * A Web stream is cancelled when it runs over. A Node stream (an
 * IncomingMessage) is only left unread: destroying it would take the socket
 * with it before the 413 could be written (the server's request timeout
 * ends a client that keeps sending).
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  max: number,
): Promise<{ bytes: Uint8Array<ArrayBuffer> } | { over: number }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body instanceof ReadableStream) {
    const reader = body.getReader();
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
  } else {
    const it = body[Symbol.asyncIterator]();
    for (;;) {
      const { done, value } = await it.next();
      if (done) break;
      size += value.byteLength;
      if (size > max) return { over: size };
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes };
}
