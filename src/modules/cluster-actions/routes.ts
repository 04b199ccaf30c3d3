import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import { ClusterParams } from '../clusters/schemas.js';
import {
  ClusterActionList,
  ClusterActionListQuery,
  ClusterActionSchema,
  CreateClusterActionBody,
} from './schemas.js';
import type { ClusterActionService } from './service.js';

export function clusterActionRoutes(
  app: Api,
  { clusterActions }: { clusterActions: ClusterActionService },
): void {
  const tags = ['cluster actions'];

  app.get(
    '/accounts/:account_id/clusters/:cluster_id/actions',
    {
      schema: {
        tags,
        summary: 'Actions of a cluster, most recently created first (page list)',
        params: ClusterParams,
        querystring: ClusterActionListQuery,
        response: { 200: ClusterActionList, ...authenticatedErrors() },
      },
    },
    async (request) => {
      const { page = 1, page_size = 50 } = request.query;
      return clusterActions.list(actorOf(request), request.params.account_id, request.params.cluster_id, {
        page,
        pageSize: page_size,
      });
    },
  );

  app.post(
    '/accounts/:account_id/clusters/:cluster_id/actions',
    {
      schema: {
        tags,
        summary: 'Ask for a live pod to be terminated (editor); recorded as Pending',
        params: ClusterParams,
        body: CreateClusterActionBody,
        response: { 201: ClusterActionSchema, ...authenticatedErrors(413, 415) },
      },
    },
    async (request, reply) => {
      const action = await clusterActions.create(
        actorOf(request),
        request.params.account_id,
        request.params.cluster_id,
        request.body,
      );
      return reply.code(201).send(action);
    },
  );
}
