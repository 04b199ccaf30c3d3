/**
 * buildApp(deps): the whole HTTP API as a Fastify instance, with no listening socket. The server,
 * the CLI's tools and every test build it the same way.
 *
 * @example
 *   const app = await buildApp({ config, db, pepper });
 *   const res = await app.inject({ method: 'GET', url: '/healthz' });
 */
import { randomUUID } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Api } from './http/api.js';
import { registerAuthHook, sessionToken } from './http/auth-hook.js';
import { registerErrorHandling, sendFrameworkError } from './http/error-handler.js';
import { buildRequestValidator } from './http/request-validation.js';
import { buildResponseSerializer } from './http/response-serialization.js';
import { accessKeyRoutes } from './modules/access-keys/routes.js';
import { accountRoutes } from './modules/accounts/routes.js';
import { authRoutes } from './modules/auth/routes.js';
import { clusterActionRoutes } from './modules/cluster-actions/routes.js';
import { kubernetesIngestRoutes } from './modules/clusters/ingest-routes.js';
import { clusterRoutes } from './modules/clusters/routes.js';
import { consolePlugin } from './modules/console/plugin.js';
import { findingRoutes } from './modules/findings/routes.js';
import { identityRoutes } from './modules/identities/routes.js';
import { registerDeliveryWorker } from './modules/integrations/delivery-worker.js';
import { integrationRoutes } from './modules/integrations/routes.js';
import { inventoryContainerRoutes } from './modules/inventory-containers/routes.js';
import { knowledgeBaseRoutes } from './modules/knowledge-base/routes.js';
import { createMetrics } from './modules/operations/metrics.js';
import { operationsRoutes } from './modules/operations/routes.js';
import { rbacRoutes } from './modules/rbac/routes.js';
import { registryRoutes } from './modules/registries/routes.js';
import { resourceRoutes } from './modules/resources/routes.js';
import { runtimeIngestRoutes } from './modules/runtime/ingest-routes.js';
import { runtimeRoutes } from './modules/runtime/routes.js';
import { registerWindowSweep } from './modules/runtime/window-sweep.js';
import { userRoutes } from './modules/users/routes.js';
import { feedRoutes } from './modules/vulnerabilities/feed-routes.js';
import { vulnerabilityIngestRoutes } from './modules/vulnerabilities/ingest-routes.js';
import { vulnerabilityRoutes } from './modules/vulnerabilities/routes.js';
import { tokenDigest } from './security/secrets.js';
import { createServices, type Services } from './services.js';

export const API_VERSION = '0.0.21';
const JSON_BODY_LIMIT = 1024 * 1024;

export interface AppDeps {
  config: Config;
  db: Database;
  pepper: string;
}

/** An empty query parameter (`q=`) means "not given": existing clients send them empty. */
function parseQueryDroppingEmpty(text: string): Record<string, string | string[]> {
  // Most requests have no query string; this runs on every one of them (docs/performance.md).
  if (text === '') return Object.create(null);
  const parsed = parseQuery(text) as Record<string, string | string[]>;
  for (const [key, value] of Object.entries(parsed)) {
    if (value === '') delete parsed[key];
    else if (Array.isArray(value)) {
      const kept = value.filter((item) => item !== '');
      if (kept.length === 0) delete parsed[key];
      else parsed[key] = kept.length === 1 ? (kept[0] as string) : kept;
    }
  }
  return parsed;
}

/** Every response, errors included, names its request and the API version. */
function stampResponseHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('x-api-version', API_VERSION);
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance & { services: Services }> {
  const { config, db } = deps;
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
        censor: '[redacted]',
      },
    },
    genReqId: () => randomUUID(),
    bodyLimit: JSON_BODY_LIMIT,
    // While the server drains on shutdown, a request arriving on a connection that was busy is
    // still answered (with `Connection: close`; the database closes only after the drain), rather
    // than with Fastify's own 503 body, which is not the API's error envelope.
    return503OnClosing: false,
    routerOptions: {
      querystringParser: parseQueryDroppingEmpty,
      // find-my-way's default (100 characters) would answer 404 to a path naming an object whose
      // id or name is longer (ids up to 200, collection names up to 128, percent-encoded up to 3x):
      // such a request must reach its route, its authentication and its validation.
      maxParamLength: 1024,
    },
    schemaController: {
      compilersFactory: {
        buildValidator: buildRequestValidator as never,
        buildSerializer: buildResponseSerializer,
      },
    },
    // Raised before routing, so no hook has run: stamp the headers here too.
    frameworkErrors: (error, request, reply) => {
      stampResponseHeaders(request, reply);
      sendFrameworkError(reply, error);
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as Api;
  // Routes take JSON bodies (a few add their own parsers); Fastify's default text/plain parser
  // would hand a JSON route a string and turn a 415 into a confusing 400.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', (request, reply, done) => {
    stampResponseHeaders(request, reply);
    done();
  });
  registerErrorHandling(app);
  // The API reference is public, like /openapi.json: it shows the contract, never data. Before
  // the auth hook, which leaves public routes alone as they are registered.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, public: true };
  });

  const services = createServices(deps);
  if (config.RATE_LIMIT_PER_MINUTE > 0) {
    await app.register(rateLimit, {
      max: config.RATE_LIMIT_PER_MINUTE,
      timeWindow: 60_000,
      enableDraftSpec: true,
      // Per session token (hashed, so the limiter never holds a credential); per address otherwise.
      keyGenerator: (request) => {
        const token = sessionToken(request);
        return token ? `t:${tokenDigest(token)}` : `a:${request.ip}`;
      },
      allowList: (request) => request.routeOptions.config?.public === true && request.method === 'GET',
    });
  }
  registerAuthHook(app, services.auth);
  const metrics = createMetrics(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Posture API',
        version: API_VERSION,
        description:
          'Security posture of Kubernetes clusters. Authenticate with an access key at ' +
          '/authentication/authenticate and send the token as `Authorization: Bearer <token>`.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          session_cookie: { type: 'apiKey', in: 'cookie', name: 'ory_kratos_session' },
        },
      },
      security: [{ bearer: [] }, { session_cookie: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  await app.register(async (scope) => authRoutes(scope as Api, services));
  operationsRoutes(app, { db, metrics });
  accountRoutes(app, services);
  accessKeyRoutes(app, services);
  userRoutes(app, services);
  clusterRoutes(app, services);
  await app.register(async (scope) => kubernetesIngestRoutes(scope as Api, services));
  resourceRoutes(app, services);
  inventoryContainerRoutes(app, services);
  registryRoutes(app, services);
  clusterActionRoutes(app, services);
  identityRoutes(app, services);
  rbacRoutes(app, services);
  runtimeRoutes(app, services);
  await app.register(async (scope) => runtimeIngestRoutes(scope as Api, services));
  vulnerabilityRoutes(app, services);
  await app.register(async (scope) => vulnerabilityIngestRoutes(scope as Api, services));
  await app.register(async (scope) => feedRoutes(scope as Api, services));
  findingRoutes(app, services);
  integrationRoutes(app, services);
  knowledgeBaseRoutes(app, services);
  registerDeliveryWorker(app, services.integrationDeliveries);
  registerWindowSweep(app, services.runtimeWindowSweep);
  await app.register(async (scope) => consolePlugin(scope as Api, { db, auth: services.auth }));

  return Object.assign(app as unknown as FastifyInstance, { services });
}
