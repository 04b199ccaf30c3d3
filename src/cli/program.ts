/**
 * The `posture` program: commander wiring, and `runCli`, which runs one command line in-process and
 * returns its exit code instead of exiting (main.ts exits; tests call it directly).
 *
 * @example
 *   const code = await runCli(['accounts', 'create', '--tenant', id, '--name', 'prod'], { env, stdout, stderr });
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './commands/accounts.js';
import { registerBootstrapCommand } from './commands/bootstrap.js';
import { requireSubcommand } from './commands/common.js';
import { registerFeedCommands } from './commands/feeds.js';
import { registerIngestCommand } from './commands/ingest.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerRoleCommands } from './commands/roles.js';
import { registerUserCommands } from './commands/users.js';
import { describeError, EXIT_OK, EXIT_USAGE, exitCodeOf } from './errors.js';
import type { CliIo } from './store.js';

// The same relative path from src/cli/ and from dist/cli/.
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const ENVIRONMENT_HELP = `
Environment (the same as the server's; see docs/cli.md):
  DATABASE_URL    PostgreSQL connection string; unset = the embedded store in DATA_DIR
  DATA_DIR        embedded store directory (default ./data); must not be in use by a running server
  POSTURE_SECRET  access-key pepper; unset = DATA_DIR/posture.secret, as the server does`;

export function buildProgram(io: CliIo): Command {
  const program = new Command('posture')
    .description(
      'Operate a Posture store (tenants, accounts, users, roles, access keys, migrations) and push data to a server.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // commander's messages start with "error: " and put suggestions on a second line.
      outputError: (text, write) =>
        write(
          `posture: ${text
            .replace(/^error: /, '')
            .replace(/\s*\n\s*/g, ' ')
            .trim()}\n`,
        ),
    })
    .addHelpText('after', ENVIRONMENT_HELP);

  registerBootstrapCommand(program, io);
  registerAccountCommands(program, io);
  registerUserCommands(program, io);
  registerRoleCommands(program, io);
  registerKeyCommands(program, io);
  registerMigrateCommand(program, io);
  registerIngestCommand(program, io);
  registerFeedCommands(program, io);
  requireSubcommand(program);
  return program;
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    // commander has already written its one line (or the help / version it was asked for).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    io.stderr.write(`posture: ${describeError(error)}\n`);
    return exitCodeOf(error);
  }
}
