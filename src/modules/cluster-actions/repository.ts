import type { Executor } from '../../db/database.js';
import type { OffsetPage } from '../../http/paging.js';

export interface ClusterActionRow {
  id: string;
  cluster_id: string;
  account_id: string;
  action_type: 'terminate_pod';
  status: string;
  target_namespace: string;
  target_pod_name: string;
  parameters: Record<string, unknown>;
  result: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const COLUMNS = `id, cluster_id, account_id, action_type, status, target_namespace, target_pod_name,
  parameters, result, created_by, created_at, updated_at, deleted_at`;

const parsed = (row: ClusterActionRow): ClusterActionRow =>
  typeof row.parameters === 'string' ? { ...row, parameters: JSON.parse(row.parameters) } : row;

export async function insertAction(
  db: Executor,
  action: Pick<
    ClusterActionRow,
    | 'id'
    | 'cluster_id'
    | 'account_id'
    | 'action_type'
    | 'status'
    | 'target_namespace'
    | 'target_pod_name'
    | 'parameters'
  > & { created_by: string },
): Promise<ClusterActionRow> {
  const { rows } = await db.query<ClusterActionRow>(
    `insert into cluster_actions (id, cluster_id, account_id, action_type, status, target_namespace,
       target_pod_name, parameters, created_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9) returning ${COLUMNS}`,
    [
      action.id,
      action.cluster_id,
      action.account_id,
      action.action_type,
      action.status,
      action.target_namespace,
      action.target_pod_name,
      JSON.stringify(action.parameters),
      action.created_by,
    ],
  );
  return parsed(rows[0]!);
}

/** Most recently created first; the id breaks ties of one instant. */
export async function listActions(db: Executor, accountId: string, clusterId: string, page: OffsetPage) {
  const [list, count] = await Promise.all([
    db.query<ClusterActionRow>(
      `select ${COLUMNS} from cluster_actions where account_id = $1 and cluster_id = $2
        order by created_at desc, id desc limit $3 offset $4`,
      [accountId, clusterId, page.limit, page.offset],
    ),
    db.query<{ total: number }>(
      'select count(*) as total from cluster_actions where account_id = $1 and cluster_id = $2',
      [accountId, clusterId],
    ),
  ]);
  return { rows: list.rows.map(parsed), total: count.rows[0]?.total ?? 0 };
}

/** Is there a live pod of that name in the cluster? Actions target pods Posture knows. */
export async function livePodExists(
  db: Executor,
  accountId: string,
  clusterId: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from cluster_resources
      where account_id = $1 and cluster_id = $2 and kind = 'Pod' and namespace = $3 and name = $4
        and is_latest and deleted_at is null limit 1`,
    [accountId, clusterId, namespace, name],
  );
  return rows.length > 0;
}
