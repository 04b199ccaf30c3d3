/** `posture bootstrap`: a new tenant, ready to use, in one step (DESIGN.md section 3). */
import type { Command } from 'commander';
import { findTenantByName } from '../../modules/tenancy/repository.js';
import { email, name } from '../options.js';
import { printResult, SECRET_SHOWN_ONCE } from '../output.js';
import { type CliIo, withStore } from '../store.js';
import { examples, jsonOption } from './common.js';

interface BootstrapOptions {
  tenant: string;
  account: string;
  user: string;
  email?: string;
  json?: boolean;
}

export function registerBootstrapCommand(program: Command, io: CliIo): void {
  program
    .command('bootstrap')
    .description('create a tenant, its first account, an admin user and a tenant-level access key')
    .requiredOption('--tenant <name>', 'name of the new tenant (unique)', name)
    .requiredOption('--account <name>', 'name of its first account', name)
    .option('--user <name>', 'name of the admin user', name, 'admin')
    .option('--email <email>', 'email of the admin user', email)
    .addOption(jsonOption())
    .addHelpText('after', examples('posture bootstrap --tenant acme --account production --json'))
    .action(async (options: BootstrapOptions) => {
      const result = await withStore(io, async (store) => {
        // Tenant names are how operators tell tenants apart, so a second "acme" is refused.
        if (await findTenantByName(store.db, options.tenant)) {
          throw new Error(`tenant '${options.tenant}' already exists`);
        }
        return store.tenancy().bootstrap({
          tenant: options.tenant,
          account: options.account,
          user: options.user,
          email: options.email ?? null,
        });
      });
      printResult(io, { ...result }, { json: options.json, heading: `Tenant created. ${SECRET_SHOWN_ONCE}` });
    });
}
