/** Wires the services of every module from the app's dependencies (factories, no container). */
import type { AppDeps } from './app.js';
import { createAccessKeyService } from './modules/access-keys/service.js';
import { createAccountService } from './modules/accounts/service.js';
import { createLoginThrottle } from './modules/auth/login-throttle.js';
import { createAuthService } from './modules/auth/service.js';
import { createUserService } from './modules/users/service.js';

export function createServices({ config, db, pepper }: AppDeps) {
  const accounts = createAccountService({ db });
  return {
    auth: createAuthService({
      db,
      pepper,
      sessionTtlSeconds: config.SESSION_TTL,
      throttle: createLoginThrottle(config.LOGIN_MAX_FAILURES, config.LOGIN_FAILURE_WINDOW_SECONDS),
    }),
    accounts,
    accessKeys: createAccessKeyService({ db, pepper }),
    users: createUserService({ db, accounts }),
  };
}

export type Services = ReturnType<typeof createServices>;
