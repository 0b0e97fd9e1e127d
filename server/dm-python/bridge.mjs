// The Python sandbox's keeper: a worker thread that owns the sandbox
// processes, so the thread that expands templates can wait for an answer
// synchronously (Atomics.wait) while this one keeps its event loop for the
// child's pipes, the time limit and the memory watch.
//
// One process serves consecutive runs with the same isolation key (one
// tenant's expansion); another key gets a fresh process, and a spare is kept
// booting so that a switch seldom waits for Pyodide to start.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parentPort, workerData } from 'node:worker_threads';

const { command, args, limits, replyPort } = workerData;
const MAX_RUNS = 200;
const IDLE_MS = 120_000;

let spare;
let current;
let idleTimer;

function start() {
  const proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const child = { proc, alive: true, runs: 0, waiting: undefined, stderr: '' };
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
  });
  proc.unref();
  return child;
}

function stderrTail(child) {
  const t = child.stderr.trim().split('\n').filter((l) => !/ExperimentalWarning|--trace-warnings/.test(l)).slice(-2).join(' ');
  return t ? `: ${t.slice(0, 300)}` : '';
}

function kill(child, why, reason = 'unavailable') {
  if (!child || !child.alive) return;
  child.killedFor = { why, reason };
  child.proc.kill('SIGKILL');
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
  if (current && current.key === key && current.child.alive && current.child.runs < MAX_RUNS) return current.child;
  if (current) kill(current.child, 'replaced');
  const child = spare && spare.alive ? spare : start();
  spare = start();
  current = { key, child };
  const boot = setTimeout(() => kill(child, `the Python sandbox did not start within ${limits.bootMs / 1000} s`), limits.bootMs);
  const ok = await child.ready;
  clearTimeout(boot);
  if (!ok) throw new Error(child.killedFor?.why ?? `the Python sandbox could not start${stderrTail(child)}`);
  return child;
}

function runOn(child, id, job) {
  return new Promise((resolve) => {
    let watch;
    const timer = setTimeout(() => kill(child, `ran over its time limit of ${limits.runMs / 1000} s and was stopped`, 'limit'), limits.runMs);
    watch = setInterval(() => {
      const mb = rssMb(child.proc.pid);
      if (mb !== undefined && mb > limits.memoryMb) kill(child, `used more than ${limits.memoryMb} MB of memory and was stopped`, 'limit');
    }, 50);
    child.waiting = {
      id,
      done: (msg) => {
        clearTimeout(timer);
        clearInterval(watch);
        child.waiting = undefined;
        resolve(msg.ok ? { ok: true, value: msg.value } : { ok: false, message: msg.message, reason: msg.reason ?? 'exception' });
      },
    };
    child.runs++;
    child.proc.stdin.write(`${JSON.stringify({ id, job })}\n`);
  });
}

// Jobs arrive one at a time per calling thread, but several threads may share
// nothing here: each calling thread has its own keeper. Still, serialise.
let queue = Promise.resolve();
parentPort.on('message', (msg) => {
  queue = queue.then(async () => {
    clearTimeout(idleTimer);
    let result;
    try {
      const child = await childFor(msg.key);
      result = await runOn(child, msg.id, msg.job);
    } catch (e) {
      result = { ok: false, message: e instanceof Error ? e.message : String(e), reason: 'unavailable' };
    }
    replyPort.postMessage({ id: msg.id, result });
    Atomics.store(msg.flag, 0, 1);
    Atomics.notify(msg.flag, 0);
    // An idle interpreter holds a tenant's module state and ~150 MB: let it go.
    idleTimer = setTimeout(() => {
      if (current) kill(current.child, 'idle');
      current = undefined;
    }, IDLE_MS);
    idleTimer.unref();
  });
});
