import { formatDiagnostic, hasErrors, sortDiagnostics } from '../engine/diagnostics';
import { loadPolicyFiles } from '../loader/files';
import { parse, UsageError } from './args';
import type { Io } from './main';

const HELP = `Usage: keelson validate PATH... [--quiet]

Parse and validate every policy object in the files and folders given
(folders: all *.yaml and *.yml below them). Prints one line per problem,
file:line:col: message, and exits 1 when any is an error.
  --quiet   print errors only (no notes about skipped documents)
  --allow-outside   let @include read absolute paths and files outside the including file's folder
`;

export async function validateCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv, { quiet: { type: 'boolean' }, 'allow-outside': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson validate: ${e.message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }
  if (parsed.values.help) {
    io.out(HELP);
    return 0;
  }
  if (parsed.positionals.length === 0) {
    io.err(`keelson validate: name at least one file or folder\n\n${HELP}`);
    return 2;
  }
  const r = loadPolicyFiles(parsed.positionals, { allowOutside: parsed.values['allow-outside'] === true });
  const diags = sortDiagnostics(r.diagnostics).filter((d) => d.severity !== 'info' || !parsed.values.quiet);
  for (const d of diags) (d.severity === 'error' ? io.err : io.out)(formatDiagnostic(d) + '\n');
  const errors = diags.filter((d) => d.severity === 'error').length;
  if (hasErrors(diags)) {
    io.err(`${errors} error${errors === 1 ? '' : 's'} in ${new Set(diags.filter((d) => d.severity === 'error').map((d) => d.file)).size} file(s)\n`);
    return 1;
  }
  io.out(`${r.objects.length} objects valid${r.skipped.length ? `; skipped ${r.skipped.length} users/secrets file(s)` : ''}\n`);
  return 0;
}
