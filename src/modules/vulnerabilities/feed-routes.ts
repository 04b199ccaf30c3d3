/**
 * The feed import endpoint (admins of the operator tenant; see feed-service.ts). Registered in its
 * own scope: the body is read as raw bytes, whatever its content type, and the feed detected
 * from the content.
 */
import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import { INGEST_BODY_LIMIT } from '../../ingest/body.js';
import { FeedImportBody, FeedImportHeaders, FeedImportResultSchema } from './feed-schemas.js';
import type { FeedService } from './feed-service.js';

export async function feedRoutes(app: Api, { feeds }: { feeds: FeedService }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/feeds/import',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      schema: {
        tags: ['feeds'],
        summary: 'Replace the EPSS scores or the KEV catalog shared by every tenant (operator admins)',
        description:
          'Allowed to tenant-level admins of the tenant named by the FEED_ADMIN_TENANT setting. ' +
          'The import replaces the feed atomically: a refused file changes nothing. CVE reports pick ' +
          'the new values on their next read.',
        headers: FeedImportHeaders,
        body: FeedImportBody,
        response: { 200: FeedImportResultSchema, ...authenticatedErrors(413, 415) },
      },
    },
    async (request) =>
      feeds.importFromRequest(actorOf(request), {
        body: request.body,
        contentEncoding: request.headers['content-encoding'],
      }),
  );
}
