import { withSystemScope } from '../../db/scope.js';
import type { Api } from '../../http/api.js';
import { errorResponses } from '../../http/schemas.js';
import { SessionRequest, SessionResponse } from './schemas.js';
import type { AuthService } from './service.js';

/** Endpoint #1. Encapsulated: its body parsers accept JSON whatever the content type says. */
export async function authRoutes(app: Api, { auth }: { auth: AuthService }): Promise<void> {
  // `curl -d '{...}'` sends application/x-www-form-urlencoded, fetch() with a string body sends
  // text/plain, some clients send no type at all. The body is JSON either way; the default JSON
  // parser reports malformed input as a 400.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson);

  app.post(
    '/authentication/authenticate',
    {
      config: { public: true },
      schema: {
        tags: ['authentication'],
        summary: 'Exchange an access key for a session token',
        security: [],
        body: SessionRequest,
        response: { 200: SessionResponse, ...errorResponses(400, 401, 413, 415, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      // The key is looked up before its tenant is known: the system scope (src/db/scope.ts).
      const session = await withSystemScope(() =>
        auth.authenticate(
          { accessKeyId: request.body.access_key_id, secretKey: request.body.secret_key },
          request.ip,
        ),
      );
      reply.header('cache-control', 'no-store');
      return { token: session.token, expires_at: session.expiresAt.toISOString() };
    },
  );
}
