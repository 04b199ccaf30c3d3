/** `posture roles ...`: role assignments (tenant-level, or on one account). */
import { type Command, Option } from 'commander';
import type { Role } from '../../http/actor.js';
import { UsageError } from '../errors.js';
import { role, uuid } from '../options.js';
import { printResult } from '../output.js';
import { type CliIo, withStore } from '../store.js';
import { requireAccountInTenant, requireUserInTenant } from '../tenant-scope.js';
import { examples, jsonOption, requireSubcommand, tenantIdOption, userIdOption } from './common.js';

interface AssignOptions {
  tenant: string;
  user: string;
  role: Role;
  account?: string;
  tenantLevel?: boolean;
  json?: boolean;
}

export function registerRoleCommands(program: Command, io: CliIo): void {
  const roles = program.command('roles').description('manage role assignments');

  roles
    .command('assign')
    .description(
      'give a user a role on one account, or on every account of the tenant (assigning twice is a no-op)',
    )
    .addOption(tenantIdOption())
    .addOption(userIdOption())
    .addOption(new Option('--role <role>', 'admin, editor or viewer').argParser(role).makeOptionMandatory())
    .addOption(new Option('--account <account_id>', 'the account the role applies to').argParser(uuid))
    .addOption(
      new Option('--tenant-level', 'the role applies to every account of the tenant').conflicts('account'),
    )
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples(
        'posture roles assign --tenant <tenant_id> --user <user_id> --role viewer --account <account_id>',
        'posture roles assign --tenant <tenant_id> --user <user_id> --role admin --tenant-level',
      ),
    )
    .action(async (options: AssignOptions) => {
      if (!options.account && !options.tenantLevel) {
        throw new UsageError('one of --account <account_id> or --tenant-level is required');
      }
      const accountId = options.account ?? null;
      const result = await withStore(io, async (store) => {
        await requireUserInTenant(store.db, options.tenant, options.user);
        if (accountId) await requireAccountInTenant(store.db, options.tenant, accountId);
        return store.tenancy().assignRole({
          tenantId: options.tenant,
          userId: options.user,
          level: accountId ? 'account' : 'tenant',
          accountId,
          role: options.role,
        });
      });
      printResult(io, result, { json: options.json, heading: 'Role assigned.' });
    });

  requireSubcommand(roles);
}
