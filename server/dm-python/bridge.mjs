// The Python sandbox's keeper: a worker thread that owns the sandbox
// processes, so the thread that expands templates can wait for an answer
// synchronously (Atomics.wait) while this one keeps its event loop for the
// children's pipes, the time limit and the memory watch.
//
// A pool of warm processes: Pyodide takes seconds of CPU to start, so
// processes are started ahead of need and reused. A process serves one
// isolation key (one tenant) for its whole life — its interpreter is reset
// between expansions, but a reset is no wall between tenants — and is
// recycled after a timeout, a crash, MAX_RUNS expansions or IDLE_MS unused. At
// most `limits.processes` live at once; one of them is kept booted and
// unassigned, so a new key seldom waits for Pyodide to start.
//
// Children are started under `setpriv --pdeathsig KILL` where the host has
// it: when this thread ends (the sandbox closed, or the resolver thread that
// owns it stopped at its own time limit) the kernel kills them, mid-run or
// not, instead of leaving a spinning template behind.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parentPort, workerData } from 'node:worker_threads';

const { command, args, env, limits, replyPort } = workerData;
const MAX_RUNS = 200;
const IDLE_MS = 120_000;

/** Assigned processes by isolation key, least recently used first. */
const assigned = new Map();
/** Booted (or booting) processes not yet given to a key. */
const spares = [];
let started = 0;

function start() {
  const proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  started++;
  const child = { proc, alive: true, runs: 0, waiting: undefined, stderr: '', key: undefined, idle: undefined };
  child.ready = new Promise((resolve) => {
    child.onReady = resolve;
  });
  proc.stdin.on('error', () => {});
  proc.stderr.on('data', (d) => {
    if (child.stderr.length < 2000) child.stderr += d;
  });
  createInterface({ input: proc.stdout, crlfDelay: Infinity }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.ready) child.onReady(true);
    else if (child.waiting && msg.id === child.waiting.id) child.waiting.done(msg);
  });
  proc.on('exit', (code, signal) => {
    child.alive = false;
    child.onReady(false);
    forget(child);
    if (child.waiting) {
      child.waiting.done(
        child.killedFor
          ? { ok: false, message: child.killedFor.why, reason: child.killedFor.reason }
          : { ok: false, message: `the Python sandbox stopped (${signal ?? `exit code ${code}`})${stderrTail(child)}`, reason: 'exception' },
      );
    }
  });
  proc.on('error', (e) => {
    child.alive = false;
    child.onReady(false);
    child.stderr += e.message;
    forget(child);
  });
  proc.unref();
  return child;
}

function stderrTail(child) {
  const t = child.stderr.trim().split('\n').filter((l) => !/ExperimentalWarning|--trace-warnings/.test(l)).slice(-2).join(' ');
  return t ? `: ${t.slice(0, 300)}` : '';
}

function kill(child, why, reason = 'unavailable') {
  forget(child);
  if (!child.alive) return;
  child.killedFor = { why, reason };
  child.proc.kill('SIGKILL');
}

/** Takes a dead or retired process out of the pool. */
function forget(child) {
  clearTimeout(child.idle);
  if (child.key !== undefined && assigned.get(child.key) === child) assigned.delete(child.key);
  const i = spares.indexOf(child);
  if (i >= 0) spares.splice(i, 1);
}

/** Keeps one spare booting or booted while the pool has room for it. */
function topUp() {
  if (spares.length === 0 && assigned.size < limits.processes) spares.push(start());
}

/** Resident memory of a process in MB (Linux), or undefined where /proc is absent. */
function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function childFor(key) {
  const own = assigned.get(key);
  if (own && own.alive && own.runs < MAX_RUNS) {
    // Most recently used last.
    assigned.delete(key);
    assigned.set(key, own);
    return own;
  }
  if (own) kill(own, 'retired');
  // Room for one more: the least recently used key gives its process up.
  while (assigned.size >= Math.max(1, limits.processes - 1)) {
    const [, oldest] = assigned.entries().next().value;
    kill(oldest, 'replaced');
  }
  const child = spares.shift() ?? start();
  child.key = key;
  assigned.set(key, child);
  const boot = setTimeout(() => kill(child, `the Python sandbox did not start within ${limits.bootMs / 1000} s`), limits.bootMs);
  const ok = await child.ready;
  clearTimeout(boot);
  // The spare boots after this one is up: two boots at once would halve the speed of the one a template waits for.
  topUp();
  if (!ok) throw new Error(child.killedFor?.why ?? `the Python sandbox could not start${stderrTail(child)}`);
  return child;
}

function runOn(child, msg) {
  const { id, job, scope, limitMs } = msg;
  return new Promise((resolve) => {
    const t0 = performance.now();
    // The limit is the caller's (what is left of the expansion's allowance): a process that runs
    // over it is killed, whatever the template does, and a fresh one takes its place.
    const timer = setTimeout(() => kill(child, 'timeout', 'limit'), limitMs);
    const watch = setInterval(() => {
      const mb = rssMb(child.proc.pid);
      if (mb !== undefined && mb > limits.memoryMb) kill(child, `used more than ${limits.memoryMb} MB of memory and was stopped`, 'limit');
    }, 50);
    child.waiting = {
      id,
      done: (answer) => {
        clearTimeout(timer);
        clearInterval(watch);
        child.waiting = undefined;
        const ms = performance.now() - t0;
        const timedOut = child.killedFor?.why === 'timeout';
        resolve(
          answer.ok
            ? { ok: true, value: answer.value, ms }
            : {
                ok: false,
                message: answer.message,
                reason: answer.reason ?? 'exception',
                ms,
                ...(timedOut ? { timedOut: true } : {}),
                // A Jinja render says which budget ran out and where.
                ...(answer.budget ? { budget: answer.budget } : {}),
                ...(answer.line ? { line: answer.line } : {}),
                ...(answer.file ? { file: answer.file } : {}),
              },
        );
      },
    };
    // A process is retired after MAX_RUNS expansions (one Jinja render per resource would
    // otherwise retire it every few deployments).
    if (scope === null || scope !== child.scope) child.runs++;
    child.scope = scope;
    child.proc.stdin.write(`${JSON.stringify({ id, job, scope })}\n`);
  });
}

function idleOut(child) {
  clearTimeout(child.idle);
  // An idle interpreter holds a tenant's module state and ~150 MB: let it go.
  child.idle = setTimeout(() => kill(child, 'idle'), IDLE_MS);
  child.idle.unref();
}

// Jobs come from calling threads that each wait for their answer: the thread that started this keeper
// (on parentPort, answered on replyPort) and any thread connected to it (answered on its own port).
// Jobs run one at a time, whoever sent them: the pool (which process serves which key, which one is
// replaced) changes only between jobs, never under a running one.
let queue = Promise.resolve();
function handle(msg, reply) {
  if (msg.close) {
    for (const c of [...assigned.values(), ...spares]) kill(c, 'closed');
    return;
  }
  if (msg.connect) {
    msg.connect.on('message', (m) => handle(m, msg.connect));
    return;
  }
  if (msg.warm) {
    topUp();
    return;
  }
  queue = queue.then(async () => {
    let result;
    try {
      const child = await childFor(msg.key);
      clearTimeout(child.idle);
      result = await runOn(child, msg);
      if (child.alive) idleOut(child);
    } catch (e) {
      result = { ok: false, message: e instanceof Error ? e.message : String(e), reason: 'unavailable' };
    }
    topUp();
    try {
      reply.postMessage({ id: msg.id, result, started, pids: [...assigned.values(), ...spares].filter((c) => c.alive).map((c) => c.proc.pid) });
    } catch {
      // The thread that asked is gone (a resolver thread stopped at its limit): nobody waits for this answer.
    }
    Atomics.store(msg.flag, 0, 1);
    Atomics.notify(msg.flag, 0);
  });
}
parentPort.on('message', (msg) => handle(msg, replyPort));
