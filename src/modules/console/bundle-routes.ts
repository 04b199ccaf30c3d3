/**
 * Serves the built console (dist/console, made by `npm run build:console`) under /console. A
 * path that names a file of the bundle gets that file; any other /console path gets index.html,
 * so a shared link such as /console/accounts/<id>/clusters?q=web opens the right view. Only files
 * listed when the server starts are ever sent: nothing outside the bundle is reachable, whatever
 * the path says.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { Api } from '../../http/api.js';
import { ApiError } from '../../http/errors.js';
import { CONSOLE_SECURITY_HEADERS } from './security-headers.js';

const INDEX = 'index.html';
/** Vite puts content-hashed files here: a changed file gets a new name, so they never go stale. */
const ASSETS = 'assets/';

/** Relative paths (with `/`) of every file under root, or null when root is not a directory. */
export function listBundleFiles(root: string): Set<string> | null {
  try {
    if (!statSync(root).isDirectory()) return null;
  } catch {
    return null;
  }
  const files = new Set<string>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else if (entry.isFile()) files.add(`${prefix}${entry.name}`);
    }
  };
  walk(root, '');
  return files;
}

export async function consoleBundleRoutes(app: Api, { root }: { root: string }): Promise<void> {
  const files = listBundleFiles(root);
  const built = files?.has(INDEX) === true;
  if (built) await app.register(fastifyStatic, { root, serve: false });

  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(CONSOLE_SECURITY_HEADERS);
  });

  function sendIndex(reply: FastifyReply) {
    if (!built) {
      throw new ApiError(
        'unavailable',
        'the console is not built: run `npm run build` (or `npm run build:console`)',
      );
    }
    // Always revalidated: a new deployment's index names new asset files.
    reply.header('cache-control', 'no-cache');
    return reply.sendFile(INDEX, { cacheControl: false });
  }

  const route = { config: { public: true }, schema: { hide: true }, logLevel: 'warn' as const };

  app.get('/console', route, async (_request, reply) => sendIndex(reply));

  app.get('/console/*', route, async (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    if (path !== INDEX && files?.has(path)) {
      const hashed = path.startsWith(ASSETS);
      return reply.sendFile(path, { maxAge: hashed ? '365d' : '1h', immutable: hashed });
    }
    if (path.startsWith(ASSETS)) throw new ApiError('not_found', 'no such console asset');
    return sendIndex(reply);
  });
}
