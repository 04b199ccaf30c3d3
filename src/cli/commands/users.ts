/** `posture users ...`: users of a tenant, and locking them out. */
import type { Command } from 'commander';
import { isUniqueViolation } from '../errors.js';
import { email, name } from '../options.js';
import { printResult } from '../output.js';
import { type CliIo, withStore } from '../store.js';
import { examples, jsonOption, requireSubcommand, tenantIdOption, userIdOption } from './common.js';

interface LockOptions {
  tenant: string;
  user: string;
  json?: boolean;
}

export function registerUserCommands(program: Command, io: CliIo): void {
  const users = program.command('users').description('manage the users of a tenant');

  users
    .command('create')
    .description('create a user (give it roles with `posture roles assign`)')
    .addOption(tenantIdOption())
    .requiredOption('--name <name>', 'user name (unique within the tenant)', name)
    .option('--email <email>', 'email address', email)
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples('posture users create --tenant <tenant_id> --name alice --email alice@example.com'),
    )
    .action(async (options: { tenant: string; name: string; email?: string; json?: boolean }) => {
      const user = await withStore(io, (store) =>
        store
          .tenancy()
          .createUser({ tenantId: options.tenant, name: options.name, email: options.email ?? null })
          .catch((error: unknown) => {
            if (isUniqueViolation(error)) {
              throw new Error(`user '${options.name}' already exists in tenant ${options.tenant}`);
            }
            throw error;
          }),
      );
      printResult(io, user, { json: options.json, heading: 'User created.' });
    });

  for (const locked of [true, false]) {
    users
      .command(locked ? 'lock' : 'unlock')
      .description(
        locked
          ? 'lock a user: their keys stop authenticating and their sessions end at once'
          : 'unlock a user: their keys that are neither revoked nor expired work again',
      )
      .addOption(tenantIdOption())
      .addOption(userIdOption())
      .addOption(jsonOption())
      .addHelpText(
        'after',
        examples(`posture users ${locked ? 'lock' : 'unlock'} --tenant <tenant_id> --user <user_id>`),
      )
      .action(async (options: LockOptions) => {
        const result = await withStore(io, (store) =>
          store.tenancy().setUserLocked({ tenantId: options.tenant, userId: options.user, locked }),
        );
        printResult(io, result, { json: options.json, heading: locked ? 'User locked.' : 'User unlocked.' });
      });
  }

  requireSubcommand(users);
}
