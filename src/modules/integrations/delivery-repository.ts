/** SQL for the delivery outbox and log (integration_deliveries). */
import type { Executor } from '../../db/database.js';
import type { OffsetPage } from '../../http/paging.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  tenant_id: string;
  id: string;
  integration_id: string;
  account_id: string;
  event: string;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_error: string | null;
  response_status: number | null;
  signature: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

const COLUMNS = `tenant_id, id, integration_id, account_id, event, payload, status, attempts, next_attempt_at,
  last_attempt_at, last_error, response_status, signature, delivered_at, created_at`;

export async function insertDelivery(
  db: Executor,
  row: {
    tenantId: string;
    id: string;
    integrationId: string;
    accountId: string;
    event: string;
    payload: object;
  },
) {
  await db.query(
    `insert into integration_deliveries (tenant_id, id, integration_id, account_id, event, payload)
     values ($1, $2, $3, $4, $5, $6)`,
    [row.tenantId, row.id, row.integrationId, row.accountId, row.event, JSON.stringify(row.payload)],
  );
}

/**
 * Takes up to `limit` due deliveries for one attempt: counts the attempt and leases the rows for
 * `leaseMs` (their next_attempt_at moves past the send), so another worker process skips them;
 * a worker that dies mid-send leaves them to be retried when the lease runs out.
 */
export async function claimDueDeliveries(db: Executor, limit: number, leaseMs: number) {
  const { rows } = await db.query<DeliveryRow>(
    `with due as (
       select tenant_id, id from integration_deliveries
       where status = 'pending' and next_attempt_at <= now()
       order by next_attempt_at, id
       limit $1
       for update skip locked
     )
     update integration_deliveries d
     set attempts = d.attempts + 1, last_attempt_at = now(),
         next_attempt_at = now() + $2::double precision * interval '1 millisecond'
     from due where d.tenant_id = due.tenant_id and d.id = due.id
     returning ${COLUMNS.split(',')
       .map((c) => `d.${c.trim()}`)
       .join(', ')}`,
    [limit, leaseMs],
  );
  return rows;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  responseStatus: number | null;
  error: string | null;
  signature: string | null;
  /** when the next attempt is due (pending only) */
  retryInMs: number;
}

/** A success keeps the last error, so the log still shows why earlier attempts were retried. */
export async function recordAttempt(
  db: Executor,
  row: Pick<DeliveryRow, 'tenant_id' | 'id'>,
  outcome: AttemptOutcome,
) {
  await db.query(
    `update integration_deliveries
     set status = $3, response_status = $4, last_error = coalesce($5, last_error), signature = coalesce($6, signature),
         delivered_at = case when $3::text = 'delivered' then now() else null end,
         next_attempt_at = now() + $7::double precision * interval '1 millisecond'
     where tenant_id = $1 and id = $2`,
    [
      row.tenant_id,
      row.id,
      outcome.status,
      outcome.responseStatus,
      outcome.error,
      outcome.signature,
      outcome.retryInMs,
    ],
  );
}

/** The earliest next attempt of any pending delivery, or null when none is pending. */
export async function nextDueAt(db: Executor): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `select min(next_attempt_at) as at from integration_deliveries where status = 'pending'`,
  );
  return rows[0]?.at ?? null;
}

export async function listDeliveries(
  db: Executor,
  tenantId: string,
  integrationId: string,
  page: OffsetPage,
) {
  const [{ rows }, count] = await Promise.all([
    db.query<DeliveryRow>(
      `select ${COLUMNS} from integration_deliveries where tenant_id = $1 and integration_id = $2
       order by created_at desc, id desc limit $3 offset $4`,
      [tenantId, integrationId, page.limit, page.offset],
    ),
    db.query<{ n: number }>(
      'select count(*) as n from integration_deliveries where tenant_id = $1 and integration_id = $2',
      [tenantId, integrationId],
    ),
  ]);
  return { rows, total: count.rows[0]?.n ?? 0 };
}
