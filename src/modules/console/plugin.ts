/**
 * The web console, served by the API process: its sign-in/sign-out endpoints and its static
 * bundle under /console. Everything it shows comes from the public API, called with the session
 * cookie these endpoints set. See docs/console.md.
 *
 * @example
 *   await app.register(async (scope) => consolePlugin(scope as Api, { db, auth: services.auth }));
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import type { Database } from '../../db/database.js';
import type { Api } from '../../http/api.js';
import type { AuthService } from '../auth/service.js';
import { consoleBundleRoutes } from './bundle-routes.js';
import { consoleSessionRoutes } from './session-routes.js';
import { createConsoleSessionService } from './session-service.js';

/** src/modules/console and dist/modules/console are both three levels below the repository. */
export const DEFAULT_BUNDLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../dist/console');

export interface ConsoleDeps {
  db: Database;
  auth: Pick<AuthService, 'authenticate' | 'actorForToken'>;
  /** the built bundle; dist/console by default */
  bundleDir?: string;
}

export async function consolePlugin(app: Api, deps: ConsoleDeps): Promise<void> {
  // Only the console sets and reads cookies as such (sign-in, sign-out); the API's auth hook reads
  // the session cookie itself (auth-hook.ts), so the plugin's two hooks run on these routes alone.
  await app.register(cookie);
  consoleSessionRoutes(app, { sessions: createConsoleSessionService(deps) });
  await app.register(async (scope) =>
    consoleBundleRoutes(scope as Api, { root: deps.bundleDir ?? DEFAULT_BUNDLE_DIR }),
  );
}
