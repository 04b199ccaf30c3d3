/**
 * Every non-2xx answer goes through here, so every error body is the description's ApiError with
 * the request id of its `x-request-id` header. Unexpected errors become a generic 500; their
 * details go to the log only.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import findMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError, ERROR_STATUS, type ErrorCode, errorBody } from './errors.js';
import { isDatabaseUnavailable } from './unavailable.js';
import { toValidationDetails } from './validation.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation_failed',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation_failed',
  FST_ERR_BAD_STATUS_CODE: 'internal',
};

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  (Object.entries(ERROR_STATUS) as [ErrorCode, number][]).reverse().map(([code, status]) => [status, code]),
);

/**
 * PostgreSQL cannot store the NUL character: in text it is SQLSTATE 22021, as a `\u0000` escape
 * in jsonb 22P05 (both engines). Only client input carries one (a query parameter, a body field,
 * an ingested object), so it is the client's 400, not a 500; the statement fails, so nothing is
 * stored.
 */
const isUnstorableText = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
};

/**
 * A write the row-level security policies refused (SQLSTATE 42501, "new row violates row-level
 * security policy"): the row is outside the caller's scope, so 404 as for any object out of scope.
 * The services check scope first, so reaching the wall is logged as a warning (docs/security.md).
 */
export const isRowLevelSecurityRefusal = (error: unknown): boolean => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '42501' && typeof message === 'string' && message.includes('row-level security');
};

function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    // A path segment longer than any id or name can be names nothing: 404, as for any unknown id.
    if (error.validationContext === 'params' && error.validation.every((e) => e.keyword === 'maxLength')) {
      return new ApiError('not_found');
    }
    return ApiError.validation(toValidationDetails(error.validation, error.validationContext ?? 'body'));
  }
  const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (mapped === 'validation_failed') {
    // Malformed JSON: say so, with the body as the offending field.
    return ApiError.validation([
      { code: 'invalid_format', field: 'body', message: 'is not valid JSON', param: 'body' },
    ]);
  }
  if (mapped) return new ApiError(mapped);
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return ApiError.validation([
      { code: 'invalid_format', field: 'body', message: 'is not valid JSON', param: 'body' },
    ]);
  }
  if (isUnstorableText(error)) {
    return new ApiError('bad_request', 'text values must not contain the NUL character (U+0000)');
  }
  if (isDatabaseUnavailable(error)) return new ApiError('unavailable');
  if (isRowLevelSecurityRefusal(error)) return new ApiError('not_found');
  const status = error.statusCode ?? 500;
  const code = status >= 400 && status < 500 ? CODE_BY_STATUS.get(status) : undefined;
  return code ? new ApiError(code) : new ApiError('internal');
}

/**
 * Errors Fastify answers before routing, through its `frameworkErrors` option: a path parameter
 * longer than any id (which names nothing, so the same 404 as a garbage id) and a URL whose
 * percent-encoding is broken.
 */
export function sendFrameworkError(reply: FastifyReply, error: FastifyError): FastifyReply {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendError(reply, new ApiError('not_found'));
  if (error.code === 'FST_ERR_BAD_URL') {
    return sendError(reply, new ApiError('bad_request', 'the URL is not validly percent-encoded'));
  }
  return sendError(reply, toApiError(error));
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, String(reply.request.id)));
}

/** Registers the error and not-found handlers. Call before any route is added (it watches them). */
export function registerErrorHandling(app: FastifyInstance): void {
  // A second router holding every route, to tell 405 (path exists, other method) from 404.
  const knownRoutes = findMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || knownRoutes.hasRoute(method as HTTPMethod, route.url)) continue;
      knownRoutes.on(method as HTTPMethod, route.url, () => undefined);
    }
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else if (isRowLevelSecurityRefusal(error)) {
      request.log.warn({ err: error }, 'write refused by row-level security: the service let it through');
    } else {
      request.log.info({ code: apiError.code }, apiError.message);
    }
    return sendError(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter(
      (method) => method !== request.method && knownRoutes.find(method, path) !== null,
    );
    if (allowed.length > 0) {
      return sendError(
        reply,
        new ApiError('method_not_allowed', undefined, [], { allow: allowed.join(', ') }),
      );
    }
    return sendError(reply, new ApiError('not_found', `no route ${request.method} ${path}`));
  });
}
