/** Wiring of the integrations module from the app's dependencies (used by src/services.ts). */
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { createSecretBox } from './secret-box.js';
import { createIntegrationService } from './service.js';

export function createIntegrationServices({
  config,
  db,
  pepper,
}: {
  config: Config;
  db: Database;
  pepper: string;
}) {
  const box = createSecretBox(pepper);
  const urlPolicy = { allowPrivateNetworks: config.INTEGRATIONS_ALLOW_PRIVATE_NETWORKS };
  return {
    integrations: createIntegrationService({ db, box, urlPolicy }),
    integrationDeliveries: createDeliveryWorker({
      db,
      box,
      urlPolicy,
      settings: {
        timeoutMs: config.INTEGRATIONS_DELIVERY_TIMEOUT_MS,
        maxAttempts: config.INTEGRATIONS_DELIVERY_MAX_ATTEMPTS,
        backoffBaseMs: config.INTEGRATIONS_DELIVERY_BACKOFF_MS,
        pollIntervalMs: config.INTEGRATIONS_DELIVERY_POLL_MS,
      },
    }),
  };
}
