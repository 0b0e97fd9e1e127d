#!/usr/bin/env node
/**
 * `npm start`: check configuration, build the console if the sources changed
 * since the last build, then serve it with `next start`. With --build-only it
 * stops after the build (`npm test` builds beside its unit tests this way).
 * A bad configuration stops here with a message naming the variable.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

register();
const buildOnly = process.argv.includes('--build-only');
/** The checked configuration (server/env.ts); not read for --build-only. */
let env;
if (!buildOnly) {
  // `npm start` is the README's demo: it asks for the demo policy and users
  // explicitly. The server alone (NODE_ENV=production) starts with neither.
  if (process.env.KEELSON_SEED === undefined) {
    process.env.KEELSON_SEED = 'demo';
    if (!process.env.KEELSON_USERS_FILE) {
      console.log('keelson: demo mode — demo policy and demo users (alice/alice, sam/sam, …). For a real deployment set KEELSON_SEED=none and KEELSON_USERS_FILE or single sign-on.');
    }
  }
  const { loadEnv, EnvError } = await import('../server/env.ts');
  try {
    env = loadEnv(process.env);
  } catch (e) {
    if (e instanceof EnvError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }

  // DM's templates render in the sandbox with Debian's pure-Python Jinja2 and PyYAML (server/dm-python).
  // As root with apt, a missing one is installed, as `npm test` does; otherwise the console starts and a DM
  // deployment's error says what to install.
  {
    const want = [
      ['python3-jinja2', 'KEELSON_JINJA2_DIR', 'jinja2'],
      ['python3-yaml', 'KEELSON_PYYAML_DIR', 'yaml'],
    ].filter(([, envName, dir]) => !process.env[envName] && !existsSync(`/usr/lib/python3/dist-packages/${dir}/__init__.py`)).map(([pkg]) => pkg);
    if (want.length > 0) {
      const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      const canApt = process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
      const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...want], { stdio: 'inherit', env: aptEnv }).status === 0;
      if (canApt) console.log(`keelson: installing ${want.join(', ')} for Deployment Manager templates`);
      if (!canApt || (!install() && (spawnSync('apt-get', ['update'], { stdio: 'inherit', env: aptEnv }), !install()))) {
        console.warn(`keelson: Deployment Manager templates need ${want.join(' and ')} (apt-get install ${want.join(' ')}); until then a DM deployment's error says so`);
      }
    }
  }
}

const SOURCES = ['app', 'components', 'server', 'public', 'next.config.js', 'instrumentation.ts', 'proxy.ts', 'package-lock.json', 'tsconfig.json'];

function sourceStamp() {
  const h = createHash('sha256');
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const n of readdirSync(p).sort()) if (!n.startsWith('.') && n !== 'node_modules' && n !== 'testdata') walk(join(p, n));
    } else if (!/\.test\.tsx?$/.test(p)) {
      h.update(`${p}\0${st.size}\0${st.mtimeMs}\0`);
    }
  };
  for (const s of SOURCES) walk(s);
  return h.digest('hex');
}

const stampFile = join('.next', 'keelson-build-stamp');
const stamp = sourceStamp();
const built = existsSync(join('.next', 'BUILD_ID')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
const nextBin = join('node_modules', 'next', 'dist', 'bin', 'next');
if (!built) {
  console.log('Building the console (first start or sources changed)…');
  const r = spawnSync(process.execPath, [nextBin, 'build'], { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stampFile, stamp);
}
// The build alone: no configuration is read, no data folder made.
if (buildOnly) process.exit(0);

// Several processes on one PostgreSQL server must sign sessions and encrypt
// resource secrets alike: without NEXTAUTH_SECRET / KEELSON_SECRET_KEY, each
// comes from the database (created by the first process).
let authSecret = env.authSecret;
let secretKey = process.env.KEELSON_SECRET_KEY;
if (env.databaseUrl && (!process.env.NEXTAUTH_SECRET || !secretKey)) {
  const { openDb } = await import('../server/db/client.ts');
  const { sharedSecretKey, sharedSessionSecret } = await import('../server/auth/shared-secret.ts');
  const db = await openDb({ url: env.databaseUrl, pgliteDir: join(env.dataDir, 'pglite') });
  try {
    if (!process.env.NEXTAUTH_SECRET) authSecret = await sharedSessionSecret(db.db);
    secretKey ??= await sharedSecretKey(db.db);
  } finally {
    await db.close();
  }
}

// KEELSON_LOG_FILE: the server's output is also appended to this file (what
// an operator greps; the end-to-end tests search it for leaked secrets).
const logFile = process.env.KEELSON_LOG_FILE ? createWriteStream(process.env.KEELSON_LOG_FILE, { flags: 'a' }) : undefined;
const child = spawn(process.execPath, [nextBin, 'start', '-p', String(env.port)], {
  stdio: logFile ? ['inherit', 'pipe', 'pipe'] : 'inherit',
  env: {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: '1',
    NEXTAUTH_URL: env.authUrl,
    NEXTAUTH_SECRET: authSecret,
    ...(secretKey ? { KEELSON_SECRET_KEY: secretKey } : {}),
  },
});
if (logFile) {
  child.stdout.on('data', (b) => (process.stdout.write(b), logFile.write(b)));
  child.stderr.on('data', (b) => (process.stderr.write(b), logFile.write(b)));
}
console.log(`Keelson console: ${env.authUrl} (data in ${env.dataDir}${env.databaseUrl ? ', database from DATABASE_URL' : ', embedded PGlite'})`);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
