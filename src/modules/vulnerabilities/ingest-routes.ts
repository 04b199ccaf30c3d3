/**
 * The scan ingestion endpoint. Registered in its own scope: its body is read as raw bytes (up to
 * 64 MiB, any content type) and the report format is detected from the content.
 */
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import { INGEST_BODY_LIMIT } from '../../ingest/body.js';
import { ClusterParams } from '../clusters/schemas.js';
import { ScanPushBody, ScanPushHeaders, ScanPushResult } from './ingest-schemas.js';
import type { VulnerabilityIngestService } from './ingest-service.js';

export async function vulnerabilityIngestRoutes(
  app: Api,
  { vulnerabilityIngest }: { vulnerabilityIngest: VulnerabilityIngestService },
): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/accounts/:account_id/clusters/:cluster_id/ingest/vulnerabilities',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      schema: {
        tags: ['ingestion'],
        summary: 'Push an image scan report (editor); see docs/vulnerabilities-api.md',
        description:
          'A newer scan of the same image (same registry digest) replaces the findings of the older ' +
          'one. A refused report answers 400 naming the format recognised and the field at fault; ' +
          'nothing is stored from it.',
        params: ClusterParams,
        headers: ScanPushHeaders,
        body: ScanPushBody,
        response: { 200: ScanPushResult, ...authenticatedErrors(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { response, replayed } = await vulnerabilityIngest.ingest(actorOf(request), {
        accountId: request.params.account_id,
        clusterId: request.params.cluster_id,
        body: request.body,
        contentEncoding: request.headers['content-encoding'],
        idempotencyKey: request.headers['idempotency-key'],
      });
      if (replayed) reply.header('idempotent-replayed', 'true');
      return response;
    },
  );
}
