/**
 * Server start: validate configuration (a bad value stops the server with a
 * clear message), open and migrate the database, seed it when empty, and
 * start background work.
 */
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
  await getRuntime();
}
