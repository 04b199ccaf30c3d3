/** `posture migrate`: bring the store's schema up to date without starting the server. */
import type { Command } from 'commander';
import { printResult } from '../output.js';
import { type CliIo, withStore } from '../store.js';
import { examples, jsonOption } from './common.js';

export function registerMigrateCommand(program: Command, io: CliIo): void {
  program
    .command('migrate')
    .description('apply pending database migrations (the server also does this at boot)')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples('posture migrate', 'DATABASE_URL=postgres://posture@db/posture posture migrate'),
    )
    .action(async (options: { json?: boolean }) => {
      // Opening the store applies what is pending, exactly as the server's boot does.
      const { applied, engine } = await withStore(io, async (store) => ({
        applied: store.applied,
        engine: store.db.engine,
      }));
      printResult(
        io,
        { engine, applied },
        {
          json: options.json,
          heading: applied.length > 0 ? `Applied ${applied.length} migration(s).` : 'No pending migrations.',
        },
      );
    });
}
