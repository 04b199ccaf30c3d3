/** `posture accounts ...`: accounts of a tenant. */
import type { Command } from 'commander';
import { isUniqueViolation } from '../errors.js';
import { name } from '../options.js';
import { printResult } from '../output.js';
import { type CliIo, withStore } from '../store.js';
import { examples, jsonOption, requireSubcommand, tenantIdOption } from './common.js';

export function registerAccountCommands(program: Command, io: CliIo): void {
  const accounts = program.command('accounts').description('manage the accounts of a tenant');

  accounts
    .command('create')
    .description('create an account in a tenant')
    .addOption(tenantIdOption())
    .requiredOption('--name <name>', 'account name (unique within the tenant)', name)
    .addOption(jsonOption())
    .addHelpText('after', examples('posture accounts create --tenant <tenant_id> --name staging'))
    .action(async (options: { tenant: string; name: string; json?: boolean }) => {
      const account = await withStore(io, (store) =>
        store
          .tenancy()
          .createAccount({ tenantId: options.tenant, name: options.name })
          .catch((error: unknown) => {
            if (isUniqueViolation(error)) {
              throw new Error(`account '${options.name}' already exists in tenant ${options.tenant}`);
            }
            throw error;
          }),
      );
      printResult(io, account, { json: options.json, heading: 'Account created.' });
    });

  requireSubcommand(accounts);
}
