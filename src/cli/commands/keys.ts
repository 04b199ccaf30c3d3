/** `posture keys ...`: access keys (secret printed once) and their revocation. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { ACCESS_KEY_ID_PREFIX } from '../../security/secrets.js';
import { futureTimestamp, name, uuid } from '../options.js';
import { printResult, SECRET_SHOWN_ONCE } from '../output.js';
import { type CliIo, withStore } from '../store.js';
import { requireAccountInTenant, requireUserInTenant } from '../tenant-scope.js';
import { examples, jsonOption, requireSubcommand, tenantIdOption, userIdOption } from './common.js';

interface CreateOptions {
  tenant: string;
  user: string;
  name: string;
  account?: string;
  expires?: Date;
  json?: boolean;
}

function accessKeyId(value: string): string {
  if (!value.startsWith(ACCESS_KEY_ID_PREFIX) || value.length > 256) {
    throw new InvalidArgumentError(`must be an access key id (${ACCESS_KEY_ID_PREFIX}...).`);
  }
  return value;
}

export function registerKeyCommands(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('manage access keys');

  keys
    .command('create')
    .description(
      "create an access key for a user (tenant-scoped unless --account); it acts with the user's roles",
    )
    .addOption(tenantIdOption())
    .addOption(userIdOption())
    .requiredOption('--name <name>', 'a label for the key', name)
    .addOption(new Option('--account <account_id>', 'scope the key to this one account').argParser(uuid))
    .addOption(
      new Option('--expires <time>', 'expiry, RFC 3339 (default: never)').argParser((value) =>
        futureTimestamp(value),
      ),
    )
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples(
        'posture keys create --tenant <tenant_id> --user <user_id> --name ci',
        'posture keys create --tenant <tenant_id> --user <user_id> --name agent --account <account_id> --expires 2027-01-01T00:00:00Z',
      ),
    )
    .action(async (options: CreateOptions) => {
      const accountId = options.account ?? null;
      const key = await withStore(io, async (store) => {
        await requireUserInTenant(store.db, options.tenant, options.user);
        if (accountId) await requireAccountInTenant(store.db, options.tenant, accountId);
        return store.tenancy().createAccessKey({
          tenantId: options.tenant,
          userId: options.user,
          name: options.name,
          scope: accountId ? 'account' : 'tenant',
          accountId,
          expiresAt: options.expires ?? null,
        });
      });
      printResult(
        io,
        {
          access_key_id: key.access_key_id,
          secret_key: key.secret_key,
          user_id: options.user,
          name: options.name,
          scope: key.scope,
          account_id: key.account_id,
          expires_at: options.expires?.toISOString() ?? null,
        },
        { json: options.json, heading: `Access key created. ${SECRET_SHOWN_ONCE}` },
      );
    });

  keys
    .command('revoke')
    .description('revoke an access key: it stops authenticating and its sessions end at once')
    .addOption(tenantIdOption())
    .addOption(
      new Option('--key <access_key_id>', 'the access key id').argParser(accessKeyId).makeOptionMandatory(),
    )
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples('posture keys revoke --tenant <tenant_id> --key pak_0123456789abcdef01234567'),
    )
    .action(async (options: { tenant: string; key: string; json?: boolean }) => {
      const result = await withStore(io, (store) =>
        store.tenancy().revokeAccessKey({ tenantId: options.tenant, accessKeyId: options.key }),
      );
      printResult(io, result, { json: options.json, heading: 'Access key revoked.' });
    });

  requireSubcommand(keys);
}
