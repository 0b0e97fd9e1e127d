/**
 * Python templates for Deployment Manager: Pyodide (CPython in WebAssembly,
 * from npm, offline) in a separate process that has no network (a network
 * namespace of its own), none of the server's environment (an allow-list:
 * no NEXTAUTH_SECRET, KEELSON_SECRET_KEY, DATABASE_URL), reads only
 * Pyodide's files and PyYAML's, writes nothing, starts nothing, and cannot
 * turn strings into JavaScript. A template that runs too long or grows too large is
 * killed; the caller gets a message.
 *
 * Time: one expansion's Python templates share `runMs` (10 s): the
 * sandbox's own limit, well inside a resolution's, is what stops them.
 * Processes are pooled and reused per tenant (bridge.mjs).
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
import { MessageChannel, receiveMessageOnPort, threadId, workerData, Worker, type MessagePort } from 'node:worker_threads';
import { useJinjaRenderer, usePythonRunner, type JinjaRenderer, type Json, type PythonFailure, type PythonRunner } from '../engine/dm';
import type { BudgetKind } from '../engine/lang/budget';

export interface PythonLimits {
  /** Wall-clock budget of one expansion's Python templates, together (one run, when the run belongs to no expansion). */
  runMs: number;
  /** Budget for starting an interpreter (Pyodide takes seconds to boot). */
  bootMs: number;
  /** Resident memory of the sandbox process. */
  memoryMb: number;
  /** Most sandbox processes alive at once, one of them kept booted for the next tenant (each holds ~150 MB). */
  processes: number;
}

export const DEFAULT_PYTHON_LIMITS: PythonLimits = { runMs: 10_000, bootMs: 90_000, memoryMb: 640, processes: 2 };

export interface PythonSandboxOptions extends Partial<PythonLimits> {
  /** Boot a process at once rather than at the first template. */
  warm?: boolean;
  /**
   * Which runs may share a process (reset between expansions, never a wall
   * between tenants). Default: one tenant's (`env.project`).
   */
  isolationKey?: (context: Parameters<PythonRunner>[1]) => string;
  /** PyYAML's package folder (`…/yaml`); null: the sandbox has none. Default: found with findPyYaml. */
  pyyamlDir?: string | null;
  /** Jinja2's and MarkupSafe's package folders; null: the sandbox has none. Default: found with findJinja2. */
  jinja2?: Jinja2Packages | null;
  /** A keeper another thread owns (`SandboxKeeper.connect()`): runs go to its processes. */
  via?: MessagePort;
}

export interface Jinja2Packages {
  jinja2: string;
  markupsafe: string;
}

export interface PythonSandbox {
  run: PythonRunner;
  /** Renders one DM Jinja template with Jinja2 (jinja_dm.py), in the tenant's process. */
  jinja: JinjaRenderer;
  /** Starts booting a process now, so that the first template does not wait for Pyodide. */
  warm(): void;
  /** Processes started so far and the ones alive (as of the last answer): how a test sees the pool. */
  stats(): { started: number; pids: number[] };
  /** Ends every process of the pool. */
  close(): Promise<void>;
}

/** Where the sandbox's files are: found from the working directory, as the resolver's worker is (Next.js bundles this module elsewhere). */
function files(): { child: string; modules: string[]; bridge: string; pyodide: string; jinja: string } | undefined {
  const root = /* turbopackIgnore: true */ process.cwd();
  // Real paths: Node's permission model checks the child's reads against where files really are, so a symlinked
  // node_modules (a worktree sharing one, a store like pnpm's) would otherwise leave pyodide unreadable.
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : p);
  const child = real(join(root, 'server', 'dm-python', 'child.mjs'));
  // The modules child.mjs imports: the permission model lets it read these files and no other of this folder.
  const modules = ['py2-compile.mjs', 'py2-runtime.mjs'].map((m) => real(join(root, 'server', 'dm-python', m)));
  const bridge = real(join(root, 'server', 'dm-python', 'bridge.mjs'));
  const pyodide = real(join(root, 'node_modules', 'pyodide')) + '/';
  const jinja = real(join(root, 'server', 'dm-python', 'jinja_dm.py'));
  return existsSync(child) && modules.every((m) => existsSync(m)) && existsSync(bridge) && existsSync(jinja) && existsSync(join(pyodide, 'pyodide.mjs')) ? { child, modules, bridge, pyodide, jinja } : undefined;
}

/**
 * PyYAML's pure-Python package (the folder `yaml/`), which DM's Python
 * templates import as DM's did: `KEELSON_PYYAML_DIR`, else Debian's
 * `python3-yaml`. The sandbox reads it, never writes it; its C extension is
 * not loaded (Pyodide cannot), so PyYAML runs as pure Python.
 */
export function findPyYaml(): string | undefined {
  for (const dir of [process.env.KEELSON_PYYAML_DIR, '/usr/lib/python3/dist-packages/yaml']) {
    if (dir && existsSync(join(dir, '__init__.py'))) return realpathSync(dir);
  }
  return undefined;
}

/**
 * Jinja2 and MarkupSafe, which render DM's Jinja templates as DM did (Jinja2 itself, not a
 * look-alike): `KEELSON_JINJA2_DIR` and `KEELSON_MARKUPSAFE_DIR`, else Debian's `python3-jinja2`
 * (which brings `python3-markupsafe`). Pure Python in the sandbox: MarkupSafe's C speedups are
 * not loaded and its Python fallback is used.
 */
export function findJinja2(): Jinja2Packages | undefined {
  const pick = (env: string | undefined, name: string) => {
    for (const dir of [env, `/usr/lib/python3/dist-packages/${name}`]) {
      if (dir && existsSync(join(dir, '__init__.py'))) return realpathSync(dir);
    }
    return undefined;
  };
  const jinja2 = pick(process.env.KEELSON_JINJA2_DIR, 'jinja2');
  const markupsafe = pick(process.env.KEELSON_MARKUPSAFE_DIR, 'markupsafe');
  return jinja2 && markupsafe ? { jinja2, markupsafe } : undefined;
}

/** What a Jinja template is told where the server has no Jinja2. */
export const JINJA2_MISSING =
  'Jinja2 is not installed on this server: install its pure-Python package (Debian/Ubuntu: apt-get install python3-jinja2) or set KEELSON_JINJA2_DIR and KEELSON_MARKUPSAFE_DIR to its jinja2/ and markupsafe/ folders';

/** What a template that imports yaml is told where the server has no PyYAML. */
export const PYYAML_MISSING =
  'PyYAML is not installed on this server: install its pure-Python package (Debian/Ubuntu: apt-get install python3-yaml) or set KEELSON_PYYAML_DIR to its yaml/ folder';

let isolation: string[] | null | undefined;
let deathSignal: string[] | null | undefined;

/** A command's full path on the server's PATH: the sandbox is started with an environment of its own. */
function commandPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * `setpriv --pdeathsig KILL`, where the host has it: the kernel kills the
 * sandbox when the thread that started it ends, even mid-run. Without it, a
 * sandbox whose keeper thread was stopped (a resolution stopped at its time
 * limit) could spin on alone.
 */
function parentDeathSignal(): string[] {
  if (deathSignal !== undefined) return deathSignal ?? [];
  deathSignal = null;
  const setpriv = process.platform === 'linux' ? commandPath('setpriv') : undefined;
  if (setpriv && spawnSync(setpriv, ['--pdeathsig', 'KILL', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0) {
    deathSignal = [setpriv, '--pdeathsig', 'KILL'];
  }
  return deathSignal ?? [];
}

/**
 * The sandbox's whole environment: an allow-list, not the server's
 * environment minus some names. Nothing a template could read there
 * (through an escape we did not foresee) is a secret.
 */
export function sandboxEnvironment(): Record<string, string> {
  return { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' };
}

/**
 * How to give the sandbox no network: a new network namespace, as root
 * (`unshare -n`) or as an unprivileged user (`unshare -rn`). Null when the
 * host offers neither, and then Python templates are refused.
 */
function networkIsolation(): string[] | null {
  if (isolation !== undefined) return isolation;
  isolation = null;
  const unshare = process.platform === 'linux' ? commandPath('unshare') : undefined;
  if (unshare) {
    for (const flags of [['-n'], ['-r', '-n']]) {
      const r = spawnSync(unshare, [...flags, 'true'], { stdio: 'ignore', timeout: 5000 });
      if (r.status === 0) {
        isolation = [unshare, ...flags];
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
 * The isolation key: the tenant (`env.project`, the deployment's
 * namespace). A process serves one tenant for its life; its interpreter is
 * reset between expansions (`context.expansion`, set by the engine's
 * expandDeployment), so one configuration's templates leave nothing for the
 * next, and another tenant never gets the process at all.
 */
function keyOf(context: Parameters<PythonRunner>[1]): string {
  return createHash('sha256').update(String(context.env.project ?? '')).digest('hex').slice(0, 16);
}

/** Where this thread's runs go: its own keeper thread, or one another thread owns. */
interface Channel {
  post(message: unknown): void;
  /** Where the answers come (read with receiveMessageOnPort while the thread waits). */
  port: MessagePort;
  close(): Promise<void>;
}

/** Tells one thread's expansions from another's where threads share a keeper (expansion numbers are per thread). */
const thread = `${process.pid}.${threadId}`;

/** Starts a keeper thread (bridge.mjs), or says why the sandbox is unavailable. */
function spawnKeeper(limits: PythonLimits, pyyamlDir: string | null, jinja2: Jinja2Packages | null): { worker: Worker; port: MessagePort } | { unavailable: string } {
  const f = files();
  if (!f) return { unavailable: 'Python templates are unavailable: the sandbox files or Pyodide are missing (run the server from the repository root after `npm ci`)' };
  const netns = networkIsolation();
  if (!netns) return { unavailable: PYTHON_UNAVAILABLE_NO_NETNS };
  const args = [
    ...netns.slice(1),
    ...parentDeathSignal(),
    process.execPath,
    permissionFlag(),
    `--allow-fs-read=${f.pyodide}*`,
    `--allow-fs-read=${f.child}`,
    ...f.modules.map((m) => `--allow-fs-read=${m}`),
    ...(pyyamlDir ? [`--allow-fs-read=${pyyamlDir}/*`] : []),
    `--allow-fs-read=${f.jinja}`,
    ...(jinja2 ? [`--allow-fs-read=${jinja2.jinja2}/*`, `--allow-fs-read=${jinja2.markupsafe}/*`] : []),
    '--disallow-code-generation-from-strings',
    '--no-warnings',
    `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryMb / 2))}`,
    f.child,
    f.pyodide,
    pyyamlDir ?? '',
    PYYAML_MISSING,
    jinja2 ? JSON.stringify(jinja2) : '',
    f.jinja,
    JINJA2_MISSING,
  ];
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(f.bridge, { workerData: { command: netns[0], args, env: sandboxEnvironment(), limits, replyPort: port2 }, transferList: [port2] });
  worker.unref();
  port1.unref();
  return { worker, port: port1 };
}

/**
 * One keeper for a whole server: the resolver threads connect to it (`connect()`, passed to
 * each thread as `workerData.sandboxPort`), so they share its processes — one per tenant, a
 * Pyodide boot each — instead of booting their own.
 */
export interface SandboxKeeper {
  connect(): MessagePort;
  /** Boots a process now, ready for the first template. */
  warm(): void;
  close(): Promise<void>;
}

export function createSandboxKeeper(opts: Partial<PythonLimits> = {}): SandboxKeeper | undefined {
  const limits: PythonLimits = { ...DEFAULT_PYTHON_LIMITS, ...opts };
  const started = spawnKeeper(limits, findPyYaml() ?? null, findJinja2() ?? null);
  if ('unavailable' in started) return undefined;
  const { worker } = started;
  return {
    connect() {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ connect: port1 }, [port1]);
      return port2;
    },
    warm() {
      worker.postMessage({ warm: true });
    },
    async close() {
      // The bridge is unref'd while idle: ref it, or the process may end before its exit is reported and close() never settles.
      worker.ref();
      worker.postMessage({ close: true });
      await worker.terminate();
    },
  };
}

/** Expansions whose Python time is remembered (an expansion runs its templates one after another, then is done). */
const ACCOUNTS = 64;

export const PYTHON_UNAVAILABLE_NO_NETNS =
  'Python templates need a sandbox without network access (a Linux network namespace through `unshare`), which this host does not offer';

export function createPythonSandbox(opts: PythonSandboxOptions = {}): PythonSandbox {
  const { isolationKey = keyOf, warm = false, pyyamlDir = findPyYaml() ?? null, jinja2 = findJinja2() ?? null, via, ...given } = opts;
  const limits: PythonLimits = { ...DEFAULT_PYTHON_LIMITS, ...given };
  let keeper: Channel | undefined;
  let unavailable: string | undefined;
  let next = 0;
  let seen: { started: number; pids: number[] } = { started: 0, pids: [] };
  /** Python time each recent expansion has used, in ms. */
  const used = new Map<number, number>();

  function ensure(): Channel | undefined {
    if (keeper || unavailable) return keeper;
    if (via) {
      // Another thread's keeper (server/resolver: one for every resolver thread of the server).
      via.unref();
      keeper = { post: (m) => via.postMessage(m), port: via, close: async () => via.close() };
      return keeper;
    }
    const started = spawnKeeper(limits, pyyamlDir, jinja2);
    if ('unavailable' in started) {
      unavailable = started.unavailable;
      return undefined;
    }
    const { worker, port } = started;
    worker.on('error', () => {
      keeper = undefined;
    });
    keeper = {
      post: (m) => worker.postMessage(m),
      port,
      close: async () => {
        // Unref'd while idle, as above.
        worker.ref();
        worker.postMessage({ close: true });
        await worker.terminate();
      },
    };
    return keeper;
  }

  /** Posts one job to the keeper and waits (Atomics) for its answer. */
  function ask(key: string, job: unknown, expansion: number | undefined, limitMs: number, spent: number): Answer {
    const k = ensure();
    if (!k) return { ok: false, message: unavailable!, reason: 'unavailable' };
    const id = ++next;
    const flag = new Int32Array(new SharedArrayBuffer(4));
    // Runs of one expansion share an interpreter's state; other runs start from a clean one.
    const scope = expansion === undefined ? null : `expansion-${expansion}-${thread}`;
    k.post({ id, key, job, scope, limitMs, flag });
    const deadline = Date.now() + limits.bootMs + limitMs + 5000;
    for (;;) {
      const got = receiveMessageOnPort(k.port) as { message: KeeperAnswer } | undefined;
      if (got && got.message.id === id) return account(got.message, expansion, spent);
      if (got) continue; // an answer to an earlier run this thread stopped waiting for
      const left = deadline - Date.now();
      if (left <= 0) return { ok: false, message: 'the Python sandbox did not answer in time', reason: 'unavailable', timedOut: true };
      Atomics.wait(flag, 0, 0, left);
    }
  }

  const run: PythonRunner = (source, context, modules) => {
    const expansion = context.expansion;
    const spent = expansion === undefined ? 0 : (used.get(expansion) ?? 0);
    const limitMs = limits.runMs - spent;
    if (limitMs <= 0) return { ok: false, message: overTime(limits.runMs, true), reason: 'limit', timedOut: true };
    // `template` names the file in tracebacks and in the module's __name__.
    const job = { template: context.type, source, context: { env: context.env, properties: context.properties, imports: context.imports }, modules };
    return ask(isolationKey(context), job, expansion, limitMs, spent);
  };

  /**
   * A Jinja render: the template stops itself at what is left of the expansion's time (checked as
   * it calls and loops); the keeper's kill, a second later, is for one that does not.
   */
  const jinja: JinjaRenderer = (j) => {
    const spent = j.expansion === undefined ? 0 : (used.get(j.expansion) ?? 0);
    const ms = Math.min(j.limits.ms, limits.runMs - spent);
    if (ms <= 0) return { ok: false, message: `ran out of time: ${overTime(limits.runMs, true)}`, reason: 'limit', budget: 'time', timedOut: true };
    const job = { kind: 'jinja', name: j.name, source: j.source, variables: j.variables, files: j.files, limits: { ...j.limits, ms } };
    const key = isolationKey({ env: { project: j.project }, properties: null, imports: {}, name: j.name, type: j.name });
    const r = ask(key, job, j.expansion, ms + 1000, spent);
    if (r.ok) return typeof r.value === 'string' ? { ok: true, text: r.value } : { ok: false, message: 'the Jinja renderer answered without text', reason: 'unavailable' };
    return r;
  };

  /** Books the run's time to its expansion and words a timeout. */
  function account(answer: KeeperAnswer, expansion: number | undefined, spent: number): Answer {
    seen = { started: answer.started, pids: answer.pids };
    const r = answer.result;
    if (expansion !== undefined && r.ms !== undefined) {
      used.delete(expansion);
      used.set(expansion, spent + r.ms);
      if (used.size > ACCOUNTS) used.delete(used.keys().next().value!);
    }
    if (r.ok) return { ok: true, value: r.value };
    if (r.timedOut) return { ok: false, message: overTime(limits.runMs, spent > 0), reason: 'limit', timedOut: true };
    return { ok: false, message: r.message, reason: r.reason, ...(r.budget ? { budget: r.budget } : {}), ...(r.line ? { line: r.line } : {}), ...(r.file ? { file: r.file } : {}) };
  }

  const sandbox: PythonSandbox = {
    run,
    jinja,
    warm() {
      ensure()?.post({ warm: true });
    },
    stats: () => seen,
    async close() {
      const k = keeper;
      keeper = undefined;
      if (k) await k.close();
    },
  };
  if (warm) sandbox.warm();
  return sandbox;
}

/** A run's answer: a Python run's, with where a Jinja render stopped. */
type Answer =
  | { ok: true; value: string | Json }
  | { ok: false; message: string; reason?: PythonFailure; timedOut?: boolean; budget?: BudgetKind; line?: number; file?: string };

interface KeeperAnswer {
  id: number;
  result:
    | { ok: true; value: string | Json; ms?: number }
    | { ok: false; message: string; reason: PythonFailure; ms?: number; timedOut?: boolean; budget?: BudgetKind; line?: number; file?: string };
  started: number;
  pids: number[];
}

/** The sandbox's own time limit, named as such: it, not the resolution's, is what stopped the template. */
function overTime(runMs: number, shared: boolean): string {
  const s = runMs / 1000;
  return shared
    ? `ran over the Python sandbox's time limit of ${s} s, which one deployment's Python templates share, and was stopped`
    : `ran over its time limit of ${s} s and was stopped`;
}

let shared: PythonSandbox | undefined;

/** The sandbox of this thread, made on first use. `KEELSON_DM_PYTHON=off` refuses Python templates. */
export function pythonSandbox(): PythonSandbox {
  if (!shared) {
    if (process.env.KEELSON_DM_PYTHON === 'off') {
      shared = {
        run: () => ({ ok: false, message: 'Python templates are turned off on this server (KEELSON_DM_PYTHON=off)', reason: 'unavailable' }),
        jinja: () => ({ ok: false, message: 'DM templates are turned off on this server (KEELSON_DM_PYTHON=off)', reason: 'unavailable' }),
        warm: () => {},
        stats: () => ({ started: 0, pids: [] }),
        close: async () => {},
      };
    } else {
      const ms = Number(process.env.KEELSON_DM_PYTHON_TIMEOUT_S);
      // A resolver thread is handed the server's keeper; elsewhere (the CLI, a test, an inline resolver) the thread has its own.
      const port = (workerData as { sandboxPort?: MessagePort } | null)?.sandboxPort;
      shared = createPythonSandbox({ ...(Number.isFinite(ms) && ms > 0 ? { runMs: ms * 1000 } : {}), ...(port ? { via: port } : {}) });
    }
  }
  return shared;
}

/**
 * Plugs this thread's sandbox into the DM engine: Jinja templates render with Jinja2 and Python
 * templates run there. What a resolver thread, the CLI and a test that expands templates call once
 * (`python: false`: Jinja only, for a test of what happens where no Python runner is plugged in).
 */
export function plugTemplateSandbox(opts: { python?: boolean } = {}): void {
  if (opts.python !== false) usePythonRunner((source, context, modules) => pythonSandbox().run(source, context, modules));
  useJinjaRenderer((job) => pythonSandbox().jinja(job));
}
