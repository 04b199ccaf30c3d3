/**
 * An API answer that was not a success, as the person should read it: the server's message and
 * code, one line per invalid field, and the request id to quote when reporting a problem.
 */
export interface ValidationDetail {
  code: string;
  field: string;
  message: string;
  param?: string;
}

export class ApiRequestError extends Error {
  constructor(
    /** 0 when the server could not be reached */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: ValidationDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }

  /** The session is gone: the person has to sign in again. */
  get endsSession(): boolean {
    return this.status === 401 && (this.code === 'unauthenticated' || this.code === 'token_expired');
  }
}

interface ErrorBody {
  status?: number;
  code?: string;
  message?: string;
  request_id?: string;
  validation_details?: ValidationDetail[];
}

const FALLBACK_MESSAGES: Record<number, string> = {
  0: 'The server cannot be reached. Check your connection and try again.',
  403: 'Your role does not allow this.',
  404: 'Not found, or not visible to your access key.',
  429: 'Too many requests. Wait a moment and try again.',
  500: 'The server failed to answer. Try again; quote the request id if it persists.',
  503: 'The service is temporarily unavailable.',
};

export async function errorFromResponse(response: Response): Promise<ApiRequestError> {
  let body: ErrorBody = {};
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    // Not JSON (a proxy's error page): keep the status and the header's request id.
  }
  const message =
    body.message ?? FALLBACK_MESSAGES[response.status] ?? `Request failed (${response.status}).`;
  return new ApiRequestError(
    response.status,
    body.code ?? `http_${response.status}`,
    message,
    body.request_id ?? response.headers.get('x-request-id'),
    body.validation_details ?? [],
  );
}

export function unreachable(cause: unknown): ApiRequestError {
  const error = new ApiRequestError(0, 'network', FALLBACK_MESSAGES[0] ?? 'Network error', null);
  error.cause = cause;
  return error;
}
