/**
 * Builds the Actor of every request from its session token, taken from `Authorization: Bearer`
 * or, for existing clients of this API, the `ory_kratos_session` cookie. Routes opt out with
 * `config: { public: true }`. Runs at onRequest, before the body is read: an unauthenticated
 * caller learns nothing about what its request would have done.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { scopeOfActor, withScope, withSystemScope } from '../db/scope.js';
import type { AuthService } from '../modules/auth/service.js';
import type { Actor } from './actor.js';
import { refuseForgedCookieWrite } from './csrf.js';
import { ApiError } from './errors.js';

export const SESSION_COOKIE = 'ory_kratos_session';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No session needed (authenticate, health, docs, console assets). */
    public?: boolean;
  }
  interface FastifyRequest {
    actor: Actor | null;
  }
}

export function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const cookie = request.cookies?.[SESSION_COOKIE];
  return cookie || undefined;
}

/** The authenticated caller; only routes that are not public may ask. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new ApiError('unauthenticated');
  return request.actor;
}

export function registerAuthHook(app: FastifyInstance, auth: Pick<AuthService, 'actorForToken'>): void {
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public || request.is404) return;
    const token = sessionToken(request);
    if (!token) throw new ApiError('unauthenticated');
    // The session is looked up before its tenant is known: no caller's scope yet.
    request.actor = await withSystemScope(() => auth.actorForToken(token));
    // A cookie rides along on forged requests; a bearer header never does (see csrf.ts).
    if (!request.headers.authorization) refuseForgedCookieWrite(request);
  });
  // Every later hook and the handler run in the caller's data scope (row-level security,
  // src/db/scope.ts): callback hooks, so `done`, and all that follows it, runs inside. Entered
  // twice: for preParsing (ingestion authorizes before reading the body), and again for the
  // handler, because reading the body continues in the socket's async context, not in ours.
  const enterCallerScope = (request: FastifyRequest, _reply: unknown, done: () => void) => {
    if (!request.actor) return done();
    withScope(scopeOfActor(request.actor), done);
  };
  app.addHook('onRequest', enterCallerScope);
  app.addHook('preHandler', enterCallerScope);
}
