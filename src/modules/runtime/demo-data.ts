/**
 * The demo tenant's runtime data (src/demo/demo-tenant.ts): the account's trusted IP prefixes the
 * sample is written for, then the sample stream of sample/runtime/ pushed through the real
 * ingestion endpoint into the demo cluster. The stream learns an hour of normal behaviour in
 * namespace `shop` (Deployments `web` and `api`), then an intrusion in web/app: the demo shows one
 * critical, malicious insight, three baselines and HTTP observations with personal data.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { SAMPLE_TRUSTED_PREFIXES } from '../../engines/runtime/sample/shop-stream.js';

/** Relative to this file in src/modules/runtime/ and in dist/modules/runtime/ alike. */
const SAMPLE_STREAM = new URL('../../../sample/runtime/shop-events.ndjson', import.meta.url);

export async function pushSampleRuntime(
  app: Pick<FastifyInstance, 'inject'>,
  request: { token: string; accountId: string; clusterId: string },
): Promise<void> {
  const authorization = `Bearer ${request.token}`;
  const settings = await app.inject({
    method: 'PUT',
    url: `/accounts/${request.accountId}/runtime_settings`,
    headers: { 'content-type': 'application/json', authorization },
    payload: {
      learning_window_seconds: 3600,
      learning_window_max_events: null,
      trusted_ip_prefixes: SAMPLE_TRUSTED_PREFIXES,
    },
  });
  if (settings.statusCode !== 200) {
    throw new Error(`demo data: runtime settings answered ${settings.statusCode}: ${settings.body}`);
  }
  const pushed = await app.inject({
    method: 'POST',
    url: `/accounts/${request.accountId}/clusters/${request.clusterId}/ingest/runtime`,
    headers: { 'content-type': 'application/x-ndjson', authorization },
    payload: readFileSync(SAMPLE_STREAM),
  });
  if (pushed.statusCode !== 200) {
    throw new Error(`demo data: runtime sample answered ${pushed.statusCode}: ${pushed.body}`);
  }
}
