import type { FastifyReply } from 'fastify';
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { AccountParams, authenticatedErrors } from '../../http/schemas.js';
import { textPartsStream } from '../../http/text-parts-stream.js';
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
import type { IdentityService, SerializeIdentity } from './service.js';

/**
 * The response schema's serializer of one identity (compiled once per route by Fastify), for
 * identities stored without their cached API text.
 */
const identitySerializer = (reply: FastifyReply): SerializeIdentity => {
  let serialize: ((identity: Record<string, unknown>) => string) | undefined;
  // the same schema object every time: Fastify caches the compiled serializer by it
  return (identity) => {
    serialize ??= reply.compileSerializationSchema(IdentitySchema as unknown as Record<string, unknown>);
    return serialize(identity);
  };
};

/**
 * #14 and #16 answer JSON text assembled from the stored identities' cached text
 * (identity-json.ts). Fastify sends a string or a stream with a JSON content type as it is, without the
 * response schema's serializer; the schema stays declared for the OpenAPI document and for the
 * tests that validate these bodies against it.
 */
function sendJsonText(reply: FastifyReply, text: string) {
  return reply.type('application/json; charset=utf-8').send(text);
}

/** A page of identities is streamed part by part instead (text-parts-stream.ts). */
function sendJsonParts(reply: FastifyReply, parts: string[]) {
  return reply.type('application/json; charset=utf-8').send(textPartsStream(parts));
}

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
        identitySerializer(reply),
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
      const body = await identities.get(actorOf(request), account_id, identity_id, identitySerializer(reply));
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
