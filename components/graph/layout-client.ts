/**
 * The main thread's side of the ELK worker. A new request supersedes the
 * one running: ELK cannot be interrupted, so the busy worker is terminated
 * and a fresh one started (parsing elkjs again costs ~0.1–0.3 s, far less
 * than waiting for a layout nobody will look at).
 */
import type { WorkerReply, WorkerRequest } from './layout.worker';
import type { LayoutRequest, LayoutResult } from './types';

type WorkerFactory = () => Worker;

// Turbopack and webpack bundle the worker from this exact `new Worker(new URL(…, import.meta.url))` form.
let factory: WorkerFactory = () => new Worker(new URL('./layout.worker.ts', import.meta.url));

/** For builds that bundle the worker themselves (the benchmark page). */
export function setLayoutWorkerFactory(f: WorkerFactory): void {
  factory = f;
}

/** A worker started before any canvas needed one (prestartLayoutWorker); the first client to need one takes it. */
let spare: Worker | null = null;

/**
 * Start a layout worker now, while the page still waits for its graph:
 * fetching and compiling elkjs (megabytes) then overlaps that request
 * instead of following it. Harmless where workers cannot run. The
 * returned function stops the worker if no client took it (the page left).
 */
export function prestartLayoutWorker(): () => void {
  if (!spare && typeof Worker !== 'undefined') {
    try {
      const w = factory();
      // Failed before a client took it: drop it, so the client starts (and reports on) its own.
      w.onerror = (ev) => {
        ev.preventDefault();
        w.terminate();
        if (spare === w) spare = null;
      };
      spare = w;
    } catch {
      // The canvas's own start will fail the same way and report it.
    }
  }
  return () => {
    spare?.terminate();
    spare = null;
  };
}

export class LayoutCancelled extends Error {
  constructor() {
    super('layout superseded');
    this.name = 'LayoutCancelled';
  }
}

interface Pending {
  resolve: (r: LayoutResult) => void;
  reject: (e: Error) => void;
  onProgress?: (done: number, total: number) => void;
}

export class LayoutClient {
  private worker: Worker | null = null;
  private seq = 0;
  private running: { id: number; pending: Pending } | null = null;

  /** Lay out with ELK in the worker; rejects with LayoutCancelled when superseded or disposed. */
  run(request: LayoutRequest, onProgress?: (done: number, total: number) => void): Promise<LayoutResult> {
    if (this.running) {
      this.running.pending.reject(new LayoutCancelled());
      this.running = null;
      this.kill();
    }
    const id = ++this.seq;
    return new Promise<LayoutResult>((resolve, reject) => {
      let worker: Worker;
      try {
        worker = this.ensureWorker();
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      this.running = { id, pending: { resolve, reject, onProgress } };
      worker.postMessage({ id, request } satisfies WorkerRequest);
    });
  }

  /**
   * Start the worker now, before there is anything to lay out: fetching and
   * compiling elkjs (~0.3 s on two cores) then overlaps the first frame on
   * the main thread instead of following it. Harmless where workers cannot
   * run (server rendering): run() reports that.
   */
  warm(): void {
    if (typeof Worker === 'undefined') return;
    try {
      this.ensureWorker();
    } catch {
      // run() will fail the same way and report it.
    }
  }

  dispose(): void {
    this.running?.pending.reject(new LayoutCancelled());
    this.running = null;
    this.kill();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    if (typeof Worker === 'undefined') throw new Error('this browser cannot run web workers');
    const w = spare ?? factory();
    spare = null;
    w.onmessage = (ev: MessageEvent<WorkerReply>) => this.onReply(ev.data);
    w.onerror = (ev) => {
      ev.preventDefault();
      this.fail(new Error(ev.message || 'the layout worker failed to start'));
    };
    this.worker = w;
    return w;
  }

  private onReply(msg: WorkerReply) {
    const run = this.running;
    if (!run || run.id !== msg.id) return; // a reply to a superseded request
    if (msg.type === 'progress') {
      run.pending.onProgress?.(msg.done, msg.total);
      return;
    }
    this.running = null;
    if (msg.type === 'result') run.pending.resolve(msg.result);
    else run.pending.reject(new Error(msg.message));
  }

  private fail(e: Error) {
    const run = this.running;
    this.running = null;
    this.kill();
    run?.pending.reject(e);
  }

  private kill() {
    this.worker?.terminate();
    this.worker = null;
  }
}
