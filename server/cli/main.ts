/**
 * The `keelson` command line. Offline commands work on files; commands that
 * talk to a server arrive with the revisions work.
 *
 * Exit codes: 0 success, 1 invalid input or refused, 2 usage error.
 */
import { backupCommand } from './backup';
import { loginCommand, logoutCommand } from './login';
import { expandCommand } from './expand';
import { installCommand } from './install';
import { policyCommand } from './policy';
import { resolveCommand } from './resolve';
import { applyCommand, revisionsCommand } from './server-commands';
import { validateCommand } from './validate';

const USAGE = `Usage: keelson <command> [options]

Commands:
  validate PATH...     Parse and validate policy files or folders (*.yaml, *.yml).
                       Prints file:line:col: message per problem; exit 1 on any error.
  resolve PATH...      Resolve claims into the desired state (JSON or YAML).
  install PATH... [--blueprint NAME=DIR]
                       Landscaper: run installations offline (mock deployer) and print
                       their scopes, phases, imports, exports and the DataObjects.
  expand CONFIG [--import FILE] [--env KEY=VALUE]
                       Deployment Manager: expand a configuration (imports read beside it)
                       and print {config, layout}.
  policy PATH... --interface PATH[:REV]
                       Capact: the Implementation an Interface resolves to under
                       the policies, with injections, backends and the reasons.

Against a running console (--server URL or KEELSON_SERVER; signed in with
KEELSON_USER / KEELSON_PASSWORD, or else with the token of keelson login):
  login --server URL   Sign in as a local user (KEELSON_USER / KEELSON_PASSWORD, or asked)
                       and save an API token in $KEELSON_CONFIG_DIR/credentials.json
                       (default ~/.config/keelson/).
  logout [--server URL]  Revoke the saved token on the console and forget it.
  apply PATH...        Save objects as one generation; print it and its revision.
  delete PATH... | KIND NAMESPACE/NAME...
                       Delete the objects the files describe, or those named, as one generation.
  revisions list | show ID | accept ID | reject ID | wait ID --until applied|rejected

On this machine's installation (DATABASE_URL or the PGlite in KEELSON_DATA_DIR):
  backup FILE          The whole database and the GitOps repository, to one file.
  restore FILE         Into an empty database and an absent repository; all or nothing.

Run \`keelson <command> --help\` for a command's options.`;

export type Io = { out: (s: string) => void; err: (s: string) => void };

export async function main(argv: string[], io: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) }): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'validate':
      return validateCommand(rest, io);
    case 'resolve':
      return resolveCommand(rest, io);
    case 'policy':
      return policyCommand(rest, io);
    case 'install':
      return installCommand(rest, io);
    case 'expand':
      return expandCommand(rest, io);
    case 'apply':
      return applyCommand(rest, io, 'apply');
    case 'delete':
      return applyCommand(rest, io, 'delete');
    case 'revisions':
      return revisionsCommand(rest, io);
    case 'login':
      return loginCommand(rest, io);
    case 'backup':
    case 'restore':
      return backupCommand(cmd, rest, io);
    case 'logout':
      return logoutCommand(rest, io);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE + '\n');
      return cmd === undefined ? 2 : 0;
    default:
      io.err(`keelson: unknown command "${cmd}"\n\n${USAGE}\n`);
      return 2;
  }
}

const invokedDirectly = process.argv[1] && /cli[\\/]main\.ts$/.test(process.argv[1]);
if (invokedDirectly) {
  // `keelson resolve … | head` closes the pipe early: that is the reader
  // being done, not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`keelson: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    },
  );
}
