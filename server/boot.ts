/**
 * Server start: validate configuration (a bad value stops the server with a
 * clear message), open and migrate the database, seed it when empty, and
 * start background work.
 */
import { GitOpsActuator } from './apply/gitops/actuator';
import { reconcileSource } from './apply/reconcile-source';
import { workLoop } from './apply/worker';
import { SecretKeyMismatch } from './db/secret-key';
import { env, EnvError } from './env';
import { getRuntime } from './runtime';

export async function boot(): Promise<void> {
  try {
    env();
  } catch (e) {
    if (e instanceof EnvError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  let rt;
  try {
    rt = await getRuntime();
  } catch (e) {
    if (e instanceof SecretKeyMismatch) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  if (rt.env.worker) startWorker(rt);
}

/** The apply loop inside the console process (the only choice with PGlite). */
function startWorker(rt: Awaited<ReturnType<typeof getRuntime>>) {
  const controller = new AbortController();
  process.once('SIGTERM', () => controller.abort());
  process.once('SIGINT', () => controller.abort());
  void workLoop({
    revisions: rt.repos.revisions,
    actuator: new GitOpsActuator(rt.env.gitopsDir, rt.env.gitopsRemote ? { remote: rt.env.gitopsRemote } : {}),
    pollMs: 1000,
    reconcile: { source: reconcileSource(rt.repos) },
    signal: controller.signal,
    log: (m) => console.log(`keelson worker: ${m}`),
  });
}
