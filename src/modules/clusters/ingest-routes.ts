/**
 * The Kubernetes ingestion endpoint. Registered in its own scope: its body is read as raw bytes
 * (up to 64 MiB, any content type) and the format is detected from the content.
 */
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import { INGEST_BODY_LIMIT } from '../../ingest/body.js';
import {
  KubernetesPushBody,
  KubernetesPushHeaders,
  KubernetesPushQuery,
  KubernetesPushResult,
} from './ingest-schemas.js';
import type { KubernetesIngestService } from './ingest-service.js';
import { ClusterParams } from './schemas.js';

export async function kubernetesIngestRoutes(
  app: Api,
  { kubernetesIngest }: { kubernetesIngest: KubernetesIngestService },
): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/accounts/:account_id/clusters/:cluster_id/ingest/kubernetes',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      // Up to 64 MiB is worth refusing before it is read: 404/403 come before the body.
      preParsing: async (request) => {
        const { account_id, cluster_id } = request.params as { account_id: string; cluster_id: string };
        await kubernetesIngest.authorize(actorOf(request), account_id, cluster_id);
      },
      schema: {
        tags: ['ingestion'],
        summary: 'Push Kubernetes objects of a cluster (editor); see docs/kubernetes-ingestion.md',
        params: ClusterParams,
        querystring: KubernetesPushQuery,
        headers: KubernetesPushHeaders,
        body: KubernetesPushBody,
        response: { 200: KubernetesPushResult, ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { response, replayed } = await kubernetesIngest.ingest(actorOf(request), {
        accountId: request.params.account_id,
        clusterId: request.params.cluster_id,
        body: request.body,
        contentEncoding: request.headers['content-encoding'],
        mode: request.query.mode ?? 'incremental',
        observedAt: request.query.observed_at,
        idempotencyKey: request.headers['idempotency-key'],
      });
      if (replayed) reply.header('idempotent-replayed', 'true');
      return response;
    },
  );
}
