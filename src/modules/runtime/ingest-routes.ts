/**
 * The runtime ingestion endpoint. Registered in its own scope: its body is read as raw bytes (up
 * to 64 MiB, any content type) and parsed as NDJSON by the service.
 */
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import { INGEST_BODY_LIMIT } from '../../ingest/body.js';
import { ClusterParams } from '../clusters/schemas.js';
import { RuntimePushBody, RuntimePushHeaders, RuntimePushResult } from './ingest-schemas.js';
import type { RuntimeServices } from './services.js';

export async function runtimeIngestRoutes(
  app: Api,
  {
    runtimeIngest,
    runtimeLlmQueue,
    runtimeStateCache,
  }: Pick<RuntimeServices, 'runtimeIngest' | 'runtimeLlmQueue' | 'runtimeStateCache'>,
): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
  // LLM analyses still running when the server stops: wait for them, drop the backlog.
  if (runtimeLlmQueue) app.addHook('onClose', async () => runtimeLlmQueue.close());
  app.addHook('onClose', async () => runtimeStateCache.close());

  app.post(
    '/accounts/:account_id/clusters/:cluster_id/ingest/runtime',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      schema: {
        tags: ['ingestion'],
        summary:
          'Push runtime events of a cluster (editor); see docs/runtime-events.md and docs/runtime-api.md',
        params: ClusterParams,
        headers: RuntimePushHeaders,
        body: RuntimePushBody,
        response: { 200: RuntimePushResult, ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { response, replayed } = await runtimeIngest.ingest(
        actorOf(request),
        {
          accountId: request.params.account_id,
          clusterId: request.params.cluster_id,
          body: request.body,
          contentEncoding: request.headers['content-encoding'],
          idempotencyKey: request.headers['idempotency-key'],
        },
        request.log,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return response;
    },
  );
}
