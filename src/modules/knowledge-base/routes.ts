import { Type } from 'typebox';
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import {
  AccountCollectionParams,
  AccountCollectionsParams,
  CollectionList,
  CollectionListQuery,
  CollectionSchema,
  CreateCollectionBody,
  TenantCollectionParams,
  TenantCollectionsParams,
} from './schemas.js';
import type { CollectionPath, KnowledgeBaseService } from './service.js';

const page = (query: { limit?: number; offset?: number }) => ({
  limit: query.limit ?? 100,
  offset: query.offset ?? 0,
});
const pathOf = (params: { tenant_id: string; account_id?: string }): CollectionPath =>
  params.account_id === undefined
    ? { tenantId: params.tenant_id }
    : { tenantId: params.tenant_id, accountId: params.account_id };

/** The same four calls on the tenant path and on the account-narrowed path. */
export function knowledgeBaseRoutes(
  app: Api,
  { knowledgeBase }: { knowledgeBase: KnowledgeBaseService },
): void {
  const tags = ['knowledge base'];
  const variants = [
    {
      base: '/tenants/:tenant_id/knowledge_base/collections',
      scope: 'the tenant (tenant-level role)',
      params: TenantCollectionsParams,
      itemParams: TenantCollectionParams,
    },
    {
      base: '/tenants/:tenant_id/accounts/:account_id/knowledge_base/collections',
      scope: 'one account',
      params: AccountCollectionsParams,
      itemParams: AccountCollectionParams,
    },
  ];

  for (const { base, scope, params, itemParams } of variants) {
    app.get(
      base,
      {
        schema: {
          tags,
          summary: `Knowledge-base collection names of ${scope}, in name order (#28)`,
          params,
          querystring: CollectionListQuery,
          response: { 200: CollectionList, ...authenticatedErrors() },
        },
      },
      async (request) => knowledgeBase.list(actorOf(request), pathOf(request.params), page(request.query)),
    );

    app.post(
      base,
      {
        schema: {
          tags,
          summary: `Create a knowledge-base collection of ${scope} (admin); names are unique in the tenant`,
          params,
          body: CreateCollectionBody,
          response: { 201: CollectionSchema, ...authenticatedErrors(409, 413, 415) },
        },
      },
      async (request, reply) => {
        const created = await knowledgeBase.create(
          actorOf(request),
          pathOf(request.params),
          request.body.name,
        );
        return reply.code(201).send(created);
      },
    );

    app.delete(
      `${base}/:name`,
      {
        schema: {
          tags,
          summary: `Delete a knowledge-base collection of ${scope} (admin)`,
          params: itemParams,
          response: { 204: Type.Null({ description: 'deleted' }), ...authenticatedErrors() },
        },
      },
      async (request, reply) => {
        const { name, ...rest } = request.params;
        await knowledgeBase.remove(actorOf(request), pathOf(rest), name);
        return reply.code(204).send(null);
      },
    );
  }
}
