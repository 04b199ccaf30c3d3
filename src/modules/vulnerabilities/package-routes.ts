import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { sendJsonJoined } from '../../http/json-text.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import { PackageFacetList, PackageList, PackageListQuery } from './package-schemas.js';
import type { PackageService } from './package-service.js';

export function packageRoutes(app: Api, { packages }: { packages: PackageService }): void {
  app.get(
    '/accounts/:account_id/inventory_packages',
    {
      schema: {
        tags: ['inventory'],
        summary: 'Packages (name + version) of the scanned images of the account (offset list)',
        params: AccountParams,
        querystring: PackageListQuery,
        response: { 200: PackageList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { limit = 100, offset = 0, filters, q, sort } = request.query;
      const page = await packages.list(actorOf(request), request.params.account_id, {
        filters,
        q,
        sort,
        page: { limit, offset },
      });
      return sendJsonJoined(reply, page);
    },
  );

  app.get(
    '/accounts/:account_id/inventory_packages/facets',
    {
      schema: {
        tags: ['inventory'],
        summary: 'The filters GET .../inventory_packages accepts (a bare array of facet groups)',
        params: AccountParams,
        response: { 200: PackageFacetList, ...authenticatedErrors() },
      },
    },
    async (request) => packages.facets(actorOf(request), request.params.account_id),
  );
}
