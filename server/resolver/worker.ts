/**
 * The resolver worker thread: answers ResolverRequests with a
 * SessionResolver. Any throw is sent back as a message, so one bad request
 * fails that request only; running out of memory or time ends the thread,
 * and the pool reports that on the request and starts a new one.
 */
import { parentPort } from 'node:worker_threads';
import { SessionResolver, type ResolverRequest } from './session';

const resolver = new SessionResolver();
if (!parentPort) throw new Error('server/resolver/worker.ts runs as a worker thread');
const port = parentPort;
port.on('message', (msg: { id: number; req: ResolverRequest }) => {
  try {
    port.postMessage({ id: msg.id, ok: true, value: resolver.handle(msg.req) });
  } catch (e) {
    port.postMessage({ id: msg.id, ok: false, message: e instanceof Error ? e.message : String(e) });
  }
});
port.postMessage({ ready: true });
