import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import type { Api } from '../../http/api.js';
import { ApiError } from '../../http/errors.js';
import { errorResponses } from '../../http/schemas.js';

const Status = Type.Object({ status: Type.String() });

export function operationsRoutes(app: Api, { db, metrics }: { db: Database; metrics: Registry }): void {
  const common = { config: { public: true }, logLevel: 'warn' as const };
  const tags = ['operations'];

  app.get(
    '/healthz',
    { ...common, schema: { tags, summary: 'The process is up', security: [], response: { 200: Status } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      ...common,
      schema: {
        tags,
        summary: 'The database answers',
        security: [],
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => {
      try {
        await db.ping();
      } catch {
        throw new ApiError('unavailable', 'the database is not reachable');
      }
      return { status: 'ready' };
    },
  );

  app.get(
    '/metrics',
    {
      ...common,
      schema: {
        tags,
        summary: 'Prometheus metrics',
        security: [],
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'Prometheus text exposition format' }) },
      },
    },
    async (_request, reply) => {
      reply.type(metrics.contentType);
      return metrics.metrics();
    },
  );
}
