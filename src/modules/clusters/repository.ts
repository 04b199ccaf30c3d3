import type { Executor } from '../../db/database.js';
import type { OffsetPage } from '../../http/paging.js';
import { containsPattern } from '../../http/search.js';
import { orderBy, type Sort } from '../../http/sort.js';
import type { CLUSTER_SORT_FIELDS } from './schemas.js';

export interface ClusterRow {
  id: string;
  account_id: string;
  name: string;
  created_at: Date;
  last_ingested_at: Date | null;
}

const COLUMNS = 'id, account_id, name, created_at, last_ingested_at';

const SORT_COLUMNS: Record<(typeof CLUSTER_SORT_FIELDS)[number], string> = {
  name: 'name',
  created_at: 'created_at',
  last_ingested_at: 'last_ingested_at',
};

/** PostgreSQL's unique_violation, raised the same way by both engines. */
export const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === '23505';

export async function insertCluster(
  db: Executor,
  cluster: { accountId: string; id: string; name: string; createdBy: string },
): Promise<ClusterRow> {
  const { rows } = await db.query<ClusterRow>(
    `insert into clusters (account_id, id, name, created_by) values ($1, $2, $3, $4) returning ${COLUMNS}`,
    [cluster.accountId, cluster.id, cluster.name, cluster.createdBy],
  );
  return rows[0]!;
}

export async function findCluster(db: Executor, accountId: string, clusterId: string) {
  const { rows } = await db.query<ClusterRow>(
    `select ${COLUMNS} from clusters where account_id = $1 and id = $2`,
    [accountId, clusterId],
  );
  return rows[0];
}

/** A cluster of the tenant, within the given accounts (null = every account of the tenant). */
export async function findClusterInTenant(
  db: Executor,
  tenantId: string,
  accountIds: readonly string[] | null,
  clusterId: string,
) {
  const scope = accountIds === null ? '' : 'and c.account_id = any($3::uuid[])';
  const { rows } = await db.query<ClusterRow>(
    `select c.id, c.account_id, c.name, c.created_at, c.last_ingested_at
       from clusters c join accounts a on a.id = c.account_id
      where c.id = $1 and a.tenant_id = $2 ${scope}`,
    accountIds === null ? [clusterId, tenantId] : [clusterId, tenantId, accountIds],
  );
  return rows[0];
}

export async function listClusters(
  db: Executor,
  accountId: string,
  query: { q?: string | undefined; sort: Sort<(typeof CLUSTER_SORT_FIELDS)[number]>; page: OffsetPage },
) {
  const params: unknown[] = [accountId];
  let where = 'where account_id = $1';
  if (query.q) {
    params.push(containsPattern(query.q));
    where += ` and name ilike $${params.length}`;
  }
  const order = orderBy(query.sort, SORT_COLUMNS, 'id');
  const [list, count] = await Promise.all([
    db.query<ClusterRow>(
      `select ${COLUMNS} from clusters ${where} ${order}
        limit $${params.length + 1} offset $${params.length + 2}`,
      [...params, query.page.limit, query.page.offset],
    ),
    db.query<{ total: number }>(`select count(*) as total from clusters ${where}`, params),
  ]);
  return { rows: list.rows, total: count.rows[0]?.total ?? 0 };
}
