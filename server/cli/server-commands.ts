/**
 * `keelson apply|delete|revisions …` against a running console.
 * Exit codes: 0 success, 1 refused or failed (with the reason), 2 usage.
 */
import { existsSync } from 'node:fs';
import { formatDiagnostic, hasErrors, sortDiagnostics } from '../engine/diagnostics';
import { KNOWN_KINDS, normaliseKind } from '../engine/model/kinds';
import { countsText } from '../engine/plan/counts';
import { loadPolicyFiles, type IncludeOptions } from '../loader/files';
import { parse, UsageError } from './args';
import type { Io } from './main';
import { connect, describeError, RemoteError, type Client } from './remote';

const COMMON = `  --server URL     the console (default: KEELSON_SERVER)
  --format FORMAT  text (default) or json
Credentials: KEELSON_USER and KEELSON_PASSWORD (a local user), or else the
token keelson login saved for the console.`;

export const APPLY_HELP = `Usage: keelson apply PATH... [--message TEXT] [--accept] --server URL

Save every object in the files and folders as one policy generation and
print it with its revision (id, status, changes, cost).
  --message TEXT   why (shown in history)
  --accept         accept at once the sections you may accept that stay within their marks
  --allow-outside  let @include read absolute paths and files outside the including file's folder
${COMMON}
`;

export const DELETE_HELP = `Usage: keelson delete (PATH | KIND NAMESPACE/NAME)... [--message TEXT] --server URL

Delete, as one generation, the objects the files and folders describe and
those named as KIND NAMESPACE/NAME (e.g. keelson delete claim social/prod),
and print its revision.
  --message TEXT   why (shown in history)
${COMMON}
`;

export const REVISIONS_HELP = `Usage: keelson revisions COMMAND --server URL
  list                                    newest first
  show ID                                 summary, sections, cost, apply progress
  accept ID [--section NS] [--comment T]  accept a section (default: all you may)
  reject ID [--section NS] [--comment T]
  wait ID --until applied|rejected [--timeout S]   (default 300 s)
${COMMON}
`;

type Fmt = 'text' | 'json';

async function withClient<T>(io: Io, server: string | undefined, help: string, fn: (c: Client) => Promise<T>, env: Record<string, string | undefined> = process.env): Promise<number> {
  let client: Client;
  try {
    client = await connect(server, env);
  } catch (e) {
    if (e instanceof RemoteError) {
      io.err(`keelson: ${e.message}\n${e.exitCode === 2 ? `\n${help}` : ''}`);
      return e.exitCode;
    }
    throw e;
  }
  try {
    await fn(client);
    return 0;
  } catch (e) {
    if (e instanceof CliFailure) {
      io.err(`keelson: ${e.message}\n`);
      return 1;
    }
    io.err(`keelson: ${describeError(e)}\n`);
    return 1;
  }
}

class CliFailure extends Error {}

function usage(io: Io, help: string, msg: string): number {
  io.err(`keelson: ${msg}\n\n${help}`);
  return 2;
}

function fmtOf(v: unknown): Fmt {
  if (v === undefined || v === 'text') return 'text';
  if (v === 'json') return 'json';
  throw new UsageError(`--format must be text or json, not "${v}"`);
}

function loadPolicy(paths: string[], opts: IncludeOptions) {
  const loaded = loadPolicyFiles(paths, opts);
  const errs = sortDiagnostics(loaded.diagnostics.filter((d) => d.severity === 'error'));
  if (hasErrors(errs)) throw new CliFailure(`the policy is invalid; nothing was sent:\n${errs.map(formatDiagnostic).join('\n')}`);
  if (loaded.objects.length === 0) throw new CliFailure('no policy objects found in the given paths');
  return loaded.objects;
}

function readPolicy(paths: string[], opts: IncludeOptions): string {
  return loadPolicy(paths, opts)
    .map((o) => o.text)
    .join('---\n');
}

type ObjectRef = { kind: string; namespace: string; name: string };

/**
 * What `keelson delete` was asked to delete: files and folders, and objects
 * named `KIND NAMESPACE/NAME` — deleting needs only the name, not the whole
 * object. A word is a kind when it is not a file or folder here (a file
 * named like a kind stays a file).
 */
export function deleteTargets(args: readonly string[], isPath: (p: string) => boolean = existsSync): { paths: string[]; ids: ObjectRef[] } {
  const paths: string[] = [];
  const ids: ObjectRef[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (isPath(word)) {
      paths.push(word);
      continue;
    }
    const kind = normaliseKind(word);
    const ref = args[i + 1];
    if (!kind) {
      // NAMESPACE/NAME after an unknown word: a kind misspelt, not a missing file.
      if (ref !== undefined && !isPath(ref) && /^[^/\s]+\/[^/\s]+$/.test(ref)) throw new UsageError(`unknown kind "${word}"; known kinds: ${KNOWN_KINDS.join(', ')}`);
      paths.push(word);
      continue;
    }
    const m = ref === undefined ? null : /^([^/\s]+)\/([^/\s]+)$/.exec(ref);
    if (!m) throw new UsageError(`after the kind ${word}, name the object as NAMESPACE/NAME${ref === undefined ? '' : ` (not "${ref}")`}`);
    ids.push({ kind, namespace: m[1]!, name: m[2]! });
    i++;
  }
  return { paths, ids };
}

async function revisionLine(client: Client, generation: number) {
  const r = await client.revisions.byGeneration.query({ generation, wait: true });
  if (r.id == null) throw new CliFailure(`generation ${generation} was saved; its revision is still being computed (keelson revisions shows it once ready)`);
  const full = await client.revisions.get.query({ id: r.id });
  const cost = full.plan.cost;
  return {
    id: r.id,
    status: full.revision.status,
    counts: full.plan.counts,
    costDelta: cost.total.delta.monthly,
    currency: cost.currency,
    sections: full.sections.map((s) => ({ namespace: s.namespace, status: s.status })),
  };
}


export async function applyCommand(argv: string[], io: Io, mode: 'apply' | 'delete', env: Record<string, string | undefined> = process.env): Promise<number> {
  const help = mode === 'apply' ? APPLY_HELP : DELETE_HELP;
  let p;
  try {
    p = parse(argv, { server: { type: 'string' }, message: { type: 'string' }, accept: { type: 'boolean' }, format: { type: 'string' }, 'allow-outside': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
    fmtOf(p.values.format);
  } catch (e) {
    if (e instanceof UsageError) return usage(io, help, e.message);
    throw e;
  }
  if (p.values.help) {
    io.out(help);
    return 0;
  }
  if (p.positionals.length === 0) return usage(io, help, mode === 'apply' ? 'name at least one file or folder' : 'name at least one file or folder, or an object as KIND NAMESPACE/NAME');
  const fmt = fmtOf(p.values.format);
  const includes = { allowOutside: p.values['allow-outside'] === true };
  // apply: the files' text; delete: the objects' names (from the files, and as named).
  let text = '';
  let ids: ObjectRef[] = [];
  try {
    if (mode === 'apply') text = readPolicy(p.positionals, includes);
    else {
      const targets = deleteTargets(p.positionals);
      const fromFiles = targets.paths.length > 0 ? loadPolicy(targets.paths, includes).map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name })) : [];
      // An object named twice (in a file and by name) is deleted once.
      const byKey = new Map([...fromFiles, ...targets.ids].map((id) => [`${id.kind}\u0000${id.namespace}\u0000${id.name}`, id]));
      ids = [...byKey.values()];
    }
  } catch (e) {
    if (e instanceof UsageError) return usage(io, help, e.message);
    if (e instanceof CliFailure) {
      io.err(`keelson: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  return withClient(io, p.values.server, help, async (client) => {
    const head = await client.policy.head.query();
    const options = { baseGeneration: head, message: p.values.message, accept: p.values.accept };
    const w = mode === 'apply' ? await client.policy.applyText.mutate({ text, ...options }) : await client.policy.delete.mutate({ ids, ...options });
    if (!w.changed) {
      if (fmt === 'json') io.out(JSON.stringify({ generation: w.generation, changed: false }, null, 2) + '\n');
      else io.out(`No changes: the policy already is this (generation ${w.generation}).\n`);
      return;
    }
    const rev = await revisionLine(client, w.generation);
    if (fmt === 'json') {
      io.out(JSON.stringify({ generation: w.generation, changed: true, changes: w.changes, revision: rev }, null, 2) + '\n');
      return;
    }
    io.out(`Generation ${w.generation}: ${w.changes.length} object${w.changes.length === 1 ? '' : 's'} ${mode === 'apply' ? 'saved' : 'deleted'}\n`);
    io.out(`Revision ${rev.id}: ${rev.status} · ${countsText(rev.counts, ', ')} · cost ${rev.costDelta >= 0 ? '+' : ''}${rev.costDelta.toFixed(2)} ${rev.currency}/month\n`);
    for (const s of rev.sections) io.out(`  section ${s.namespace}: ${s.status}\n`);
  }, env);
}

export async function revisionsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  let p;
  try {
    p = parse(rest, {
      server: { type: 'string' },
      format: { type: 'string' },
      section: { type: 'string' },
      comment: { type: 'string' },
      until: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    fmtOf(p.values.format);
  } catch (e) {
    if (e instanceof UsageError) return usage(io, REVISIONS_HELP, e.message);
    throw e;
  }
  if (!sub || sub === 'help' || sub === '--help' || sub === '-h' || p.values.help) {
    io.out(REVISIONS_HELP);
    return sub ? 0 : 2;
  }
  const fmt = fmtOf(p.values.format);
  const idArg = p.positionals[0];
  const needsId = ['show', 'accept', 'reject', 'wait'].includes(sub);
  if (!['list', 'show', 'accept', 'reject', 'wait'].includes(sub)) return usage(io, REVISIONS_HELP, `unknown revisions command "${sub}"`);
  if (needsId && !/^\d+$/.test(idArg ?? '')) return usage(io, REVISIONS_HELP, `${sub} needs a revision number`);
  const id = Number(idArg);
  if (sub === 'wait' && !['applied', 'rejected'].includes(p.values.until ?? '')) return usage(io, REVISIONS_HELP, '--until must be applied or rejected');
  const timeoutS = Number(p.values.timeout ?? '300');
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) return usage(io, REVISIONS_HELP, '--timeout must be a number of seconds');
  const out = (v: unknown, text: string) => io.out(fmt === 'json' ? JSON.stringify(v, null, 2) + '\n' : text);

  return withClient(io, p.values.server, REVISIONS_HELP, async (client) => {
    switch (sub) {
      case 'list': {
        const list = await client.revisions.list.query({ limit: 100 });
        out(
          list,
          list.map((r) => `#${r.id}\t${r.status}\tgeneration ${r.generation}\t${r.author}\t${countsText(r.counts, ', ')}\t${r.costDelta >= 0 ? '+' : ''}${r.costDelta.toFixed(2)} ${r.currency}\t${r.acceptedBy.join(',')}`).join('\n') + '\n',
        );
        return;
      }
      case 'show': {
        const r = await client.revisions.get.query({ id });
        const summary = {
          id: r.revision.id,
          generation: r.revision.generation,
          status: r.revision.status,
          author: r.revision.author,
          stale: r.stale,
          counts: r.plan.counts,
          cost: r.plan.cost.total,
          currency: r.plan.cost.currency,
          quota: r.plan.quota,
          sections: r.sections.map((s) => ({ namespace: s.namespace, status: s.status, decidedBy: s.decidedBy, overMarks: s.overMarks, needsDomainAdmin: s.needsDomainAdmin, unresolvedReferences: s.unresolvedReferences })),
          // The answer carries the plan's first page only: totals and statuses come counted.
          steps: { total: r.planTotals.steps, done: r.stepStatus.done ?? 0, failed: r.stepStatus.failed ?? 0 },
        };
        out(
          summary,
          [
            `Revision ${summary.id} (generation ${summary.generation}) by ${summary.author}: ${summary.status}${summary.stale ? ' (stale)' : ''}`,
            `Changes: ${countsText(summary.counts, ', ')}`,
            `Cost: ${summary.cost.before.monthly.toFixed(2)} → ${summary.cost.after.monthly.toFixed(2)} ${summary.currency}/month`,
            ...summary.sections.map(
              (s) =>
                `Section ${s.namespace}: ${s.status}${s.decidedBy ? ` by ${s.decidedBy}` : ''}${s.overMarks ? ' (over marks)' : ''}` +
                (s.needsDomainAdmin.length > 0 ? ` (needs a domain admin: ${s.needsDomainAdmin.join('; ')})` : '') +
                (s.unresolvedReferences.length > 0 ? ` (cannot be accepted, unresolved references: ${s.unresolvedReferences.join('; ')})` : ''),
            ),
            ...summary.quota.filter((q) => !q.ok).map((q) => `Over mark: ${q.cluster} ${q.dimension} ${q.after} > ${q.mark} ${q.unit}`),
            `Apply: ${summary.steps.done}/${summary.steps.total} steps done${summary.steps.failed ? `, ${summary.steps.failed} failed` : ''}`,
          ].join('\n') + '\n',
        );
        return;
      }
      case 'accept':
      case 'reject': {
        const res = await client.revisions.decide.mutate({ revisionId: id, namespace: p.values.section, decision: sub, comment: p.values.comment });
        out(res, `Revision ${res.revisionId}: ${sub === 'accept' ? 'accepted' : 'rejected'} ${res.decided.join(', ')}; now ${res.status}${res.queued ? ' (queued for apply)' : ''}\n`);
        return;
      }
      case 'wait': {
        const until = p.values.until!;
        const deadline = Date.now() + timeoutS * 1000;
        for (;;) {
          const r = await client.revisions.get.query({ id });
          const s = r.revision.status;
          if (s === until) {
            out({ id, status: s }, `Revision ${id} is ${s}\n`);
            return;
          }
          const terminal = ['applied', 'rejected', 'superseded', 'no-op', 'failed'].includes(s);
          if (terminal) throw new CliFailure(`revision ${id} is ${s}, it will not become ${until}`);
          if (Date.now() > deadline) throw new CliFailure(`timed out after ${timeoutS} s: revision ${id} is still ${s}`);
          await new Promise((res) => setTimeout(res, 1000));
        }
      }
    }
  });
}
