#!/usr/bin/env node
/**
 * `npm test`: every test.
 *   1. unit + integration tests (node:test through tsx), storage tests on
 *      PGlite and on a real PostgreSQL server started here;
 *   2. Playwright end-to-end tests in Debian's Chromium.
 * Missing system packages (postgresql, chromium, python3-yaml, python3-jinja2) are installed from
 * Debian's repositories when we are root. Flags: --unit, --e2e (only those),
 * and any other arguments are passed to the selected runner as filters.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slowestFilesReport } from './test-timing/slowest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const onlyE2e = args.includes('--e2e');
const filters = args.filter((a) => !a.startsWith('--'));
const isRoot = process.getuid?.() === 0;

function log(msg) {
  console.log(`\n[keelson test] ${msg}`);
}

// Each runner's timing reporter (scripts/test-timing/) writes here; the slowest files are printed after the runner's summary.
const timesDir = mkdtempSync(join(tmpdir(), 'keelson-test-times-'));
function printSlowest(file, title) {
  const report = slowestFilesReport(file, root, title);
  if (report) log(report);
}

function run(cmd, argv, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { stdio: 'inherit', ...opts });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** A loopback port nothing listens on now (the OS's pick), for a server of the run's own. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The console's production build, started beside the unit tests when both
 * phases run: most of a unit run waits on child processes, sandboxes and
 * databases, and the build fills that time instead of opening the e2e phase
 * (scripts/start.mjs then finds the build current and only serves it). Its
 * output goes to a file, shown when it fails.
 */
function buildBeside() {
  const out = join(timesDir, 'build.log');
  const fd = openSync(out, 'w');
  const started = Date.now();
  const child = spawn(process.execPath, [join('scripts', 'start.mjs'), '--build-only'], { stdio: ['ignore', fd, fd] });
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      closeSync(fd);
      resolve({ code: code ?? (signal ? 1 : 0), seconds: Math.round((Date.now() - started) / 1000), out });
    });
  });
}

// ---------------------------------------------------------------- packages
let aptUpdated = false;
function aptInstall(pkgs) {
  if (!isRoot) {
    console.error(`Missing ${pkgs.join(', ')}; install with: sudo apt-get install -y ${pkgs.join(' ')}`);
    process.exit(1);
  }
  log(`installing ${pkgs.join(', ')} from Debian's packages`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  if (r.status !== 0 && !aptUpdated) {
    aptUpdated = true;
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  }
  if (r.status !== 0) {
    console.error(`apt-get install ${pkgs.join(' ')} failed`);
    process.exit(1);
  }
}

// ---------------------------------------------------------------- postgres
/** The same recipe the tests use for a server of their own (server/testing/postgres-server.ts), through tsx. */
async function startPostgres() {
  const { tsImport } = await import('tsx/esm/api');
  const { findPgBin, startPostgresServer } = await tsImport('../server/testing/postgres-server.ts', import.meta.url);
  if (!findPgBin()) aptInstall(['postgresql']);
  const pg = await startPostgresServer({ maxConnections: 200 });
  log(`PostgreSQL started on ${new URL(pg.url).host} (${pg.version}, data in ${pg.data})`);
  return {
    url: pg.url,
    async stop() {
      await pg.destroy();
      log('PostgreSQL stopped');
    },
  };
}

async function writePgliteCopy(file) {
  const { tsImport } = await import('tsx/esm/api');
  const { writeMigratedPgliteCopy } = await tsImport('../server/db/client.ts', import.meta.url);
  await writeMigratedPgliteCopy(file);
}

// ---------------------------------------------------------------- runners
function testFiles(dirs) {
  const out = [];
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.test\.tsx?$/.test(e.name)) out.push(p);
    }
  };
  dirs.forEach(walk);
  return out.sort();
}

/**
 * DM's templates run in the sandbox with Debian's pure-Python packages (server/dm-python): Python
 * templates import PyYAML (findPyYaml), Jinja templates render with Jinja2 and MarkupSafe (findJinja2).
 */
function pyyaml() {
  const missing = [];
  if (!process.env.KEELSON_PYYAML_DIR && !existsSync('/usr/lib/python3/dist-packages/yaml/__init__.py')) missing.push('python3-yaml');
  if (!process.env.KEELSON_JINJA2_DIR && !existsSync('/usr/lib/python3/dist-packages/jinja2/__init__.py')) missing.push('python3-jinja2');
  if (missing.length) aptInstall(missing);
}

async function unitTests() {
  // The GitOps remote tests serve a bare repository with `git http-backend`.
  if (spawnSync('git', ['--version'], { stdio: 'ignore' }).status !== 0) aptInstall(['git']);
  pyyaml();
  let files = testFiles(['server', 'components', 'scripts', 'bench']);
  if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
  // Storage tests' throw-away PGlite databases start from this one migrated data folder (server/db/client.ts).
  const pgliteCopy = join(timesDir, 'pglite-migrated.tar');
  const [pg] = await Promise.all([startPostgres(), writePgliteCopy(pgliteCopy)]);
  const times = join(timesDir, 'unit.jsonl');
  try {
    log(`node:test — ${files.length} files (storage tests on PGlite and PostgreSQL)`);
    return await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        // The spec reporter's output (and its `ℹ pass N` / `ℹ fail N` lines) as before; beside it, each test's file and time.
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${join(root, 'scripts', 'test-timing', 'node-test-reporter.mjs')}`,
        `--test-reporter-destination=${times}`,
        // KEELSON_TEST_CONCURRENCY=1 (the reliability suite): heavy files one at a time, so one's load is not another's fault.
        `--test-concurrency=${Number(process.env.KEELSON_TEST_CONCURRENCY) || 2}`,
        ...files,
      ],
      { env: { ...process.env, KEELSON_TEST_PG_URL: pg.url, KEELSON_PGLITE_COPY: pgliteCopy, NODE_ENV: 'test' } },
    );
  } finally {
    await pg.stop();
    printSlowest(times, 'node:test');
  }
}

async function e2eTests() {
  if (!existsSync('/usr/bin/chromium') && !process.env.CHROMIUM_PATH) aptInstall(['chromium']);
  pyyaml();
  const v = spawnSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' });
  log(`Playwright e2e in ${v.stdout.trim() || 'Chromium'}`);
  // The console's data folder for the run: removed after a green run, kept
  // (and named) after a red one so its database and GitOps repo can be read.
  const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'keelson-e2e-'));
  const times = join(timesDir, 'e2e.jsonl');
  // The console, its sign-in provider and the DM registry on ports free now, unless given: two runs on one machine never meet.
  const ports = {};
  for (const name of ['E2E_PORT', 'E2E_OIDC_PORT', 'E2E_DM_REGISTRY_PORT']) ports[name] = process.env[name] ?? String(await freePort());
  log(`console on http://localhost:${ports.E2E_PORT}, sign-in provider on ${ports.E2E_OIDC_PORT}, DM registry on ${ports.E2E_DM_REGISTRY_PORT}`);
  const code = await run(process.execPath, [join('node_modules', '@playwright', 'test', 'cli.js'), 'test', ...filters], {
    env: { ...process.env, ...ports, CI: process.env.CI ?? '1', E2E_DATA_DIR: dataDir, E2E_FILE_TIMES: times },
  });
  printSlowest(times, 'Playwright');
  log(`test report with screenshots: ${join(root, 'playwright-report', 'index.html')} (open with: npx playwright show-report)`);
  if (process.env.E2E_DATA_DIR) return code;
  if (code === 0) rmSync(dataDir, { recursive: true, force: true });
  else {
    log(`e2e data folder kept for inspection: ${dataDir}`);
    // playwright.config.ts keeps a screenshot and a trace of every failed test there.
    log(`screenshots and traces of the failed tests: ${join(root, 'test-results')} (open a trace with: npx playwright show-trace <trace.zip>)`);
  }
  return code;
}

const started = Date.now();
let failed = 0;
const build = !onlyE2e && !onlyUnit ? buildBeside() : undefined;
if (!onlyE2e) failed += (await unitTests()) === 0 ? 0 : 1;
if (build) {
  const b = await build;
  if (b.code === 0) log(`console built beside the unit tests in ${b.seconds} s`);
  else {
    // Not the end: the e2e phase builds again, in the open, and its failure is the report.
    console.log(readFileSync(b.out, 'utf8'));
    log(`console build beside the unit tests failed (exit ${b.code}); the e2e phase builds it again`);
  }
}
if (!onlyUnit) failed += (await e2eTests()) === 0 ? 0 : 1;
rmSync(timesDir, { recursive: true, force: true });
log(`finished in ${Math.round((Date.now() - started) / 1000)} s: ${failed === 0 ? 'all suites passed' : `${failed} suite(s) failed`}`);
process.exit(failed === 0 ? 0 : 1);
