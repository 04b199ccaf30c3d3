/**
 * Reads of a few identity source objects at a time, for the delta recompute: by uid, by
 * kind/namespace/name, or one kind. Each is an index lookup on cluster_resources (the unique
 * latest-uid index or the live (account, cluster, kind, name) index), never a scan of the cluster.
 *
 * The engine keeps one object per kind/namespace/name (the highest resourceVersion wins), so an
 * object is always read with its live namesakes: a subset then resolves duplicates as the whole
 * cluster would.
 */
import type { Executor } from '../../db/database.js';
import type { Json } from '../../engines/rbac/index.js';
import type { ClusterScope, SourceObject } from './sources.js';

export interface LatestObject extends SourceObject {
  namespace: string;
  name: string;
  /** false when the latest version is deleted */
  live: boolean;
}

export interface ObjectName {
  kind: string;
  /** null: any namespace (cluster-scoped kinds, whatever namespace was pushed) */
  namespace: string | null;
  name: string;
}

interface Row {
  id: string;
  uid: string;
  kind: string;
  namespace: string;
  name: string;
  ingested_at: Date;
  raw: string;
  live: boolean;
}

const COLUMNS =
  'c.id, c.uid, c.kind, c.namespace, c.name, c.ingested_at, c.raw, c.deleted_at is null as live';

const toObject = (row: Row): LatestObject => ({
  recordId: row.id,
  uid: row.uid,
  kind: row.kind,
  namespace: row.namespace,
  name: row.name,
  ingestedAt: row.ingested_at,
  raw: JSON.parse(row.raw) as Json,
  live: row.live,
});

/** Latest versions (live or deleted) of these uids. */
async function latestOfUids(db: Executor, scope: ClusterScope, uids: readonly string[]) {
  if (uids.length === 0) return [];
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from cluster_resources c
      where c.account_id = $1 and c.cluster_id = $2 and c.is_latest and c.uid = any($3::text[])`,
    [scope.accountId, scope.clusterId, uids],
  );
  return rows.map(toObject);
}

/**
 * Live latest objects with these names. Kinds and names are matched as two lists (an index scan
 * of the live (account, cluster, kind, name) index with array keys; a join on a list of tuples
 * is planned as a scan of the cluster), then the exact names are kept.
 */
export async function liveByName(db: Executor, scope: ClusterScope, names: readonly ObjectName[]) {
  if (names.length === 0) return [];
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from cluster_resources c
      where c.account_id = $1 and c.cluster_id = $2 and c.kind = any($3::text[]) and c.name = any($4::text[])
        and c.is_latest and c.deleted_at is null`,
    [
      scope.accountId,
      scope.clusterId,
      [...new Set(names.map((n) => n.kind))],
      [...new Set(names.map((n) => n.name))],
    ],
  );
  const wanted = new Set(names.map((n) => JSON.stringify([n.kind, n.namespace, n.name])));
  return rows
    .filter(
      (row) =>
        wanted.has(JSON.stringify([row.kind, row.namespace, row.name])) ||
        wanted.has(JSON.stringify([row.kind, null, row.name])),
    )
    .map(toObject);
}

const byRecordId = (objects: readonly LatestObject[]) => [
  ...new Map(objects.map((object) => [object.recordId, object])).values(),
];

/** Latest versions of these uids (deleted ones included) with the live namesakes of each. */
export async function latestWithNamesakes(db: Executor, scope: ClusterScope, uids: readonly string[]) {
  const latest = await latestOfUids(db, scope, uids);
  const namesakes = await liveByName(
    db,
    scope,
    latest.map((object) => ({ kind: object.kind, namespace: object.namespace, name: object.name })),
  );
  return byRecordId([...latest, ...namesakes]);
}

/** Live latest versions of these uids with their live namesakes. */
export async function liveWithNamesakes(db: Executor, scope: ClusterScope, uids: readonly string[]) {
  return (await latestWithNamesakes(db, scope, uids)).filter((object) => object.live);
}

/** Every live object of one kind (ClusterRoles, when aggregation is involved: tens in a cluster). */
export async function liveOfKind(db: Executor, scope: ClusterScope, kind: string) {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from cluster_resources c
      where c.account_id = $1 and c.cluster_id = $2 and c.kind = $3 and c.is_latest and c.deleted_at is null`,
    [scope.accountId, scope.clusterId, kind],
  );
  return rows.map(toObject);
}

/** Names of the latest versions of these uids, without their JSON. */
export async function namesOfUids(db: Executor, scope: ClusterScope, uids: readonly string[]) {
  if (uids.length === 0) return [];
  const { rows } = await db.query<{ uid: string; kind: string; namespace: string; name: string }>(
    `select uid, kind, namespace, name from cluster_resources
      where account_id = $1 and cluster_id = $2 and is_latest and uid = any($3::text[])`,
    [scope.accountId, scope.clusterId, uids],
  );
  return rows;
}
