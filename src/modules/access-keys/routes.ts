import { Type } from 'typebox';
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import {
  AccessKeyList,
  AccessKeyListQuery,
  AccessKeyParams,
  AccessKeySchema,
  CreateAccessKeyBody,
  CreatedAccessKeySchema,
} from './schemas.js';
import type { AccessKeyService } from './service.js';

export function accessKeyRoutes(app: Api, { accessKeys }: { accessKeys: AccessKeyService }): void {
  const tags = ['access keys'];

  app.post(
    '/accounts/access_keys',
    {
      schema: {
        tags,
        summary: 'Create an access key (admin); the secret is in this response only',
        body: CreateAccessKeyBody,
        response: { 201: CreatedAccessKeySchema, ...authenticatedErrors(413, 415) },
      },
    },
    async (request, reply) => {
      const { name, scope, account_id, expires_at } = request.body;
      const created = await accessKeys.create(actorOf(request), {
        name,
        scope,
        accountId: account_id,
        expiresAt: expires_at ? new Date(expires_at) : undefined,
      });
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/accounts/access_keys',
    {
      schema: {
        tags,
        summary: 'Access keys the caller administers (admin)',
        querystring: AccessKeyListQuery,
        response: { 200: AccessKeyList, ...authenticatedErrors() },
      },
    },
    async (request) => {
      const { limit = 100, offset = 0 } = request.query;
      return accessKeys.list(actorOf(request), { limit, offset });
    },
  );

  app.get(
    '/accounts/access_keys/:id',
    {
      schema: {
        tags,
        summary: 'One access key (admin)',
        params: AccessKeyParams,
        response: { 200: AccessKeySchema, ...authenticatedErrors() },
      },
    },
    async (request) => accessKeys.get(actorOf(request), request.params.id),
  );

  app.put(
    '/accounts/access_keys/:id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an access key (admin); its sessions end at once',
        params: AccessKeyParams,
        response: { 204: Type.Null({ description: 'revoked' }), ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      await accessKeys.revoke(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
