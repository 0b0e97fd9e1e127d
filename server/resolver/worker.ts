/**
 * The resolver worker thread: answers ResolverRequests with a
 * SessionResolver. Any throw is sent back as a message, so one bad request
 * fails that request only; running out of memory or time ends the thread,
 * and the pool reports that on the request and starts a new one.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SessionResolver, type ResolverRequest } from './session';
import { encodeState, type SentState } from './state-delta';

// A draft thread yields the cores to requests and to the resolution of new
// generations: a dry run with a worst case in it (a 2^30 fan-out walks its
// budget for a second or more) took a core from a console serving 200
// requests a second on two. On Linux a thread's nice value is its own
// (setpriority of "process 0" is the calling thread); elsewhere it would be
// the whole process's, so only there.
// Request text a writer sent (admission) is evaluated at the same lower priority: it is untrusted work too.
const lane = (workerData as { lane?: string } | null)?.lane;
if ((lane === 'drafts' || lane === 'admission') && process.platform === 'linux') {
  try {
    setPriority(0, 10);
  } catch {
    // Not permitted (a container without CAP_SYS_NICE can still lower, but be safe): same priority as the rest.
  }
}

const resolver = new SessionResolver();
if (!parentPort) throw new Error('server/resolver/worker.ts runs as a worker thread');
const port = parentPort;
/**
 * A generation's state crosses as JSON text, which the request thread stores
 * as it is (it would otherwise serialise the state again to store it), and
 * as its change from the state this thread sent before (state-delta.ts): the
 * request thread builds it from that one's objects instead of parsing it all.
 */
const STORED_STATES = new Set<ResolverRequest['op']>(['full', 'update', 'state']);

/** The last state sent, by the id of the answer that carried it. */
let last: { id: number; sent: SentState } | undefined;

port.on('message', (msg: { id: number; req: ResolverRequest }) => {
  try {
    const value = resolver.handle(msg.req);
    if (STORED_STATES.has(msg.req.op) && value !== null && typeof value === 'object') {
      const { json, sent, change } = encodeState(value, last?.sent);
      port.postMessage({ id: msg.id, ok: true, json, ...(change && last ? { change, base: last.id } : {}) });
      last = sent ? { id: msg.id, sent } : undefined;
    } else port.postMessage({ id: msg.id, ok: true, value });
  } catch (e) {
    port.postMessage({ id: msg.id, ok: false, message: e instanceof Error ? e.message : String(e) });
  }
});
port.postMessage({ ready: true });
