import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { sendJsonJoined } from '../../http/json-text.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import { ContainerList, ContainerListQuery } from './schemas.js';
import type { InventoryContainerService } from './service.js';

export function inventoryContainerRoutes(
  app: Api,
  { inventoryContainers }: { inventoryContainers: InventoryContainerService },
): void {
  app.get(
    '/accounts/:account_id/inventory_containers',
    {
      schema: {
        tags: ['inventory'],
        summary: 'Containers of the live pods of the account (offset list)',
        params: AccountParams,
        querystring: ContainerListQuery,
        response: { 200: ContainerList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { limit = 100, offset = 0, filters, q, sort } = request.query;
      const page = await inventoryContainers.list(actorOf(request), request.params.account_id, {
        filters,
        q,
        sort,
        page: { limit, offset },
      });
      return sendJsonJoined(reply, page);
    },
  );
}
