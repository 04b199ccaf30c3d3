import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import { ClusterList, ClusterListQuery, ClusterParams, ClusterSchema, CreateClusterBody } from './schemas.js';
import type { ClusterService } from './service.js';

export function clusterRoutes(app: Api, { clusters }: { clusters: ClusterService }): void {
  const tags = ['clusters'];

  app.post(
    '/accounts/:account_id/clusters',
    {
      schema: {
        tags,
        summary: 'Register a cluster (editor); its name is unique in the account',
        params: AccountParams,
        body: CreateClusterBody,
        response: { 201: ClusterSchema, ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const cluster = await clusters.create(actorOf(request), request.params.account_id, request.body.name);
      return reply.code(201).send(cluster);
    },
  );

  app.get(
    '/accounts/:account_id/clusters',
    {
      schema: {
        tags,
        summary: 'Clusters of an account (page list)',
        params: AccountParams,
        querystring: ClusterListQuery,
        response: { 200: ClusterList, ...authenticatedErrors() },
      },
    },
    async (request) => {
      const { page = 1, page_size = 50, q, sort } = request.query;
      return clusters.list(actorOf(request), request.params.account_id, {
        ...(q !== undefined ? { q } : {}),
        ...(sort !== undefined ? { sort } : {}),
        page: { page, pageSize: page_size },
      });
    },
  );

  app.get(
    '/accounts/:account_id/clusters/:cluster_id',
    {
      schema: {
        tags,
        summary: 'One cluster',
        params: ClusterParams,
        response: { 200: ClusterSchema, ...authenticatedErrors() },
      },
    },
    async (request) => clusters.get(actorOf(request), request.params.account_id, request.params.cluster_id),
  );
}
