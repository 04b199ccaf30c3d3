/**
 * The console's session cookie. It carries the same opaque token as `Authorization: Bearer`, under
 * the name the API already reads (`ory_kratos_session`), and is never readable by page scripts.
 */
import type { CookieSerializeOptions } from '@fastify/cookie';

/**
 * HttpOnly: page scripts (and so an injected script) cannot read the token. SameSite=Strict: no
 * other site's page makes the browser send it. Secure only over https, so that
 * http://127.0.0.1:8080 still works for a local start.
 */
export function sessionCookieOptions(options: {
  secure: boolean;
  maxAgeSeconds: number;
}): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: options.secure,
    maxAge: Math.max(0, Math.floor(options.maxAgeSeconds)),
  };
}
