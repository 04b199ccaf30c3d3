/**
 * POST /console/session and DELETE /console/session: the console's sign-in and sign-out (and GET,
 * who is signed in). The
 * session token goes into an HttpOnly cookie instead of the body, so no page script ever holds
 * it; the API reads it from there (auth-hook.ts). Both calls need `x-posture-console: 1`, which a
 * page of another origin cannot send: no one can sign a visitor in or out from elsewhere.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { withSystemScope } from '../../db/scope.js';
import { type Actor, roleOnAccount, roleOnTenant } from '../../http/actor.js';
import type { Api } from '../../http/api.js';
import { actorOf, SESSION_COOKIE } from '../../http/auth-hook.js';
import { CONSOLE_HEADER, hasConsoleHeader } from '../../http/csrf.js';
import { ApiError } from '../../http/errors.js';
import { authenticatedErrors, errorResponses } from '../../http/schemas.js';
import { SessionRequest } from '../auth/schemas.js';
import { sessionCookieOptions } from './session-cookie.js';
import { ConsoleCaller, ConsoleHeaders, ConsoleSessionResponse } from './session-schemas.js';
import type { ConsoleSessionService } from './session-service.js';

/** Runs before the body is read: a forged request learns nothing and costs nothing. */
async function requireConsoleHeader(request: FastifyRequest): Promise<void> {
  if (!hasConsoleHeader(request)) {
    throw new ApiError('forbidden', `only the Posture console may call this (send ${CONSOLE_HEADER}: 1)`);
  }
}

const secure = (request: FastifyRequest) => request.protocol === 'https';

/** The caller's roles as its key narrows them (actor.ts does the arithmetic). */
function callerOf(actor: Actor) {
  const accountIds = new Set(
    actor.assignments.flatMap((a) => (a.level === 'account' && a.accountId ? [a.accountId] : [])),
  );
  if (actor.keyAccountId) accountIds.add(actor.keyAccountId);
  const tenantRole = roleOnTenant(actor);
  const accountRoles = [...accountIds].sort().flatMap((accountId) => {
    const role = roleOnAccount(actor, accountId);
    // A tenant-scoped key's tenant role already covers every account: list only what adds to it.
    return role && (actor.keyScope === 'account' || role !== tenantRole)
      ? [{ account_id: accountId, role }]
      : [];
  });
  return {
    tenant_id: actor.tenantId,
    user_id: actor.userId,
    access_key_id: actor.accessKeyId,
    key_scope: actor.keyScope,
    key_account_id: actor.keyAccountId,
    tenant_role: tenantRole,
    account_roles: accountRoles,
  };
}

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
      // The key is looked up before its tenant is known: the system scope (src/db/scope.ts).
      const signedIn = await withSystemScope(() =>
        sessions.signIn(
          { accessKeyId: request.body.access_key_id, secretKey: request.body.secret_key },
          request.ip,
        ),
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

  app.get(
    '/console/session',
    {
      schema: {
        tags,
        summary: 'Who is signed in: the caller, its key and its roles',
        description:
          'Answers for the session of the cookie or of a Bearer token; the console reads it to offer ' +
          'only the actions the caller may take (the API still checks every call).',
        response: { 200: ConsoleCaller, ...authenticatedErrors() },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return callerOf(actorOf(request));
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
        response: {
          204: Type.Null({ description: 'signed out' }),
          ...errorResponses(400, 403, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      await withSystemScope(() => sessions.signOut(request.cookies[SESSION_COOKIE]));
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions({ secure: secure(request), maxAgeSeconds: 0 }));
      reply.header('cache-control', 'no-store');
      return reply.code(204).send(null);
    },
  );
}
