/**
 * The runtime read endpoints: insights (list and #6), HTTP request observations (#5), latest
 * baseline fingerprints (#7), and the per-account runtime settings.
 */
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { lazySerializer, sendJsonJoined, sendJsonPieces } from '../../http/json-text.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import { BaselineEntrySchema, BaselineList, BaselineListQuery } from './baseline-schemas.js';
import type { BaselineEntry } from './baseline-service.js';
import { registerFingerprintSchemas } from './fingerprint-schemas.js';
import { HttpObservationList, HttpObservationListQuery } from './http-schemas.js';
import {
  InsightList,
  InsightListQuery,
  InsightParams,
  InsightQuery,
  RuntimeInsightSchema,
  RuntimeInsightSummarySchema,
} from './insight-schemas.js';
import type { InsightSummary } from './insight-service.js';
import type { RuntimeServices } from './services.js';
import { RuntimeSettingsBody, RuntimeSettingsSchema } from './settings-schemas.js';

export function runtimeRoutes(app: Api, services: RuntimeServices): void {
  const tags = ['runtime'];
  registerFingerprintSchemas(app);

  app.get(
    '/accounts/:account_id/container_runtime_insights',
    {
      schema: {
        tags,
        summary: 'Runtime insights of the account, without their fingerprints (offset list)',
        params: AccountParams,
        querystring: InsightListQuery,
        response: { 200: InsightList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { limit = 100, offset = 0, filters, container_ids, sort } = request.query;
      const parts = await services.runtimeInsights.list(
        actorOf(request),
        request.params.account_id,
        { filters, containerIds: container_ids, sort, page: { limit, offset } },
        lazySerializer<InsightSummary>(reply, RuntimeInsightSummarySchema),
      );
      return sendJsonJoined(reply, parts);
    },
  );

  app.get(
    '/accounts/:account_id/container_runtime_insights/http_requests',
    {
      schema: {
        tags,
        summary: 'HTTP request observations, most recently seen first (offset list)',
        params: AccountParams,
        querystring: HttpObservationListQuery,
        response: { 200: HttpObservationList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { limit = 100, offset = 0, cluster_ids, q, filters } = request.query;
      const page = await services.runtimeHttpObservations.list(actorOf(request), request.params.account_id, {
        clusterIds: cluster_ids,
        q,
        filters,
        page: { limit, offset },
      });
      return sendJsonJoined(reply, page);
    },
  );

  app.get(
    '/accounts/:account_id/container_runtime_insights/:id',
    {
      schema: {
        tags,
        summary: 'One runtime insight with its baseline and ongoing fingerprints',
        params: InsightParams,
        querystring: InsightQuery,
        response: { 200: RuntimeInsightSchema, ...authenticatedErrors() },
      },
    },
    async (request) =>
      services.runtimeInsights.get(actorOf(request), request.params.account_id, request.params.id, {
        childrenLimit: request.query.children_limit,
        mostRecentLimit: request.query.most_recent_limit,
      }),
  );

  app.get(
    '/accounts/:account_id/container_runtime_latest_baseline_fingerprints',
    {
      schema: {
        tags,
        summary: 'The captured baseline of each workload container (page list)',
        params: AccountParams,
        querystring: BaselineListQuery,
        response: { 200: BaselineList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { page = 1, page_size = 50, filters, q, sort, children_limit } = request.query;
      const parts = await services.runtimeBaselines.listLatest(
        actorOf(request),
        request.params.account_id,
        { filters, q, sort, childrenLimit: children_limit, page: { page, pageSize: page_size } },
        lazySerializer<BaselineEntry>(reply, BaselineEntrySchema),
      );
      return sendJsonPieces(reply, parts);
    },
  );

  app.get(
    '/accounts/:account_id/runtime_settings',
    {
      schema: {
        tags,
        summary: 'Runtime settings of the account: learning window and trusted IP prefixes',
        params: AccountParams,
        response: { 200: RuntimeSettingsSchema, ...authenticatedErrors() },
      },
    },
    async (request) => services.runtimeSettings.get(actorOf(request), request.params.account_id),
  );

  app.put(
    '/accounts/:account_id/runtime_settings',
    {
      schema: {
        tags,
        summary: 'Replace the runtime settings of the account (admin)',
        params: AccountParams,
        body: RuntimeSettingsBody,
        response: { 200: RuntimeSettingsSchema, ...authenticatedErrors(413, 415) },
      },
    },
    async (request) =>
      services.runtimeSettings.put(actorOf(request), request.params.account_id, request.body),
  );
}
