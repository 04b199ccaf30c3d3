/** SQL for knowledge-base collections. Every query names the tenant; the account path also the account. */
import type { Executor } from '../../db/database.js';
import type { OffsetPage } from '../../http/paging.js';

/** null: every collection of the tenant; an id: only that account's collections. */
export type CollectionScope = { tenantId: string; accountId: string | null };

const where = (scope: CollectionScope) =>
  scope.accountId === null ? 'tenant_id = $1' : 'tenant_id = $1 and account_id = $2';
const params = (scope: CollectionScope) =>
  scope.accountId === null ? [scope.tenantId] : [scope.tenantId, scope.accountId];

export async function listCollections(db: Executor, scope: CollectionScope, page: OffsetPage) {
  const base = params(scope);
  const [{ rows }, count] = await Promise.all([
    db.query<{ name: string }>(
      `select name from knowledge_base_collections where ${where(scope)}
       order by name limit $${base.length + 1} offset $${base.length + 2}`,
      [...base, page.limit, page.offset],
    ),
    db.query<{ n: number }>(
      `select count(*) as n from knowledge_base_collections where ${where(scope)}`,
      base,
    ),
  ]);
  return { names: rows.map((row) => row.name), total: count.rows[0]?.n ?? 0 };
}

export async function insertCollection(
  db: Executor,
  row: { tenantId: string; accountId: string | null; name: string; createdBy: string },
) {
  await db.query(
    `insert into knowledge_base_collections (tenant_id, account_id, name, created_by) values ($1, $2, $3, $4)`,
    [row.tenantId, row.accountId, row.name, row.createdBy],
  );
}

export async function deleteCollection(db: Executor, scope: CollectionScope, name: string) {
  const base = params(scope);
  const { rowCount } = await db.query(
    `delete from knowledge_base_collections where ${where(scope)} and name = $${base.length + 1}`,
    [...base, name],
  );
  return rowCount > 0;
}
