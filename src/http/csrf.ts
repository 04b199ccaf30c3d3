/**
 * Cross-site request forgery guard for sessions carried by the `ory_kratos_session` cookie.
 *
 * A browser attaches that cookie to every request it sends to this origin. The console sets it
 * SameSite=Strict, which keeps it off requests started by other sites, but not off requests from
 * a sibling host of the same site (another app on a subdomain), and older clients may have set the
 * cookie without the attribute. So a state-changing request authenticated by the cookie that comes
 * from a browser must carry `x-posture-console: 1`: a page of another origin cannot add a custom
 * header without a CORS preflight, and this server grants none. Non-browser clients that replay
 * the cookie (existing scripts of this API) send neither `Origin` nor `Sec-Fetch-Site` and are
 * left alone: they are not a CSRF vector, since they hold the token themselves.
 *
 * @example
 *   fetch('/accounts/access_keys/pak_x/revoke', { method: 'PUT', headers: { 'x-posture-console': '1' } });
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

export const CONSOLE_HEADER = 'x-posture-console';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every current browser sends one of these on a state-changing request (Fetch metadata, CORS). */
function sentByBrowser(request: FastifyRequest): boolean {
  return request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined;
}

export function hasConsoleHeader(request: FastifyRequest): boolean {
  return request.headers[CONSOLE_HEADER] === '1';
}

/** Throws 403 for a cookie-authenticated browser write that lacks the console header. */
export function refuseForgedCookieWrite(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method) || !sentByBrowser(request) || hasConsoleHeader(request)) return;
  throw new ApiError(
    'forbidden',
    `a browser session may change data only from the Posture console (the ${CONSOLE_HEADER} header is missing)`,
  );
}
