import { Type } from 'typebox';
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import { MemberList, MemberListQuery, ReplaceRolesBody, RolesResponse, UserParams } from './schemas.js';
import type { UserService } from './service.js';

export function userRoutes(app: Api, { users }: { users: UserService }): void {
  const tags = ['users'];

  app.get(
    '/accounts/:account_id/users',
    {
      schema: {
        tags,
        summary: 'Members of an account, each with roles, locked and last_login_at',
        params: AccountParams,
        querystring: MemberListQuery,
        response: { 200: MemberList, ...authenticatedErrors() },
      },
    },
    async (request) => {
      const { limit = 100, offset = 0 } = request.query;
      return users.listMembers(actorOf(request), request.params.account_id, { limit, offset });
    },
  );

  app.get(
    '/accounts/:account_id/users/:user_id/roles',
    {
      schema: {
        tags,
        summary: "One user's role assignments",
        params: UserParams,
        response: { 200: RolesResponse, ...authenticatedErrors() },
      },
    },
    async (request) => users.getRoles(actorOf(request), request.params.account_id, request.params.user_id),
  );

  app.put(
    '/accounts/:account_id/users/:user_id/roles',
    {
      schema: {
        tags,
        summary: "Replace a user's whole role set (admin); omitted roles are removed",
        params: UserParams,
        body: ReplaceRolesBody,
        response: { 200: Type.Object({}), ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request) =>
      users.replaceRoles(
        actorOf(request),
        request.params.account_id,
        request.params.user_id,
        request.body.roles,
      ),
  );
}
