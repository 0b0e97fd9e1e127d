/**
 * A real git server on loopback for tests: a bare repository served over
 * smart HTTP by `git http-backend` (Debian's git package), behind a small
 * CGI bridge. `refusePushes` installs a pre-receive hook that says no, as a
 * protected branch would.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GitServer {
  /** Clone URL of the repository. */
  url: string;
  /** The bare repository's folder (read it with `git --git-dir`). */
  dir: string;
  /** `git log --format=%s` of main, oldest first. */
  subjects(): string[];
  /** Commits of main with more than one parent (a linear history has none). */
  merges(): number;
  /** Make every push fail (`on`) or succeed again. */
  refusePushes(on: boolean, message?: string): void;
  close(): Promise<void>;
}

export function gitAvailable(): boolean {
  return spawnSync('git', ['--version'], { stdio: 'ignore' }).status === 0;
}

function git(dir: string, args: string[]): string {
  const r = spawnSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

export async function startGitServer(): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), 'keelson-git-'));
  const dir = join(root, 'gitops.git');
  const init = spawnSync('git', ['init', '--bare', '--initial-branch=main', dir], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`git init: ${init.stderr}`);
  git(dir, ['config', 'http.receivepack', 'true']);

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        REMOTE_ADDR: '127.0.0.1',
        REMOTE_USER: 'keelson',
      },
    });
    req.pipe(cgi.stdin);
    // CGI output: headers, a blank line, the body.
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
    cgi.on('error', () => res.writeHead(500).end());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  const hook = join(dir, 'hooks', 'pre-receive');
  return {
    url: `http://127.0.0.1:${port}/gitops.git`,
    dir,
    subjects() {
      const out = spawnSync('git', ['--git-dir', dir, 'log', '--reverse', '--format=%s', 'main'], { encoding: 'utf8' });
      return out.status === 0 ? out.stdout.split('\n').filter(Boolean) : [];
    },
    merges() {
      const out = spawnSync('git', ['--git-dir', dir, 'rev-list', '--merges', 'main'], { encoding: 'utf8' });
      return out.status === 0 ? out.stdout.split('\n').filter(Boolean).length : 0;
    },
    refusePushes(on, message = 'main is protected') {
      if (!on) return void rmSync(hook, { force: true });
      writeFileSync(hook, `#!/bin/sh\necho "${message.replace(/"/g, '')}" >&2\nexit 1\n`);
      chmodSync(hook, 0o755);
    },
    async close() {
      await new Promise<void>((ok) => server.close(() => ok()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
