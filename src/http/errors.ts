/**
 * The one error vocabulary of the API: a closed set of codes, each with its HTTP status, and the
 * description's error body `{status, code, request_id, validation_details}` (DESIGN.md section 5).
 *
 * @example
 *   throw new ApiError('not_found');
 *   throw ApiError.validation([{ code: 'out_of_range', field: 'page_size', message: 'must be <= 1000' }]);
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  bad_request: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  token_expired: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const VALIDATION_CODES = [
  'required',
  'invalid_type',
  'invalid_format',
  'out_of_range',
  'invalid_value',
  'unknown_field',
] as const;
export type ValidationCode = (typeof VALIDATION_CODES)[number];

export interface ValidationDetail {
  code: ValidationCode;
  /** The body path (`roles[0].level`) or the parameter name (`page_size`). */
  field: string;
  message: string;
  /** Where the field was: `body`, `query`, `path` or `header`. */
  param?: string;
}

const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  validation_failed: 'the request is not valid',
  bad_request: 'the request cannot be processed',
  unauthenticated: 'a valid session token is required',
  invalid_credentials: 'the access key id or secret key is wrong',
  token_expired: 'the session token has expired; authenticate again',
  forbidden: 'your role does not allow this operation',
  not_found: 'not found',
  method_not_allowed: 'this method is not allowed on this path',
  not_acceptable: 'none of the accepted media types can be produced',
  conflict: 'the request conflicts with the current state',
  payload_too_large: 'the request body is too large',
  unsupported_media_type: 'the request content type is not supported',
  rate_limited: 'too many requests; retry later',
  internal: 'internal error',
  unavailable: 'the service is temporarily unavailable',
};

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string = DEFAULT_MESSAGES[code],
    readonly validationDetails: ValidationDetail[] = [],
    /** Extra response headers, e.g. Retry-After on 429, Allow on 405. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static validation(details: ValidationDetail[], message = DEFAULT_MESSAGES.validation_failed): ApiError {
    return new ApiError('validation_failed', message, details);
  }

  /** One bad query or path parameter. */
  static invalidParam(field: string, code: ValidationCode, message: string, param = 'query'): ApiError {
    return ApiError.validation([{ code, field, message, param }]);
  }
}

export interface ErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
  request_id: string;
  validation_details?: ValidationDetail[];
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    status: error.status,
    code: error.code,
    message: error.message,
    request_id: requestId,
    ...(error.validationDetails.length > 0 ? { validation_details: error.validationDetails } : {}),
  };
}
