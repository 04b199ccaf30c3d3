import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { sendJsonJoined, sendJsonText } from '../../http/json-text.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import {
  LatestResourceParams,
  PayloadQuery,
  ResourceList,
  ResourceListQuery,
  ResourceParams,
  ResourceRecordSchema,
} from './schemas.js';
import type { ResourceService } from './service.js';

export function resourceRoutes(app: Api, { resources }: { resources: ResourceService }): void {
  const tags = ['resources'];

  app.get(
    '/accounts/:account_id/resources',
    {
      schema: {
        tags,
        summary: 'Cluster resource records of an account (page list)',
        params: AccountParams,
        querystring: ResourceListQuery,
        response: { 200: ResourceList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { page = 1, page_size = 50, ...query } = request.query;
      const list = await resources.list(actorOf(request), request.params.account_id, {
        ...query,
        page: { page, pageSize: page_size },
      });
      return sendJsonJoined(reply, list);
    },
  );

  app.get(
    '/clusters/:cluster_id/resources/:resource_id',
    {
      schema: {
        tags,
        summary: 'One cluster resource record by id (<uid>_<resource_version>)',
        params: ResourceParams,
        querystring: PayloadQuery,
        response: { 200: ResourceRecordSchema, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const record = await resources.get(
        actorOf(request),
        request.params.cluster_id,
        request.params.resource_id,
        request.query.with_payload ?? true,
      );
      return sendJsonText(reply, record);
    },
  );

  app.get(
    '/clusters/:cluster_id/resources/:uid/latest',
    {
      schema: {
        tags,
        summary: 'The newest version of a resource by uid (deleted or not)',
        params: LatestResourceParams,
        querystring: PayloadQuery,
        response: { 200: ResourceRecordSchema, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const record = await resources.latest(
        actorOf(request),
        request.params.cluster_id,
        request.params.uid,
        request.query.with_payload ?? true,
      );
      return sendJsonText(reply, record);
    },
  );
}
