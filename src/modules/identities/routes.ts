import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { lazySerializer, sendJsonParts, sendJsonText } from '../../http/json-text.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import type { ApiIdentity } from './mapping.js';
import {
  FilterOptionsSchema,
  IdentitiesReportSchema,
  IdentityList,
  IdentityListQuery,
  IdentityParams,
  IdentityRiskParams,
  IdentitySchema,
  RiskList,
  RiskPageQuery,
} from './schemas.js';
import type { IdentityService } from './service.js';

/** Identities (#14-#18); docs/identities-api.md. */
export function identityRoutes(app: Api, { identities }: { identities: IdentityService }): void {
  const tags = ['identities'];

  app.get(
    '/accounts/:account_id/identities',
    {
      schema: {
        tags,
        summary: 'Identities of an account with their risks (page list; default sort risk_score:desc)',
        params: AccountParams,
        querystring: IdentityListQuery,
        response: { 200: IdentityList, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { page = 1, page_size = 50, ...query } = request.query;
      const parts = await identities.list(
        actorOf(request),
        request.params.account_id,
        { ...query, page: { page, pageSize: page_size } },
        lazySerializer<ApiIdentity>(reply, IdentitySchema),
      );
      return sendJsonParts(reply, parts);
    },
  );

  app.get(
    '/accounts/:account_id/identities/filters',
    {
      schema: {
        tags,
        summary: 'The values each identities filter can take in this account',
        params: AccountParams,
        response: { 200: FilterOptionsSchema, ...authenticatedErrors() },
      },
    },
    async (request) => identities.filterOptions(actorOf(request), request.params.account_id),
  );

  app.get(
    '/accounts/:account_id/identities/reports/latest',
    {
      schema: {
        tags,
        summary: 'The latest identities report (zeroed for an account without identities yet)',
        params: AccountParams,
        response: { 200: IdentitiesReportSchema, ...authenticatedErrors() },
      },
    },
    async (request) => identities.latestReport(actorOf(request), request.params.account_id),
  );

  app.get(
    '/accounts/:account_id/identities/:identity_id',
    {
      schema: {
        tags,
        summary: 'One identity',
        params: IdentityParams,
        response: { 200: IdentitySchema, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      const { account_id, identity_id } = request.params;
      const body = await identities.get(
        actorOf(request),
        account_id,
        identity_id,
        lazySerializer<ApiIdentity>(reply, IdentitySchema),
      );
      return sendJsonText(reply, body);
    },
  );

  app.get(
    '/accounts/:account_id/identities/:identity_id/risks/:risk_type',
    {
      schema: {
        tags,
        summary: 'The risks of one type of an identity, open first (page list)',
        params: IdentityRiskParams,
        querystring: RiskPageQuery,
        response: { 200: RiskList, ...authenticatedErrors() },
      },
    },
    async (request) => {
      const { page = 1, page_size = 50 } = request.query;
      const { account_id, identity_id, risk_type } = request.params;
      return identities.risks(actorOf(request), account_id, identity_id, risk_type, {
        page,
        pageSize: page_size,
      });
    },
  );
}
