/**
 * Builds the Actor of every request from its session token, taken from `Authorization: Bearer`
 * or, for existing clients of this API, the `ory_kratos_session` cookie. Routes opt out with
 * `config: { public: true }`. Runs at onRequest, before the body is read: an unauthenticated
 * caller learns nothing about what its request would have done.
 *
 * The hooks are attached to each route that is not public, as it is registered, rather than to
 * every request: a public route and a 404 run none of this, and an authenticated one does not ask
 * Fastify for its route options (a new object per call) to find out. They are callback hooks, so
 * a token of the session cache (docs/auth.md) is admitted without a promise or a microtask
 * (docs/performance.md, "Fix 5", "Third pass").
 */
import { fastifyCookie } from '@fastify/cookie';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteOptions,
} from 'fastify';
import { type DataScope, scopeOfActor, withScope, withSystemScope } from '../db/scope.js';
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
  // Parsed here, as @fastify/cookie parses it (only the console's routes register the plugin):
  // most requests carry a bearer header and no cookie, and pay nothing for cookies.
  const cookies = request.headers.cookie;
  if (!cookies) return undefined;
  return fastifyCookie.parse(cookies)[SESSION_COOKIE] || undefined;
}

/** The authenticated caller; only routes that are not public may ask. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new ApiError('unauthenticated');
  return request.actor;
}

/** Methods whose requests Fastify never reads a body for (its own list). */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE']);

type Hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

const asList = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

export function registerAuthHook(
  app: FastifyInstance,
  auth: Pick<AuthService, 'cachedActor' | 'actorForToken'>,
): void {
  app.decorateRequest('actor', null);

  // Cached Actors are shared and frozen (modules/auth/service.ts), so their scope is too.
  const scopes = new WeakMap<Actor, DataScope>();
  const scopeOf = (actor: Actor): DataScope => {
    let scope = scopes.get(actor);
    if (!scope) {
      scope = scopeOfActor(actor);
      scopes.set(actor, scope);
    }
    return scope;
  };

  // Every later hook and the handler run in the caller's data scope (row-level security,
  // src/db/scope.ts): `done`, and all that follows it, runs inside.
  function admit(request: FastifyRequest, actor: Actor, done: HookHandlerDoneFunction): void {
    request.actor = actor;
    // A cookie rides along on forged requests; a bearer header never does (see csrf.ts).
    if (!request.headers.authorization) {
      try {
        refuseForgedCookieWrite(request);
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    withScope(scopeOf(actor), done);
  }

  const authenticate: Hook = (request, _reply, done) => {
    const token = sessionToken(request);
    if (!token) {
      done(new ApiError('unauthenticated'));
      return;
    }
    const cached = auth.cachedActor(token);
    if (cached) {
      admit(request, cached, done);
      return;
    }
    // The session is looked up before its tenant is known: no caller's scope yet.
    withSystemScope(() => auth.actorForToken(token)).then((actor) => admit(request, actor, done), done);
  };

  // Entered again for the handler of a route that reads a body: reading it continues in the
  // socket's async context, not in ours (the first entry covers preParsing, where ingestion
  // authorizes before reading the body). A route without a body stays in the first scope.
  const reenterCallerScope: Hook = (request, _reply, done) => {
    if (request.actor) withScope(scopeOf(request.actor), done);
    else done();
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.public) return;
    // First, before the route's own hooks (the rate limiter's among them), as a global hook was.
    route.onRequest = [authenticate, ...asList(route.onRequest)];
    const methods = asList(route.method);
    if (methods.some((method) => !BODYLESS_METHODS.has(method))) {
      route.preHandler = [reenterCallerScope, ...asList(route.preHandler)];
    }
  });
}
