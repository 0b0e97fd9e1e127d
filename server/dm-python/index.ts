/**
 * Python templates for Deployment Manager: Pyodide (CPython in WebAssembly,
 * from npm, offline) in a separate process that has no network (a network
 * namespace of its own), reads only Pyodide's files, writes nothing, starts
 * nothing, and cannot turn strings into JavaScript. A template that runs too
 * long or grows too large is killed; the caller gets a message.
 *
 * The expansion engine is synchronous and pure, so the runner it is given is
 * synchronous too: the calling thread posts the job to a keeper thread
 * (bridge.mjs) and sleeps on an Atomics flag until the answer is there. In
 * the server that calling thread is a resolver worker, never the thread that
 * answers HTTP.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { PythonRunner } from '../engine/dm';

export interface PythonLimits {
  /** Wall-clock budget of one template run. */
  runMs: number;
  /** Budget for starting an interpreter (Pyodide takes seconds to boot). */
  bootMs: number;
  /** Resident memory of the sandbox process. */
  memoryMb: number;
}

export const DEFAULT_PYTHON_LIMITS: PythonLimits = { runMs: 10_000, bootMs: 90_000, memoryMb: 640 };

export interface PythonSandboxOptions extends Partial<PythonLimits> {
  /**
   * Which runs may share an interpreter (its imported modules, any state a
   * template leaves behind). Default: one expansion's, else one tenant's (`env.project`).
   */
  isolationKey?: (context: Parameters<PythonRunner>[1]) => string;
}

export interface PythonSandbox {
  run: PythonRunner;
  close(): Promise<void>;
}

/** Where the sandbox's files are: found from the working directory, as the resolver's worker is (Next.js bundles this module elsewhere). */
function files(): { child: string; bridge: string; pyodide: string } | undefined {
  const root = /* turbopackIgnore: true */ process.cwd();
  // Real paths: Node's permission model checks the child's reads against where files really are, so a symlinked
  // node_modules (a worktree sharing one, a store like pnpm's) would otherwise leave pyodide unreadable.
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : p);
  const child = real(join(root, 'server', 'dm-python', 'child.mjs'));
  const bridge = real(join(root, 'server', 'dm-python', 'bridge.mjs'));
  const pyodide = real(join(root, 'node_modules', 'pyodide')) + '/';
  return existsSync(child) && existsSync(bridge) && existsSync(join(pyodide, 'pyodide.mjs')) ? { child, bridge, pyodide } : undefined;
}

let isolation: string[] | null | undefined;

/**
 * How to give the sandbox no network: a new network namespace, as root
 * (`unshare -n`) or as an unprivileged user (`unshare -rn`). Null when the
 * host offers neither, and then Python templates are refused.
 */
function networkIsolation(): string[] | null {
  if (isolation !== undefined) return isolation;
  isolation = null;
  if (process.platform === 'linux') {
    for (const flags of [['-n'], ['-r', '-n']]) {
      const r = spawnSync('unshare', [...flags, 'true'], { stdio: 'ignore', timeout: 5000 });
      if (r.status === 0) {
        isolation = ['unshare', ...flags];
        break;
      }
    }
  }
  return isolation;
}

function permissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

/**
 * The isolation key: runs in one process share interpreter state, so only
 * the runs of one expansion may share one (`context.expansion`, set by the
 * engine's expandDeployment); a caller that sets none is isolated by tenant.
 */
function keyOf(context: Parameters<PythonRunner>[1]): string {
  if (context.expansion !== undefined) return `expansion-${context.expansion}`;
  return createHash('sha256').update(String(context.env.project ?? '')).digest('hex').slice(0, 16);
}

export const PYTHON_UNAVAILABLE_NO_NETNS =
  'Python templates need a sandbox without network access (a Linux network namespace through `unshare`), which this host does not offer';

export function createPythonSandbox(opts: PythonSandboxOptions = {}): PythonSandbox {
  const { isolationKey = keyOf, ...given } = opts;
  const limits: PythonLimits = { ...DEFAULT_PYTHON_LIMITS, ...given };
  let keeper: { worker: Worker; port: MessagePort } | undefined;
  let unavailable: string | undefined;
  let next = 0;

  function ensure(): { worker: Worker; port: MessagePort } | undefined {
    if (keeper || unavailable) return keeper;
    const f = files();
    if (!f) {
      unavailable = 'Python templates are unavailable: the sandbox files or Pyodide are missing (run the server from the repository root after `npm ci`)';
      return undefined;
    }
    const netns = networkIsolation();
    if (!netns) {
      unavailable = PYTHON_UNAVAILABLE_NO_NETNS;
      return undefined;
    }
    const args = [
      ...netns.slice(1),
      process.execPath,
      permissionFlag(),
      `--allow-fs-read=${f.pyodide}*`,
      `--allow-fs-read=${f.child}`,
      '--disallow-code-generation-from-strings',
      '--no-warnings',
      `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryMb / 2))}`,
      f.child,
      f.pyodide,
    ];
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(f.bridge, { workerData: { command: netns[0], args, limits, replyPort: port2 }, transferList: [port2] });
    worker.unref();
    port1.unref();
    worker.on('error', () => {
      keeper = undefined;
    });
    keeper = { worker, port: port1 };
    return keeper;
  }

  const run: PythonRunner = (source, context, modules) => {
    const k = ensure();
    if (!k) return { ok: false, message: unavailable!, reason: 'unavailable' };
    const id = ++next;
    const flag = new Int32Array(new SharedArrayBuffer(4));
    // `template` names the file in tracebacks and in the module's __name__.
    const job = { template: context.type, source, context: { env: context.env, properties: context.properties, imports: context.imports }, modules };
    k.worker.postMessage({ id, key: isolationKey(context), job, flag });
    const budget = limits.bootMs + limits.runMs + 5000;
    const deadline = Date.now() + budget;
    for (;;) {
      const got = receiveMessageOnPort(k.port) as { message: { id: number; result: ReturnType<PythonRunner> } } | undefined;
      if (got && got.message.id === id) return got.message.result;
      if (got) continue; // an answer to an earlier run this thread stopped waiting for
      const left = deadline - Date.now();
      if (left <= 0) return { ok: false, message: 'the Python sandbox did not answer in time', reason: 'unavailable' };
      Atomics.wait(flag, 0, 0, left);
    }
  };

  return {
    run,
    async close() {
      const k = keeper;
      keeper = undefined;
      if (k) await k.worker.terminate();
    },
  };
}

let shared: PythonSandbox | undefined;

/** The sandbox of this thread, made on first use. `KEELSON_DM_PYTHON=off` refuses Python templates. */
export function pythonSandbox(): PythonSandbox {
  if (!shared) {
    if (process.env.KEELSON_DM_PYTHON === 'off') {
      shared = { run: () => ({ ok: false, message: 'Python templates are turned off on this server (KEELSON_DM_PYTHON=off)', reason: 'unavailable' }), close: async () => {} };
    } else {
      const ms = Number(process.env.KEELSON_DM_PYTHON_TIMEOUT_S);
      shared = createPythonSandbox(Number.isFinite(ms) && ms > 0 ? { runMs: ms * 1000 } : {});
    }
  }
  return shared;
}
