/**
 * The delivery worker: sends committed outbox rows (finding-listener.ts). A webhook gets a JSON
 * POST signed with HMAC-SHA256 (`X-Posture-Signature: t=<unix seconds>,v1=<hex>` over
 * `<t>.<body>`, Stripe-style, so a receiver can refuse replays); a `mock-` integration gets its
 * delivery recorded without any network call. Failures retry with exponential backoff
 * (base * 2^(attempt-1), at most one hour) up to a maximum number of attempts; a 4xx other than
 * 408/429, a redirect or a refused URL fails at once, as retrying cannot help.
 *
 * The app starts it on ready and stops it on close (registerDeliveryWorker); tests call `drain()`.
 */
import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import { withSystemScope } from '../../db/scope.js';
import type { Api } from '../../http/api.js';
import { providerOf } from './catalogue.js';
import {
  type AttemptOutcome,
  claimDueDeliveries,
  type DeliveryRow,
  nextDueAt,
  recordAttempt,
} from './delivery-repository.js';
import { postJson } from './http-post.js';
import { findIntegration } from './repository.js';
import type { SecretBox } from './secret-box.js';
import { sealContext } from './service.js';
import { type UrlPolicy, UrlRefused } from './url-guard.js';

export interface DeliverySettings {
  timeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  /** 0: no background polling (another process or a test drains the queue) */
  pollIntervalMs: number;
}

const BATCH = 20;
const MAX_BACKOFF_MS = 3_600_000;
const MAX_ERROR_TEXT = 500;

export const SIGNATURE_HEADER = 'x-posture-signature';

/** The signature header value for a body sent at `timestamp` (unix seconds). */
export function signBody(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

class PermanentFailure extends Error {}

type Logger = Pick<FastifyBaseLogger, 'warn' | 'error'>;
const silent: Logger = { warn() {}, error() {} };

export function createDeliveryWorker(deps: {
  db: Database;
  box: SecretBox;
  urlPolicy: UrlPolicy;
  settings: DeliverySettings;
}) {
  const { db, box, urlPolicy, settings } = deps;
  let log: Logger = silent;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;

  const backoff = (attempts: number) =>
    Math.min(settings.backoffBaseMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);

  /** One attempt at one claimed row: returns the signature it sent, throws on failure. */
  async function attempt(
    row: DeliveryRow,
  ): Promise<{ signature: string | null; responseStatus: number | null }> {
    const integration = await findIntegration(db, row.tenant_id, row.integration_id);
    const provider = integration && providerOf(integration.type);
    if (!integration || !provider) throw new PermanentFailure('the integration no longer exists');
    const secrets = integration.sealed_secrets
      ? box.open(integration.sealed_secrets, sealContext(row.tenant_id, integration.id))
      : {};
    const body = JSON.stringify(row.payload);
    const signature = secrets.signing_secret
      ? signBody(secrets.signing_secret, Math.floor(Date.now() / 1000), body)
      : null;
    if (provider.delivery === 'record') return { signature, responseStatus: null };
    const url = integration.config.url;
    if (typeof url !== 'string') throw new PermanentFailure('the integration has no URL');
    const headers: Record<string, string> = { 'x-posture-event': row.event, 'x-posture-delivery': row.id };
    if (signature) headers[SIGNATURE_HEADER] = signature;
    const { status } = await postJson(url, body, headers, {
      timeoutMs: settings.timeoutMs,
      policy: urlPolicy,
    });
    if (status >= 200 && status < 300) return { signature, responseStatus: status };
    const retryable = status >= 500 || status === 408 || status === 429;
    const error = retryable
      ? new Error(`receiver answered ${status}`)
      : new PermanentFailure(`receiver answered ${status}`);
    throw Object.assign(error, { responseStatus: status, signature });
  }

  async function deliver(row: DeliveryRow): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      const sent = await attempt(row);
      outcome = { status: 'delivered', ...sent, error: null, retryInMs: 0 };
    } catch (caught) {
      const error = caught as Error & { responseStatus?: number; signature?: string };
      const permanent = error instanceof PermanentFailure || error instanceof UrlRefused;
      const exhausted = row.attempts >= settings.maxAttempts;
      outcome = {
        status: permanent || exhausted ? 'failed' : 'pending',
        responseStatus: error.responseStatus ?? null,
        error: String(error.message).slice(0, MAX_ERROR_TEXT),
        signature: error.signature ?? null,
        retryInMs: backoff(row.attempts),
      };
      // Ids and the reason only: the URL or config of an integration may embed credentials.
      log.warn(
        {
          delivery_id: row.id,
          integration_id: row.integration_id,
          attempt: row.attempts,
          status: outcome.status,
        },
        `webhook delivery attempt failed: ${outcome.error}`,
      );
    }
    await recordAttempt(db, row, outcome);
  }

  /**
   * Claims and sends one batch of due deliveries; returns how many were attempted. Deliveries of
   * every tenant: the system scope (row-level security, src/db/scope.ts).
   */
  function runOnce(): Promise<number> {
    return withSystemScope(async () => {
      const rows = await claimDueDeliveries(db, BATCH, settings.timeoutMs + 30_000);
      await Promise.all(rows.map(deliver));
      return rows.length;
    });
  }

  async function tick() {
    try {
      while ((await runOnce()) === BATCH && !stopped) {}
    } catch (error) {
      log.error({ err: error }, 'webhook delivery worker failed');
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), settings.pollIntervalMs).unref();
  }

  return {
    runOnce,

    /** Sends until no delivery is pending (waiting out backoffs), or until `withinMs` passed. */
    async drain(withinMs = 10_000): Promise<void> {
      const deadline = Date.now() + withinMs;
      while (Date.now() < deadline) {
        if ((await runOnce()) > 0) continue;
        const due = await withSystemScope(() => nextDueAt(db));
        if (!due) return;
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(Math.max(due.getTime() - Date.now(), 5), 100)),
        );
      }
      throw new Error(`deliveries still pending after ${withinMs} ms`);
    },

    start(logger: Logger) {
      log = logger;
      if (settings.pollIntervalMs === 0 || !stopped) return;
      stopped = false;
      timer = setTimeout(() => (running = tick()), settings.pollIntervalMs).unref();
    },

    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

/** Runs the worker for the app's lifetime: from ready to close. */
export function registerDeliveryWorker(app: Api, worker: DeliveryWorker): void {
  app.addHook('onReady', async () => worker.start(app.log));
  app.addHook('onClose', async () => worker.stop());
}
