/**
 * POST /console/session and DELETE /console/session: the console's sign-in and sign-out. The
 * session token goes into an HttpOnly cookie instead of the body, so no page script ever holds
 * it; the API reads it from there (auth-hook.ts). Both calls need `x-posture-console: 1`, which a
 * page of another origin cannot send: no one can sign a visitor in or out from elsewhere.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Api } from '../../http/api.js';
import { SESSION_COOKIE } from '../../http/auth-hook.js';
import { CONSOLE_HEADER, hasConsoleHeader } from '../../http/csrf.js';
import { ApiError } from '../../http/errors.js';
import { errorResponses } from '../../http/schemas.js';
import { SessionRequest } from '../auth/schemas.js';
import { sessionCookieOptions } from './session-cookie.js';
import { ConsoleHeaders, ConsoleSessionResponse } from './session-schemas.js';
import type { ConsoleSessionService } from './session-service.js';

/** Runs before the body is read: a forged request learns nothing and costs nothing. */
async function requireConsoleHeader(request: FastifyRequest): Promise<void> {
  if (!hasConsoleHeader(request)) {
    throw new ApiError('forbidden', `only the Posture console may call this (send ${CONSOLE_HEADER}: 1)`);
  }
}

const secure = (request: FastifyRequest) => request.protocol === 'https';

export function consoleSessionRoutes(app: Api, { sessions }: { sessions: ConsoleSessionService }): void {
  const tags = ['console'];
  const common = { config: { public: true }, onRequest: requireConsoleHeader };

  app.post(
    '/console/session',
    {
      ...common,
      schema: {
        tags,
        summary: 'Console sign-in: exchange an access key for a session kept in an HttpOnly cookie',
        description:
          'Sets `ory_kratos_session` (HttpOnly; SameSite=Strict; Path=/; Secure over https; Max-Age = ' +
          'the session lifetime). Scripts use /authentication/authenticate instead.',
        security: [],
        headers: ConsoleHeaders,
        body: SessionRequest,
        response: { 200: ConsoleSessionResponse, ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const signedIn = await sessions.signIn(
        { accessKeyId: request.body.access_key_id, secretKey: request.body.secret_key },
        request.ip,
      );
      const maxAgeSeconds = (signedIn.expiresAt.getTime() - Date.now()) / 1000;
      reply.setCookie(
        SESSION_COOKIE,
        signedIn.token,
        sessionCookieOptions({ secure: secure(request), maxAgeSeconds }),
      );
      reply.header('cache-control', 'no-store');
      return signedIn.body;
    },
  );

  app.delete(
    '/console/session',
    {
      ...common,
      schema: {
        tags,
        summary: 'Console sign-out: ends the session of the cookie and clears the cookie',
        description: 'Idempotent: answers 204 whether or not the session still existed.',
        security: [],
        headers: ConsoleHeaders,
        response: { 204: Type.Null({ description: 'signed out' }), ...errorResponses(403, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      await sessions.signOut(request.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions({ secure: secure(request), maxAgeSeconds: 0 }));
      reply.header('cache-control', 'no-store');
      return reply.code(204).send(null);
    },
  );
}
