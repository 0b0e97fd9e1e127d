/**
 * The layer table: every folder of the tree and the folders its code may
 * import. Dependencies point down — app → api/rest → services → (repo,
 * engine) → nothing — so a module can be read, tested and changed knowing
 * only what sits below it. `npm run deps` prints the imports that cross
 * folders and names each one this table forbids; scripts/deps/deps.test.ts
 * fails on one.
 *
 * A layer is a top folder (`app`), a folder of server/ (`server/repo`), a
 * file of server/ itself (`server/env.ts`), a sub-folder of the engine
 * (`server/engine/plan`) or the engine's own top files (`server/engine`:
 * its shared vocabulary, diagnostics and values, and the stage assembly in
 * index.ts, so every engine folder may use it). Imports inside a layer are
 * always allowed. `x/*` allows x and every layer under it. Type-only
 * imports count: a type is a dependency too.
 *
 * Adding a folder means adding its row here; a layer with no row fails the
 * check, so nothing new escapes the table by being new.
 */

/** The pure engine: every source's folder and the engine's own top files. */
const ENGINE = 'server/engine/*';

export interface Layer {
  /** Layers this one may import (besides itself). */
  may: readonly string[];
  /** What lives here, and why it sits where it does. */
  why: string;
}

export const LAYERS: Record<string, Layer> = {
  // ---- entry points: nothing imports them
  app: { may: ['components', 'server/api', 'server/rest', 'server/auth', 'server/http', 'server/pages', 'server/console-auth.ts', 'server/runtime.ts', 'server/env.ts', 'server/services', 'server/repo', 'server/db', ENGINE], why: 'Next.js routes: thin pages, layouts and route handlers' },
  components: { may: ['server/pages', 'server/api', 'server/services', 'server/http', ENGINE], why: 'React components by feature; server code reaches the browser only as types or pure engine modules (CLIENT_MAY_RUN)' },
  'proxy.ts': { may: ['server/http'], why: 'Next.js proxy: refuses malformed requests before any route' },
  'instrumentation.ts': { may: ['server/boot.ts'], why: 'Next.js start hook' },
  bin: { may: ['server/cli'], why: 'the `keelson` command\'s launcher' },
  scripts: { may: ['server/testing', 'server/db', 'server/auth', 'server/env.ts'], why: 'npm scripts (start, test, deps)' },
  bench: { may: ['*'], why: '`npm run bench`: measures the whole product, through any layer' },
  e2e: { may: ['*'], why: 'Playwright end-to-end tests (tests, see TESTS_MAY)' },
  'playwright.config.ts': { may: [], why: 'Playwright configuration' },
  'drizzle.config.ts': { may: [], why: 'drizzle-kit configuration' },
  'next.config.js': { may: [], why: 'Next.js configuration' },

  // ---- server: process wiring
  'server/boot.ts': { may: ['server/runtime.ts', 'server/apply', 'server/db', 'server/env.ts'], why: 'starts the runtime and the apply worker' },
  'server/cli': { may: ['server/api', 'server/rest', 'server/services', 'server/loader', 'server/dm-python', 'server/db', 'server/env.ts', ENGINE], why: 'the `keelson` command: local files and the remote API' },
  'server/pages': { may: ['server/console-auth.ts', 'server/runtime.ts', 'server/services', 'server/auth', 'server/errors.ts'], why: 'server-side checks of console pages' },
  'server/console-auth.ts': { may: ['server/auth', 'server/runtime.ts', 'server/env.ts', 'server/services'], why: 'next-auth and the session\'s user over the process\'s runtime' },
  'server/runtime.ts': { may: ['server/services', 'server/seed', 'server/repo', 'server/db', 'server/env.ts'], why: 'the composition root: builds the services over the storage' },

  // ---- server: transports over the services
  'server/api': { may: ['server/runtime.ts', 'server/console-auth.ts', 'server/services', 'server/auth', 'server/http', 'server/db', 'server/errors.ts', ENGINE], why: 'tRPC: routers (zod in, one service call, zod out), the AppError → tRPC/HTTP table, request guards' },
  'server/rest': { may: ['server/api', 'server/services', 'server/auth', 'server/http', 'server/repo', 'server/db', 'server/errors.ts', ENGINE], why: 'the REST and DM APIs; shares the tRPC request guards (api/http-limits.ts)' },

  // ---- server: use cases
  'server/seed': { may: ['server/services', 'server/repo', 'server/loader', ENGINE], why: 'the demo data' },
  'server/services': { may: ['server/resolver', 'server/repo', 'server/auth', 'server/loader', 'server/http', 'server/db', 'server/errors.ts', 'server/env.ts', ENGINE], why: 'use cases: load through repo → engine → persist; throw AppError' },
  'server/apply': { may: ['server/repo', 'server/loader', 'server/db', 'server/errors.ts', 'server/env.ts', ENGINE], why: 'actuators (GitOps, Kubernetes) and the job loop' },
  'server/resolver': { may: ['server/dm-python', 'server/db', 'server/errors.ts', ENGINE], why: 'the worker pool where policy is evaluated off the request thread' },
  'server/auth': { may: ['server/http', 'server/db', 'server/errors.ts', 'server/env.ts', ENGINE], why: 'identities, passwords, sign-in limits, bearer tokens and next-auth\'s options; services use it, so it knows them only by the small interfaces it declares' },
  'server/repo': { may: ['server/db', 'server/errors.ts', ENGINE], why: 'the data access seam: interfaces in domain terms, drizzle and in-memory implementations' },
  'server/db': { may: ['server/errors.ts', 'server/env.ts', ENGINE], why: 'drizzle schema, clients, migrations, backups, the secret key' },
  'server/loader': { may: [ENGINE], why: 'reads policy files and archives into engine input' },
  'server/dm-python': { may: [ENGINE], why: 'the Python sandbox DM templates run in' },
  'server/http': { may: ['server/errors.ts', ENGINE], why: 'HTTP limits every door shares: capped body reads, percent-encoding, the same-origin rule, the batch size' },
  'server/errors.ts': { may: [ENGINE], why: 'AppError, the one error every server layer throws (only its type of diagnostics comes from the engine)' },
  'server/env.ts': { may: ['server/engine/model'], why: 'the only reader of process.env; settings written as quantities are read with the engine\'s one parser' },

  // ---- the engine: pure (server/engine/purity.test.ts), each folder over the ones below it
  'server/engine': { may: [ENGINE], why: 'the stage list and the engine\'s public API, diagnostics, values, ACL' },
  'server/engine/graph': { may: ['server/engine', 'server/engine/resolve', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'the graph model of a resolution, and the budgeted views of it the console draws' },
  'server/engine/plan': { may: ['server/engine', 'server/engine/resolve', 'server/engine/dm', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'diff, order, cost, quotas, the revision state machine' },
  'server/engine/resolve': { may: ['server/engine', 'server/engine/capact', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'Aptomi resolution → desired state + traces' },
  // A source's folder holds its code and its stage; the stage reads the source's kinds (model/sources/<source>.ts),
  // which check with the source's code: model and the source folders import each other, never the plan or the graph.
  'server/engine/aptomi': { may: ['server/engine', 'server/engine/resolve', 'server/engine/capact', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'Aptomi\'s stage' },
  'server/engine/model': { may: ['server/engine', 'server/engine/capact', 'server/engine/landscaper', 'server/engine/dm', 'server/engine/axebow', 'server/engine/state', 'server/engine/lang'], why: 'kinds, envelopes and schemas of every source; each source\'s kinds check with that source\'s own code' },
  'server/engine/landscaper': { may: ['server/engine', 'server/engine/capact', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'Landscaper installations (JSON Schema checks shared with Capact); its stage stamps the reconcile label of state/restart.ts' },
  'server/engine/capact': { may: ['server/engine', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'Capact selection' },
  'server/engine/dm': { may: ['server/engine', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'DM expansion' },
  'server/engine/axebow': { may: ['server/engine', 'server/engine/model', 'server/engine/state', 'server/engine/lang'], why: 'Axebow placement' },
  'server/engine/state': { may: ['server/engine', 'server/engine/lang'], why: 'the desired state every source produces' },
  'server/engine/lang': { may: [], why: 'the policy languages and their budgets' },

  // ---- test support
  'server/testing': { may: ['*'], why: 'test support (tests, see TESTS_MAY)' },
  'server/reliability': { may: ['*'], why: 'the reliability suite (tests only)' },
};

/**
 * Tests (`*.test.ts`, `server/testing/`, `e2e/`) may import any layer: a
 * test drives the code from outside, or stands in for the layer above. No
 * production layer may import them (server/testing has no row in any
 * `may`).
 */
export const TESTS_MAY: readonly string[] = ['*'];

export function isTestFile(path: string): boolean {
  return /\.test\.tsx?$/.test(path) || path.startsWith('server/testing/') || path.startsWith('e2e/') || path.startsWith('server/reliability/');
}

/**
 * Client code — a 'use client' file and everything it imports for a value —
 * is shipped to the browser. Of server/ it may run only the pure engine and
 * the batch size both ends of a tRPC call agree on; anything else of the
 * server it may import only as types (`import type`), which are erased.
 */
export const CLIENT_MAY_RUN: readonly string[] = ['server/engine', 'server/http/batch.ts'];
