import type { Executor } from '../../db/database.js';
import type { Level } from '../../http/actor.js';
import type { OffsetPage } from '../../http/paging.js';

export interface AccessKeyRow {
  id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  scope: Level;
  account_id: string | null;
  created_at: Date;
  created_by: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const COLUMNS = `id, tenant_id, user_id, name, scope, account_id, created_at, created_by, expires_at, revoked_at, last_used_at`;

export async function insertAccessKey(
  db: Executor,
  key: Omit<AccessKeyRow, 'created_at' | 'revoked_at' | 'last_used_at'> & { secret_hash: Buffer },
): Promise<AccessKeyRow> {
  const { rows } = await db.query<AccessKeyRow>(
    `insert into access_keys (id, tenant_id, user_id, name, scope, account_id, created_by, expires_at, secret_hash)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${COLUMNS}`,
    [
      key.id,
      key.tenant_id,
      key.user_id,
      key.name,
      key.scope,
      key.account_id,
      key.created_by,
      key.expires_at,
      key.secret_hash,
    ],
  );
  return rows[0]!;
}

/**
 * Keys of a tenant an admin may manage: all of them (`accountIds` null, a tenant admin) or only
 * account-scoped keys of the given accounts.
 */
function scopeClause(accountIds: readonly string[] | null): string {
  return accountIds === null ? '' : `and scope = 'account' and account_id = any($2::uuid[])`;
}

export async function listAccessKeys(
  db: Executor,
  tenantId: string,
  accountIds: readonly string[] | null,
  page: OffsetPage,
) {
  const params: unknown[] = accountIds === null ? [tenantId] : [tenantId, accountIds];
  const n = params.length;
  const where = `where tenant_id = $1 ${scopeClause(accountIds)}`;
  const [list, count] = await Promise.all([
    db.query<AccessKeyRow>(
      `select ${COLUMNS} from access_keys ${where} order by created_at desc, id desc limit $${n + 1} offset $${n + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ total: number }>(`select count(*) as total from access_keys ${where}`, params),
  ]);
  return { rows: list.rows, total: count.rows[0]?.total ?? 0 };
}

export async function findAccessKey(
  db: Executor,
  tenantId: string,
  accountIds: readonly string[] | null,
  id: string,
): Promise<AccessKeyRow | undefined> {
  const params: unknown[] = accountIds === null ? [tenantId] : [tenantId, accountIds];
  const { rows } = await db.query<AccessKeyRow>(
    `select ${COLUMNS} from access_keys where tenant_id = $1 ${scopeClause(accountIds)} and id = $${params.length + 1}`,
    [...params, id],
  );
  return rows[0];
}

/** Marks the key revoked (first revocation wins) and ends its sessions in the same statement batch. */
export async function revokeAccessKey(db: Executor, tenantId: string, id: string): Promise<void> {
  await db.query(
    'update access_keys set revoked_at = coalesce(revoked_at, now()) where tenant_id = $1 and id = $2',
    [tenantId, id],
  );
  await db.query('delete from sessions where access_key_id = $1', [id]);
}
