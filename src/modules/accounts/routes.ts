import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import { AccountIdParams, AccountList, AccountListQuery, AccountSchema } from './schemas.js';
import { type AccountService, toApiAccount } from './service.js';

export function accountRoutes(app: Api, { accounts }: { accounts: AccountService }): void {
  app.get(
    '/accounts',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Accounts visible to the caller (use parent_id=<tenant_id> with a tenant-level key)',
        querystring: AccountListQuery,
        response: { 200: AccountList, ...authenticatedErrors() },
      },
    },
    async (request) => {
      const { parent_id, limit = 100, offset = 0 } = request.query;
      return accounts.list(actorOf(request), { parentId: parent_id, page: { limit, offset } });
    },
  );

  app.get(
    '/accounts/:account_id',
    {
      schema: {
        tags: ['accounts'],
        summary: 'One account',
        params: AccountIdParams,
        response: { 200: AccountSchema, ...authenticatedErrors() },
      },
    },
    // Not async: a cached account is answered in the same pass as the request (no promise).
    (request) => {
      const actor = actorOf(request);
      const { account_id: accountId } = request.params;
      return (
        accounts.cachedApiAccount(actor, accountId, 'viewer') ??
        accounts.requireAccount(actor, accountId, 'viewer').then(toApiAccount)
      );
    },
  );
}
