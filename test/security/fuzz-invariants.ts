/**
 * What every fuzzed answer must satisfy, whatever was sent: no 5xx; an error is the description's
 * ApiError (`status` equal to the HTTP status, a `code` of the closed list that maps to that
 * status, a message, validation details with known codes) with the `x-request-id` header's value
 * as `request_id`. 2xx bodies are validated against /openapi.json by the harness itself.
 */
import { ERROR_STATUS, type ErrorCode, VALIDATION_CODES } from '../../src/http/errors.js';
import type { TestResponse } from '../support/harness.js';

const VALIDATION = new Set<string>(VALIDATION_CODES);

/** The broken invariants of one answer (empty when it is fine). */
export function brokenInvariants(res: TestResponse): string[] {
  const broken: string[] = [];
  if (res.status >= 500) broken.push(`server error ${res.status}`);
  if (res.status < 400) return broken;
  const requestId = res.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId.length === 0) broken.push('no x-request-id header');
  const contentType = String(res.headers['content-type'] ?? '');
  if (!contentType.startsWith('application/json')) broken.push(`error content-type ${contentType}`);
  const body = res.body;
  if (!body || typeof body !== 'object') return [...broken, 'error body is not a JSON object'];
  if (body.status !== res.status) broken.push(`body status ${body.status}`);
  const code = body.code as ErrorCode;
  if (!(code in ERROR_STATUS)) broken.push(`code ${code} is not in the closed list`);
  else if (ERROR_STATUS[code] !== res.status) broken.push(`code ${code} is not a ${res.status}`);
  if (typeof body.message !== 'string' || body.message.length === 0) broken.push('no message');
  if (body.request_id !== requestId)
    broken.push(`request_id ${body.request_id} is not the header's ${requestId}`);
  for (const detail of body.validation_details ?? []) {
    if (!VALIDATION.has(detail.code)) broken.push(`validation code ${detail.code}`);
    if (typeof detail.field !== 'string' || typeof detail.message !== 'string')
      broken.push('validation detail shape');
  }
  return broken;
}
