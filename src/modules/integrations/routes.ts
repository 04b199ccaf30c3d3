import { Type } from 'typebox';
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import {
  CreateIntegrationBody,
  DeliveryList,
  IntegrationList,
  IntegrationParams,
  IntegrationSchema,
  ProviderList,
  TenantListQuery,
  TenantParams,
  UpdateIntegrationBody,
} from './schemas.js';
import type { IntegrationService } from './service.js';

const page = (query: { limit?: number; offset?: number }) => ({
  limit: query.limit ?? 100,
  offset: query.offset ?? 0,
});

export function integrationRoutes(app: Api, { integrations }: { integrations: IntegrationService }): void {
  const tags = ['integrations'];
  const base = '/tenants/:tenant_id/integrations';

  app.get(
    `${base}/providers`,
    {
      schema: {
        tags,
        summary:
          'The provider catalogue, each with its config schema and the tenant’s configured instances (#26)',
        params: TenantParams,
        querystring: TenantListQuery,
        response: { 200: ProviderList, ...authenticatedErrors() },
      },
    },
    async (request) =>
      integrations.listProviders(actorOf(request), request.params.tenant_id, page(request.query)),
  );

  app.get(
    `${base}/external`,
    {
      schema: {
        tags,
        summary: 'Configured integrations of the tenant, oldest first; secrets redacted',
        params: TenantParams,
        querystring: TenantListQuery,
        response: { 200: IntegrationList, ...authenticatedErrors() },
      },
    },
    async (request) => integrations.list(actorOf(request), request.params.tenant_id, page(request.query)),
  );

  app.post(
    `${base}/external`,
    {
      schema: {
        tags,
        summary: 'Configure an integration (tenant admin); config validated against the provider schema',
        params: TenantParams,
        body: CreateIntegrationBody,
        response: { 201: IntegrationSchema, ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await integrations.create(actorOf(request), request.params.tenant_id, request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    `${base}/external/:integration_id`,
    {
      schema: {
        tags,
        summary: 'One configured integration (#27); secrets redacted',
        params: IntegrationParams,
        response: { 200: IntegrationSchema, ...authenticatedErrors() },
      },
    },
    async (request) =>
      integrations.get(actorOf(request), request.params.tenant_id, request.params.integration_id),
  );

  app.put(
    `${base}/external/:integration_id`,
    {
      schema: {
        tags,
        summary:
          'Replace name and config of an integration (tenant admin); the redaction marker keeps a secret',
        params: IntegrationParams,
        body: UpdateIntegrationBody,
        response: { 200: IntegrationSchema, ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request) =>
      integrations.update(
        actorOf(request),
        request.params.tenant_id,
        request.params.integration_id,
        request.body,
      ),
  );

  app.delete(
    `${base}/external/:integration_id`,
    {
      schema: {
        tags,
        summary: 'Remove an integration and its delivery log (tenant admin)',
        params: IntegrationParams,
        response: { 204: Type.Null({ description: 'removed' }), ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      await integrations.remove(actorOf(request), request.params.tenant_id, request.params.integration_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${base}/external/:integration_id/deliveries`,
    {
      schema: {
        tags,
        summary:
          'Delivery log of an integration, newest first (status, attempts, last error, response status)',
        params: IntegrationParams,
        querystring: TenantListQuery,
        response: { 200: DeliveryList, ...authenticatedErrors() },
      },
    },
    async (request) =>
      integrations.listDeliveries(
        actorOf(request),
        request.params.tenant_id,
        request.params.integration_id,
        page(request.query),
      ),
  );
}
