/**
 * Where resolutions run. In production a small pool of worker threads
 * (`node:worker_threads`): the web server keeps answering while a large
 * policy resolves, and a policy that outruns the time or memory budget ends
 * that resolution — the thread is stopped and replaced — never the server.
 * Inline (same thread) is kept for tools and tests that want no threads.
 *
 * Lanes: stored generations go to the first thread, which keeps the newest
 * session warm for incremental updates and decision traces; previews of
 * unsaved edits, traces of generations the session does not hold, and
 * views that evaluate the stored policy (Landscaper's scope graph, the
 * Capact Hub's Interfaces: ./stored-work.ts) go to the others, so a slow
 * preview never delays a save. Request text a
 * writer's rights were checked for (YAML, and the kinds' checks, which
 * compile templates and render Jinja: server/services/admission.ts) goes
 * to threads of its own with a budget of its own: neither waits for the
 * other, and none of it runs on the thread that answers requests.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseRemembered, rememberText } from '../db/gz-json';
import { AppError } from '../errors';
import { createSandboxKeeper, plugTemplateSandbox, type SandboxKeeper } from '../dm-python';
import { isAdmissionRequest } from './admission-work';
import { SessionResolver, type ResolverAnswer, type ResolverRequest } from './session';
import { decodeState, type StateChange } from './state-delta';

export type { ResolverRequest } from './session';

export interface Resolver {
  run<R extends ResolverRequest>(req: R): Promise<ResolverAnswer<R>>;
  close(): Promise<void>;
}

/**
 * A resolution that could not finish: over its time or memory budget, or its thread failed.
 * It is an AppError, so a door that does not put it in its own words still answers with it
 * (over a budget: 422, the thread gone: 503) rather than with a 500; `reason` is the clause
 * services build their own sentences from.
 */
export class ResolverFailure extends AppError {
  readonly reason: string;
  constructor(reason: string, code: 'LIMIT_EXCEEDED' | 'UNAVAILABLE' = 'LIMIT_EXCEEDED') {
    super(code, `The server stopped this work: ${reason}.`);
    this.name = 'ResolverFailure';
    this.reason = reason;
  }
}

/** By name, not class: Next.js may load this module twice (see server/errors.ts). */
export function isResolverFailure(e: unknown): e is ResolverFailure {
  return e instanceof Error && e.name === 'ResolverFailure';
}

export interface ResolverOptions {
  /** Worker threads; 0 resolves inline. */
  threads: number;
  /** Wall-clock budget of one resolution. */
  timeoutMs: number;
  /** Heap budget of a resolver thread. */
  memoryMb: number;
  /** Threads reading request text (when `threads` > 0). */
  admissionThreads: number;
  /** Wall-clock budget of reading one request's text: its YAML and its kinds' checks. */
  admissionTimeoutMs: number;
  /**
   * The time each unit of a resolution gets on its thread's clock: an Aptomi
   * claim, a Landscaper root installation, a Capact choice, a placement, a DM
   * deployment's Jinja templates (engine/host-clock.ts). A hostile unit fails
   * alone, long before `timeoutMs` would end every one of them.
   */
  unitMs: number;
  /** Boot the DM template sandbox when the pool is made (a server), not at the first template (KEELSON_DM_WARM). */
  warmSandbox: boolean;
  /**
   * Start every thread when the pool is made (a server): loading the engine
   * into a thread takes seconds on a busy machine, which the first preview,
   * Try it or installations view would otherwise wait for.
   */
  warmThreads: boolean;
}

export const DEFAULT_RESOLVER: ResolverOptions = { threads: 0, timeoutMs: 60_000, memoryMb: 2048, admissionThreads: 1, admissionTimeoutMs: 20_000, unitMs: 5_000, warmSandbox: false, warmThreads: false };

export function createResolver(opts: Partial<ResolverOptions> = {}): Resolver {
  const o = { ...DEFAULT_RESOLVER, ...opts };
  if (o.threads <= 0) return new InlineResolver();
  const boot = workerBootFile();
  if (!boot) {
    console.warn('keelson: resolver worker not found (run the server from the repository root); resolving in the request thread');
    return new InlineResolver();
  }
  return new WorkerPool(boot, o);
}

export class InlineResolver implements Resolver {
  private readonly session = new SessionResolver();
  constructor() {
    // Resolving in the request thread (tests, or no worker file): DM templates run from this thread then.
    plugTemplateSandbox();
  }
  async run<R extends ResolverRequest>(req: R): Promise<ResolverAnswer<R>> {
    return this.session.handle(req) as ResolverAnswer<R>;
  }
  async close(): Promise<void> {}
}

/**
 * The worker's entry is found on disk from the working directory, not from
 * this module's URL: Next.js bundles this module into `.next/`, where the
 * sources beside it do not exist.
 */
function workerBootFile(): string | undefined {
  const p = join(/* turbopackIgnore: true */ process.cwd(), 'server', 'resolver', 'worker-boot.mjs');
  return existsSync(p) ? p : undefined;
}

interface Slot {
  lane: 'generations' | 'drafts' | 'admission';
  worker?: Worker;
  ready?: Promise<Worker>;
  /** Requests run one at a time per thread; this is the tail of its queue. */
  tail: Promise<unknown>;
  waiting: number;
  /** The last state its thread sent, by the id of that answer: the next one may come as a change from it (state-delta.ts). */
  last?: { id: number; state: unknown };
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

class WorkerPool implements Resolver {
  private readonly slots: Slot[];
  private readonly admission: Slot[];
  private nextDraft = 0;
  private seq = 0;
  private closed = false;
  /** The DM template sandbox the threads share (null: none on this host; undefined: not started yet). */
  private keeper: SandboxKeeper | null | undefined;

  constructor(
    private readonly boot: string,
    private readonly opts: ResolverOptions,
  ) {
    this.slots = Array.from({ length: Math.max(1, opts.threads) }, (_, i) => ({ lane: i === 0 || opts.threads <= 1 ? 'generations' : 'drafts', tail: Promise.resolve(), waiting: 0 }));
    this.admission = Array.from({ length: Math.max(1, opts.admissionThreads) }, () => ({ lane: 'admission', tail: Promise.resolve(), waiting: 0 }));
    // A server boots its DM sandbox now, beside everything else, so that the first save of a deployment does not wait for Pyodide.
    if (opts.warmSandbox) this.sandboxKeeper()?.warm();
    if (opts.warmThreads) {
      for (const slot of [...this.slots, ...this.admission]) {
        // Idle, a started thread must not keep the process alive (exec refs it while it works); a failed start is retried by the first request.
        this.start(slot).then(
          (w) => slot.waiting === 0 && w.unref(),
          () => undefined,
        );
      }
    }
  }

  /** The DM template sandbox the threads share, started on first need. */
  private sandboxKeeper(): SandboxKeeper | null {
    if (this.keeper === undefined) this.keeper = process.env.KEELSON_DM_PYTHON === 'off' ? null : (createSandboxKeeper() ?? null);
    return this.keeper;
  }

  run<R extends ResolverRequest>(req: R): Promise<ResolverAnswer<R>> {
    if (this.closed) return Promise.reject(new ResolverFailure('the resolver is shut down', 'UNAVAILABLE'));
    const slot = this.slotFor(req);
    slot.waiting++;
    const run = slot.tail.then(() => this.exec(slot, req));
    slot.tail = run.catch(() => undefined).finally(() => slot.waiting--);
    return run as Promise<ResolverAnswer<R>>;
  }

  private slotFor(req: ResolverRequest): Slot {
    if (isAdmissionRequest(req)) return this.admission.reduce((best, s) => (s.waiting < best.waiting ? s : best));
    // A service's placement stays on the first thread with the probes its create sends there.
    const oneOff = req.op === 'draft' || req.op === 'dmExpand' || req.op === 'explainDraft' || req.op === 'landscaperScopes' || req.op === 'capactInterfaces';
    if (!oneOff || this.slots.length === 1) return this.slots[0]!;
    // Drafts, and views that evaluate stored policy: the least busy of the other threads.
    const others = this.slots.slice(1);
    this.nextDraft = (this.nextDraft + 1) % others.length;
    return others.reduce((best, s, i) => (s.waiting < best.waiting || (s.waiting === best.waiting && i === this.nextDraft) ? s : best), others[this.nextDraft]!);
  }

  private start(slot: Slot): Promise<Worker> {
    if (slot.ready) return slot.ready;
    // Every thread of the pool sends its DM templates to one sandbox keeper: one Pyodide process per tenant for the server, not per thread.
    const sandboxPort = this.sandboxKeeper()?.connect();
    const worker = new Worker(this.boot, {
      // A fresh thread: the parent's flags (a test runner's, say) are not the worker's business.
      execArgv: [],
      // Drafts (dry runs, previews, Deployment Manager expansions) and request text run on threads of lower priority.
      workerData: { lane: slot.lane, unitMs: this.opts.unitMs, ...(sandboxPort ? { sandboxPort } : {}) },
      ...(sandboxPort ? { transferList: [sandboxPort] } : {}),
      resourceLimits: { maxOldGenerationSizeMb: this.opts.memoryMb },
    });
    slot.worker = worker;
    slot.ready = new Promise<Worker>((resolve, reject) => {
      const onMessage = (m: { ready?: boolean }) => {
        if (!m?.ready) return;
        worker.off('message', onMessage);
        worker.off('error', onError);
        resolve(worker);
      };
      const onError = (e: Error) => {
        this.forget(slot, worker);
        reject(new ResolverFailure(`the resolver thread could not start: ${e.message}`, 'UNAVAILABLE'));
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
    });
    return slot.ready;
  }

  private forget(slot: Slot, worker: Worker) {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.ready = undefined;
    slot.last = undefined;
    void worker.terminate().catch(() => undefined);
  }

  private async exec(slot: Slot, req: ResolverRequest): Promise<unknown> {
    const worker = await this.start(slot);
    const [budgetMs, budgetName] = slot.lane === 'admission' ? [this.opts.admissionTimeoutMs, 'KEELSON_READ_TIMEOUT_S'] : [this.opts.timeoutMs, 'KEELSON_RESOLVE_TIMEOUT_S'];
    const id = ++this.seq;
    // Keep the process alive while a request is out (the thread is unref'd when idle).
    worker.ref();
    try {
      return await new Promise<unknown>((resolve, reject) => {
        const p: Pending = { resolve, reject };
        const done = () => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
        };
        const onMessage = (m: { id?: number; ok?: boolean; value?: unknown; json?: string; change?: StateChange; base?: number; message?: string }) => {
          if (m?.id !== id) return;
          done();
          if (!m.ok) p.reject(new Error(m.message));
          else if (typeof m.json === 'string') {
            try {
              // Built on the last state from this thread when the change is from it; parsed whole otherwise.
              const built = m.change && slot.last && m.base === slot.last.id ? decodeState(m.change, slot.last.state) : undefined;
              const state = built ? rememberText(built, m.json) : parseRemembered(m.json);
              slot.last = { id, state };
              p.resolve(state);
            } catch (e) {
              slot.last = undefined;
              p.reject(e as Error);
            }
          } else p.resolve(m.value);
        };
        const onError = (e: Error & { code?: string }) => {
          done();
          this.forget(slot, worker);
          p.reject(
            new ResolverFailure(
              e.code === 'ERR_WORKER_OUT_OF_MEMORY'
                ? `it needed more than ${this.opts.memoryMb} MiB of memory (KEELSON_RESOLVE_MEMORY_MB)`
                : `its thread failed: ${e.message}`,
              e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'LIMIT_EXCEEDED' : 'UNAVAILABLE',
            ),
          );
        };
        const onExit = (code: number) => {
          done();
          this.forget(slot, worker);
          p.reject(new ResolverFailure(`its thread stopped (exit code ${code})`));
        };
        const timer = setTimeout(() => {
          done();
          this.forget(slot, worker);
          p.reject(new ResolverFailure(`it took longer than ${formatSeconds(budgetMs)} (${budgetName})`));
        }, budgetMs);
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        worker.postMessage({ id, req });
      });
    } finally {
      if (slot.worker === worker && slot.waiting <= 1) worker.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // An idle thread is unref'd: ref it, or the process may end before its exit is reported and close() never settles.
    await Promise.all(
      [...this.slots, ...this.admission].map((s) => {
        s.worker?.ref();
        return s.worker?.terminate().catch(() => undefined);
      }),
    );
    await this.keeper?.close().catch(() => undefined);
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
