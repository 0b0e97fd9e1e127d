/**
 * PostgreSQL servers for tests: the one `npm test` starts for every suite
 * (scripts/test.mjs loads this module through tsx, KEELSON_TEST_PG_URL), and
 * a test's own for tests that stop and start it (the outage test), since the
 * shared one must stay up for the suites running beside. Debian's initdb and
 * pg_ctl, a temp folder, a free loopback port, run as the postgres user when
 * we are root (PostgreSQL refuses to run as root). Start and stop are
 * asynchronous so a load generator in the same process keeps its schedule
 * while they run.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest installed PostgreSQL's bin folder, or undefined when Debian's postgresql package is missing. */
export function findPgBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

export interface PostgresServer {
  /** postgres:// URL of the `postgres` database (trust authentication). */
  url: string;
  /** `postgres --version`. */
  version: string;
  /** The data folder. */
  data: string;
  /** `pg_ctl stop -m fast`: sessions are cut, new connections refused. */
  stop(): Promise<void>;
  /** Start it again on the same port and data. */
  start(): Promise<void>;
  /** Stop (if running) and remove its folder. */
  destroy(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** `maxConnections`: the suites' shared server takes many test databases' pools at once. */
export async function startPostgresServer(opts: { maxConnections?: number } = {}): Promise<PostgresServer> {
  const bin = findPgBin();
  if (!bin) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
  const isRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'keelson-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asUser = isRoot ? ['runuser', '-u', 'postgres', '--'] : [];
  if (isRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const sh = (argv: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [cmd, ...rest] = [...asUser, ...argv];
      execFile(cmd!, rest, { encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`${argv.join(' ')} failed:\n${stdout}\n${stderr}`)) : resolve()));
    });
  let running = false;
  const start = async () => {
    await sh([
      join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60',
      '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${opts.maxConnections ?? 100}`, 'start',
    ]);
    running = true;
  };
  const stop = async () => {
    await sh([join(bin, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop']);
    running = false;
  };
  await sh([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    version: spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout.trim(),
    data,
    stop,
    start,
    async destroy() {
      try {
        if (running) await stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
