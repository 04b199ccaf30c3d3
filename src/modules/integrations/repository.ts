/** SQL for configured integrations. Every query names the tenant in its WHERE clause. */
import type { Executor } from '../../db/database.js';
import type { OffsetPage } from '../../http/paging.js';
import type { PlainValue } from './config-validation.js';

export interface IntegrationRow {
  tenant_id: string;
  id: string;
  type: string;
  name: string;
  config: Record<string, PlainValue>;
  secret_keys: string[];
  created_at: Date;
  updated_at: Date;
}

/** A row with its sealed secrets: only the delivery worker and updates need them. */
export interface SealedIntegrationRow extends IntegrationRow {
  sealed_secrets: Buffer | null;
}

const COLUMNS = 'tenant_id, id, type, name, config, secret_keys, created_at, updated_at';

export interface IntegrationWrite {
  tenantId: string;
  id: string;
  type: string;
  name: string;
  config: Record<string, PlainValue>;
  secretKeys: string[];
  sealed: Buffer | null;
}

export async function insertIntegration(db: Executor, row: IntegrationWrite & { createdBy: string }) {
  const { rows } = await db.query<IntegrationRow>(
    `insert into integrations (tenant_id, id, type, name, config, secret_keys, sealed_secrets, created_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${COLUMNS}`,
    [
      row.tenantId,
      row.id,
      row.type,
      row.name,
      JSON.stringify(row.config),
      row.secretKeys,
      row.sealed,
      row.createdBy,
    ],
  );
  return rows[0]!;
}

export async function updateIntegration(db: Executor, row: IntegrationWrite) {
  const { rows } = await db.query<IntegrationRow>(
    `update integrations set name = $3, config = $4, secret_keys = $5, sealed_secrets = $6, updated_at = now()
     where tenant_id = $1 and id = $2 returning ${COLUMNS}`,
    [row.tenantId, row.id, row.name, JSON.stringify(row.config), row.secretKeys, row.sealed],
  );
  return rows[0];
}

export async function deleteIntegration(db: Executor, tenantId: string, id: string) {
  const { rowCount } = await db.query('delete from integrations where tenant_id = $1 and id = $2', [
    tenantId,
    id,
  ]);
  return rowCount > 0;
}

export async function findIntegration(db: Executor, tenantId: string, id: string, forUpdate = false) {
  const { rows } = await db.query<SealedIntegrationRow>(
    `select ${COLUMNS}, sealed_secrets from integrations where tenant_id = $1 and id = $2
     ${forUpdate ? 'for update' : ''}`,
    [tenantId, id],
  );
  return rows[0];
}

export async function listIntegrations(db: Executor, tenantId: string, page: OffsetPage) {
  const [{ rows }, count] = await Promise.all([
    db.query<IntegrationRow>(
      `select ${COLUMNS} from integrations where tenant_id = $1 order by created_at, id limit $2 offset $3`,
      [tenantId, page.limit, page.offset],
    ),
    db.query<{ n: number }>('select count(*) as n from integrations where tenant_id = $1', [tenantId]),
  ]);
  return { rows, total: count.rows[0]?.n ?? 0 };
}

/** The configured instances of some provider types (the providers list shows them). */
export async function listIntegrationsOfTypes(db: Executor, tenantId: string, types: string[]) {
  const { rows } = await db.query<IntegrationRow>(
    `select ${COLUMNS} from integrations where tenant_id = $1 and type = any($2) order by type, created_at, id`,
    [tenantId, types],
  );
  return rows;
}
