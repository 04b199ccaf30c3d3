import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { lazySerializer, sendJsonJoined } from '../../http/json-text.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import {
  FindingGroupList,
  FindingGroupSchema,
  GroupDetailQuery,
  GroupListQuery,
  GroupParams,
  GroupStatusBody,
} from './schemas.js';
import type { ApiGroup, FindingService } from './service.js';

export function findingRoutes(app: Api, { findings }: { findings: FindingService }): void {
  const tags = ['findings'];

  app.get(
    '/accounts/:account_id/unified_findings/groups',
    {
      schema: {
        tags,
        summary: 'Finding groups of an account (a bare array, newest last_seen first)',
        params: AccountParams,
        querystring: GroupListQuery,
        response: { 200: FindingGroupList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const parts = await findings.listGroups(
        actorOf(request),
        request.params.account_id,
        request.query,
        lazySerializer<ApiGroup>(reply, FindingGroupSchema),
      );
      return sendJsonJoined(reply, parts);
    },
  );

  app.get(
    '/accounts/:account_id/unified_findings/groups/:group_id',
    {
      schema: {
        tags,
        summary: 'One finding group with its findings (#24)',
        params: GroupParams,
        querystring: GroupDetailQuery,
        response: { 200: FindingGroupSchema, ...authenticatedErrors() },
      },
    },
    async (request) =>
      findings.getGroup(
        actorOf(request),
        request.params.account_id,
        request.params.group_id,
        request.query.limit,
      ),
  );

  app.put(
    '/accounts/:account_id/unified_findings/groups/:group_id/status',
    {
      schema: {
        tags,
        summary: 'Set a finding group status: open, closed or ignored (editor); returns the group',
        params: GroupParams,
        body: GroupStatusBody,
        response: { 200: FindingGroupSchema, ...authenticatedErrors(413, 415) },
      },
    },
    async (request) =>
      findings.setStatus(
        actorOf(request),
        request.params.account_id,
        request.params.group_id,
        request.body.status,
      ),
  );
}
