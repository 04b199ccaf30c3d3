import type { Executor } from '../../db/database.js';
import type { OffsetPage } from '../../http/paging.js';

export interface AccountRow {
  id: string;
  tenant_id: string;
  name: string;
  created_at: Date;
}

export async function findAccountInTenant(db: Executor, tenantId: string, accountId: string) {
  const { rows } = await db.query<AccountRow>(
    'select id, tenant_id, name, created_at from accounts where id = $1 and tenant_id = $2',
    [accountId, tenantId],
  );
  return rows[0];
}

/** `accountIds` null means every account of the tenant. */
export async function listAccounts(
  db: Executor,
  tenantId: string,
  accountIds: readonly string[] | null,
  page: OffsetPage,
): Promise<{ rows: AccountRow[]; total: number }> {
  const scope = accountIds === null ? '' : 'and id = any($2::uuid[])';
  const params: unknown[] = accountIds === null ? [tenantId] : [tenantId, accountIds];
  const n = params.length;
  const [list, count] = await Promise.all([
    db.query<AccountRow>(
      `select id, tenant_id, name, created_at from accounts where tenant_id = $1 ${scope}
        order by name, id limit $${n + 1} offset $${n + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ total: number }>(
      `select count(*) as total from accounts where tenant_id = $1 ${scope}`,
      params,
    ),
  ]);
  return { rows: list.rows, total: count.rows[0]?.total ?? 0 };
}
