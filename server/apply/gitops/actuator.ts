/**
 * The default actuator: a local git repository that Flux or Argo CD syncs
 * from. Steps write or remove files in the working tree; `finish` makes one
 * commit per revision. isomorphic-git keeps this free of a git binary (the
 * machines running Keelson may not have one).
 *
 * Resuming after a crash needs no bookkeeping of our own: files are the
 * state. A replayed step finds its file already written (and leaves it
 * untouched), and `finish` commits only when the staged tree differs from
 * HEAD, so a revision always ends up as exactly one commit, and re-running an
 * already-committed revision makes none.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import type { Actuator, ApplyContext, ApplyStep, StepResult } from '../actuator';
import { CLUSTERS_DIR, renderStep } from './render';

export const DEFAULT_BRANCH = 'main';
export const COMMIT_AUTHOR = { name: 'Keelson', email: 'keelson@localhost' } as const;
/** Temp files live inside `.git` so a crash mid-write never leaves one under `clusters/` to be committed. */
const TMP_DIR = join('.git', 'keelson-tmp');

export interface GitOpsActuatorOptions {
  /** Clock for commit timestamps (tests pin it). */
  now?: () => Date;
  /**
   * A remote repository (http or https URL; credentials in the URL) that
   * every worker pushes to. The local folder is then this worker's scratch
   * clone: each revision starts from the remote's newest commit, and a push
   * the remote rejects (another worker pushed first) makes the job run again
   * on top of it, so the remote's history stays one line.
   */
  remote?: string;
}

/** The remote refused a push: the job is retried (with the worker's capped backoff) from the remote's newest commit. */
export class PushRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PushRejected';
  }
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return url;
  }
}

/** `name@users.keelson` with characters git would mangle in an address replaced. */
function coAuthorEmail(user: string): string {
  const local = user.replace(/[^A-Za-z0-9._+-]/g, '-').replace(/^[.-]+|[.-]+$/g, '') || 'user';
  return `${local}@users.keelson`;
}

/** The commit message of an applied revision; trailers last, so `git interpret-trailers` and forges read them. */
export function commitMessage(ctx: ApplyContext, summary?: { failed: number; skipped: number; done: number }): string {
  const accepters = [...new Set(ctx.accepters)];
  const paragraphs = [
    ctx.purpose ?? `Apply revision ${ctx.revisionId} (generation ${ctx.generation})`,
    `Accepted by: ${accepters.length ? accepters.join(', ') : '(none)'}`,
  ];
  // A revision with failures still commits what succeeded (the repository must reflect what was applied); say so.
  if (summary && (summary.failed > 0 || summary.skipped > 0)) {
    paragraphs.push(`Partially applied: ${summary.done} steps done, ${summary.failed} failed, ${summary.skipped} skipped.`);
  }
  const trailers = [
    `Keelson-Revision: ${ctx.revisionId}`,
    // Names with newlines would break the trailer block; accepters are user names, but be safe.
    ...accepters.map((a) => `Co-authored-by: ${a.replace(/[\r\n<>]/g, ' ').trim()} <${coAuthorEmail(a)}>`),
  ];
  paragraphs.push(trailers.join('\n'));
  return paragraphs.join('\n\n');
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** HEAD's commit id, or undefined before the first commit. */
async function headOid(dir: string): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs, dir, ref: 'HEAD' });
  } catch (e) {
    if ((e as { code?: string }).code === 'NotFoundError') return undefined;
    throw e;
  }
}

export class GitOpsActuator implements Actuator {
  readonly name = 'gitops';
  readonly dir: string;
  readonly replaysDoneSteps: boolean;
  private readonly remote: string | undefined;
  private readonly now: () => Date;
  private ready: Promise<void> | undefined;
  /**
   * File operations run one at a time: removing an emptied folder must not race
   * a write into it, and `finish` must see every write of its revision.
   */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string, opts: GitOpsActuatorOptions = {}) {
    this.dir = dir;
    this.now = opts.now ?? (() => new Date());
    this.remote = opts.remote;
    this.replaysDoneSteps = opts.remote !== undefined;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Create the repository on first use; safe to call on every begin. */
  private ensureRepo(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      if (!(await exists(join(this.dir, '.git')))) await git.init({ fs, dir: this.dir, defaultBranch: DEFAULT_BRANCH });
      if (this.remote) await git.addRemote({ fs, dir: this.dir, remote: 'origin', url: this.remote, force: true });
      // Leftovers of a write interrupted by a crash.
      await rm(join(this.dir, TMP_DIR), { recursive: true, force: true });
      await mkdir(join(this.dir, TMP_DIR), { recursive: true });
    })().catch((e: unknown) => {
      this.ready = undefined; // let the next call retry instead of caching the failure
      throw e;
    });
    return this.ready;
  }

  async begin(_ctx: ApplyContext): Promise<void> {
    // Local: the working tree is the checkout, and files left by a crashed
    // attempt are the progress that attempt made. Remote: start from the
    // remote's newest commit; the worker applies the done steps again.
    this.ready = undefined;
    await this.ensureRepo();
    if (this.remote) await this.serial(() => this.resetToRemote());
  }

  /** Make the scratch clone the remote's main exactly: its commit checked out, nothing else under clusters/. */
  private async resetToRemote(): Promise<void> {
    const dir = this.dir;
    let tip: string | undefined;
    try {
      const r = await git.fetch({ fs, http, dir, remote: 'origin', ref: DEFAULT_BRANCH, singleBranch: true, tags: false });
      tip = r.fetchHead ?? undefined;
    } catch (e) {
      // An empty remote has no main yet: the first revision makes it.
      if (!/could not find|NotFound|Could not find/.test(String((e as Error).message) + String((e as { code?: string }).code))) {
        throw new Error(`cannot fetch the GitOps remote ${redactUrl(this.remote!)}: ${(e as Error).message}`);
      }
    }
    await rm(join(dir, CLUSTERS_DIR), { recursive: true, force: true });
    if (tip) {
      await git.writeRef({ fs, dir, ref: `refs/heads/${DEFAULT_BRANCH}`, value: tip, force: true });
      await git.checkout({ fs, dir, ref: DEFAULT_BRANCH, force: true });
    } else {
      await rm(join(dir, '.git', 'refs', 'heads', DEFAULT_BRANCH), { force: true });
      await rm(join(dir, '.git', 'index'), { force: true });
    }
  }

  /** Push main; a rejection (someone pushed first, or the remote says no) is a PushRejected the job retries. */
  private async push(): Promise<void> {
    let why: string | undefined;
    try {
      const r = await git.push({ fs, http, dir: this.dir, remote: 'origin', ref: DEFAULT_BRANCH });
      if (!r.ok) why = r.error ?? Object.values(r.refs ?? {}).find((x) => !x.ok)?.error ?? 'rejected';
    } catch (e) {
      why = (e as Error).message;
    }
    if (why !== undefined) {
      throw new PushRejected(`the GitOps remote ${redactUrl(this.remote!)} refused the push (${why.trim()}); the revision is applied again on the remote's newest commit`);
    }
  }

  async apply(step: ApplyStep, _ctx: ApplyContext): Promise<StepResult> {
    await this.ensureRepo();
    const change = renderStep(step);
    if (change.op === 'fail') return { status: 'failed', error: change.error };
    return this.serial(async () => {
      const abs = join(this.dir, ...change.path.split('/'));
      if (change.op === 'write') {
        const current = await readIfExists(abs);
        // Untouched files keep their mtime, so git's stat cache stays valid and nothing looks modified.
        if (current === change.content) return { status: 'done', message: `unchanged ${change.path}` };
        await mkdir(dirname(abs), { recursive: true });
        // Write-then-rename: a crash leaves the old file or the new one, never half of one.
        const tmp = join(this.dir, TMP_DIR, `${randomUUID()}.yaml`);
        await writeFile(tmp, change.content, 'utf8');
        await rename(tmp, abs);
        const objects = `${change.objects} object${change.objects === 1 ? '' : 's'}`;
        return { status: 'done', message: `${current === null ? 'wrote' : 'updated'} ${change.path} (${objects})` };
      }
      const removed = await this.removeFile(abs);
      if (change.reason === 'no-code') {
        return { status: 'done', message: removed ? `bookkeeping only (removed stale ${change.path})` : 'bookkeeping only' };
      }
      return { status: 'done', message: removed ? `removed ${change.path}` : `already absent ${change.path}` };
    });
  }

  /** Remove a file and the folders it leaves empty (git does not track folders, so they would linger as clutter). */
  private async removeFile(abs: string): Promise<boolean> {
    try {
      await unlink(abs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
    const root = join(this.dir, CLUSTERS_DIR);
    for (let d = dirname(abs); d.startsWith(root + sep); d = dirname(d)) {
      if ((await readdir(d)).length > 0) break;
      await rmdir(d);
    }
    return true;
  }

  async finish(
    ctx: ApplyContext,
    summary: { failed: number; skipped: number; done: number },
  ): Promise<{ commit?: string; changed: boolean }> {
    await this.ensureRepo();
    return this.serial(async () => {
      const dir = this.dir;
      // [path, HEAD, WORKDIR, STAGE]: HEAD 0 absent / 1 present; WORKDIR 0 absent / 1 same as HEAD / 2 differs;
      // STAGE 0 absent / 1 same as HEAD / 2 same as WORKDIR / 3 differs from both.
      const matrix = await git.statusMatrix({ fs, dir, filepaths: [CLUSTERS_DIR] });
      let changed = false;
      for (const [filepath, head, work, stage] of matrix) {
        if (!(head === 1 && work === 1) && !(head === 0 && work === 0)) changed = true;
        if (work === 0) {
          if (stage !== 0) await git.remove({ fs, dir, filepath });
        } else if (!((work === 1 && stage === 1) || (work === 2 && stage === 2))) {
          // Also re-stages files a crashed finish staged before they changed again.
          await git.add({ fs, dir, filepath });
        }
      }
      const head = await headOid(dir);
      if (!changed) return head === undefined ? { changed: false } : { changed: false, commit: head };
      const when = this.now();
      const author = { ...COMMIT_AUTHOR, timestamp: Math.floor(when.getTime() / 1000), timezoneOffset: 0 };
      const commit = await git.commit({ fs, dir, message: commitMessage(ctx, summary), author, committer: author });
      if (this.remote) await this.push();
      return { changed: true, commit };
    });
  }
}

/** Every file at HEAD (repository-relative path → content), sorted by path; empty before the first commit. */
export async function readTrackedFiles(dir: string): Promise<Record<string, string>> {
  const head = await headOid(dir);
  if (head === undefined) return {};
  const files: Record<string, string> = {};
  for (const filepath of [...(await git.listFiles({ fs, dir, ref: head }))].sort()) {
    const { blob } = await git.readBlob({ fs, dir, oid: head, filepath });
    files[filepath] = Buffer.from(blob).toString('utf8');
  }
  return files;
}

/** Commits reachable from HEAD, newest first; message without git's trailing newline. */
export async function commitLog(dir: string): Promise<{ oid: string; message: string }[]> {
  if ((await headOid(dir)) === undefined) return [];
  const log = await git.log({ fs, dir, ref: 'HEAD' });
  return log.map((entry) => ({ oid: entry.oid, message: entry.commit.message.replace(/\n$/, '') }));
}
