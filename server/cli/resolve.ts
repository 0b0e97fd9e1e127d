import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { formatDiagnostic, hasErrors, sortDiagnostics } from '../engine/diagnostics';
import { parseUsers, type PolicyUser } from '../engine/model/users';
import { runEngine } from '../engine';
import { toResolveOutput } from '../engine/resolve';
import { loadPolicyFiles } from '../loader/files';
import { parse, UsageError } from './args';
import type { Io } from './main';

const HELP = `Usage: keelson resolve PATH... [--users FILE] [--format json|yaml] [--trace]

Resolve the claims in the policy files and folders given and print the
desired state: every claim's status and instances, every instance with its
code, parameters, discovery, target and dependencies.

  --users FILE     users as a YAML list of {name, labels, secrets} (Aptomi's
                   users file works too); default: users files found in PATHs
  --format FORMAT  json (default) or yaml
  --trace          include each claim's decision trace
  --allow-outside  let @include read absolute paths and files outside the including file's folder

Consume rights are checked only when the policy holds aclrule objects.
Exit 0 when the policy is valid, even if claims fail (their status says
why); 1 on invalid policy; 2 on usage errors.
`;

export async function resolveCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv, {
      users: { type: 'string' },
      format: { type: 'string', default: 'json' },
      trace: { type: 'boolean' },
      'allow-outside': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (!['json', 'yaml'].includes(String(parsed.values.format))) throw new UsageError(`--format must be json or yaml, not "${parsed.values.format}"`);
    if (!parsed.values.help && parsed.positionals.length === 0) throw new UsageError('name at least one file or folder');
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson resolve: ${e.message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }
  if (parsed.values.help) {
    io.out(HELP);
    return 0;
  }
  const loaded = loadPolicyFiles(parsed.positionals, { allowOutside: parsed.values['allow-outside'] === true });
  const diags = sortDiagnostics(loaded.diagnostics.filter((d) => d.severity === 'error'));
  if (hasErrors(diags)) {
    for (const d of diags) io.err(formatDiagnostic(d) + '\n');
    io.err(`keelson resolve: the policy is invalid (${diags.length} error${diags.length === 1 ? '' : 's'}); nothing was resolved\n`);
    return 1;
  }
  const usersFiles = parsed.values.users ? [parsed.values.users] : loaded.skipped;
  const users: PolicyUser[] = [];
  for (const f of usersFiles) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch (e) {
      io.err(`keelson resolve: cannot read users file ${f}: ${(e as Error).message}\n`);
      return 1;
    }
    const r = parseUsers(text, f);
    if (hasErrors(r.diagnostics)) {
      for (const d of r.diagnostics) io.err(formatDiagnostic(d) + '\n');
      return 1;
    }
    users.push(...r.users);
  }
  if (usersFiles.length === 0) io.err('keelson resolve: no users given (--users FILE); claims will fail with "non-existing user"\n');
  // The same stages as the server's resolution service (engine/index.ts).
  const state = runEngine({ objects: loaded.objects, users }, { trace: Boolean(parsed.values.trace) });
  const out = toResolveOutput(state, { trace: Boolean(parsed.values.trace) });
  io.out(parsed.values.format === 'yaml' ? stringify(out, { lineWidth: 0 }) : JSON.stringify(out, null, 2) + '\n');
  return 0;
}
