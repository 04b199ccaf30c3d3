/**
 * Schemas shared by every route: the error body, the three list envelopes of the description and
 * the common parameters. Route schemas are the single source of validation, types, serialization
 * and the OpenAPI document.
 */
import { type TSchema, Type } from 'typebox';
import { ERROR_STATUS, VALIDATION_CODES } from './errors.js';

export const ValidationDetailSchema = Type.Object({
  code: Type.Enum([...VALIDATION_CODES]),
  field: Type.String(),
  message: Type.String(),
  param: Type.Optional(Type.String()),
});

export const ApiErrorSchema = Type.Object(
  {
    status: Type.Integer(),
    code: Type.Optional(Type.Enum(Object.keys(ERROR_STATUS))),
    message: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
    validation_details: Type.Optional(Type.Array(ValidationDetailSchema)),
  },
  { description: 'Error body (ApiError). `request_id` equals the x-request-id response header.' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failed: one validation detail per offending field',
  401: 'Missing, unknown or expired session token (unauthenticated, token_expired)',
  403: 'Visible object, but the caller role is too low (forbidden)',
  404: 'Not found, or outside the caller scope (not_found)',
  406: 'Unsupported Accept header (not_acceptable)',
  409: 'Conflicts with the current state (conflict)',
  413: 'Body too large (payload_too_large)',
  415: 'Unsupported content type (unsupported_media_type)',
  429: 'Rate limited; see Retry-After (rate_limited)',
  500: 'Internal error (internal)',
  503: 'Database unavailable (unavailable)',
};

/** Error responses for a route's schema: `...errorResponses(400, 404)`. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { ...ApiErrorSchema, description: ERROR_DESCRIPTIONS[status] ?? 'Error' },
    ]),
  );
}

/**
 * What any authenticated route can answer besides its own statuses. 413 and 415 included: a client
 * may send a body to any route that is not a GET (a DELETE, a body-less PUT), and Fastify reads it
 * before the handler runs, so a body too large or of a type nobody parses is refused there.
 */
export const AUTHENTICATED_ERRORS = [400, 401, 403, 404, 413, 415, 429, 500, 503] as const;
export const authenticatedErrors = (...extra: number[]) => errorResponses(...AUTHENTICATED_ERRORS, ...extra);

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Id = Type.String({ minLength: 1, maxLength: 200 });

/** Offset list envelope: `entries`, `has_more`, `total_count`. */
export const OffsetList = <T extends TSchema>(entry: T) =>
  Type.Object({ entries: Type.Array(entry), has_more: Type.Boolean(), total_count: Type.Integer() });

/** Page list envelope: `entries`, `page`, `page_count`, `page_size`, `total_count`. */
export const PageList = <T extends TSchema>(entry: T) =>
  Type.Object({
    entries: Type.Array(entry),
    page: Type.Integer(),
    page_count: Type.Integer(),
    page_size: Type.Integer(),
    total_count: Type.Integer(),
  });

/** Tenant offset list envelope: all four fields required. */
export const TenantOffsetList = <T extends TSchema>(entry: T) =>
  Type.Object({
    current_offset: Type.Integer(),
    has_more: Type.Boolean(),
    total_count: Type.Integer(),
    entries: Type.Array(entry),
  });

export const MAX_PAGE_SIZE = 1000;

export const OffsetQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
};

export const pageQuery = (defaultPageSize: number) => ({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'starts at 1' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: defaultPageSize })),
});

export const AccountParams = Type.Object({ account_id: Id });
