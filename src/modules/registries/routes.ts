import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import { CreateRegistryBody, RegistryList, RegistryParams, RegistrySchema } from './schemas.js';
import type { RegistryService } from './service.js';

export function registryRoutes(app: Api, { registries }: { registries: RegistryService }): void {
  const tags = ['registries'];

  app.get(
    '/accounts/:account_id/registries',
    {
      schema: {
        tags,
        summary: 'Registries of an account (a bare array, oldest first)',
        params: AccountParams,
        response: { 200: RegistryList, ...authenticatedErrors() },
      },
    },
    async (request) => registries.list(actorOf(request), request.params.account_id),
  );

  app.post(
    '/accounts/:account_id/registries',
    {
      schema: {
        tags,
        summary: 'Register a container image registry (editor)',
        params: AccountParams,
        body: CreateRegistryBody,
        response: { 201: RegistrySchema, ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const registry = await registries.create(actorOf(request), request.params.account_id, request.body);
      return reply.code(201).send(registry);
    },
  );

  app.get(
    '/accounts/:account_id/registries/:registry_id',
    {
      schema: {
        tags,
        summary: 'One registry',
        params: RegistryParams,
        response: { 200: RegistrySchema, ...authenticatedErrors() },
      },
    },
    async (request) =>
      registries.get(actorOf(request), request.params.account_id, request.params.registry_id),
  );
}
