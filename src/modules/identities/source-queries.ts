/**
 * Reads of a few identity source objects at a time, for the delta recompute: by uid, by
 * kind/namespace/name, or one kind. Each is an index lookup on cluster_resources (the unique
 * latest-uid index or the live (account, cluster, kind, name) index), never a scan of the cluster.
 *
 * The engine keeps one object per kind/namespace/name (the highest resourceVersion wins), so an
 * object is always read with its live namesakes: a subset then resolves duplicates as the whole
 * cluster would.
 *
 * During ingestion most objects the delta reaches are the ones the push has just stored, and
 * their JSON is still in memory as the push parsed it (`SourceScope.known`). Reading it back
 * was the largest cost of a push (the raw text detoasted, sent and parsed again for every
 * changed pod, several times per push, docs/performance.md "Fix 10"), so with `known` the rows
 * come without `raw`, only the versions not in it are read with their JSON, by primary key, and
 * each is parsed once per push.
 */
import type { Executor } from '../../db/database.js';
import type { Json } from '../../engines/rbac/index.js';
import type { KubeObject } from '../../ingest/kubernetes/object.js';
import type { ClusterScope, SourceObject } from './sources.js';

/**
 * Parsed JSON of object versions by record id (`<uid>_<resourceVersion>`, whose text never
 * changes once stored): the push's own new versions, and every version read during the push.
 */
export type KnownObjects = Map<string, Json>;

/** The push's live new latest versions, as it wrote them (their `raw` is in `known`). */
export interface PushedVersions {
  /** their ingested_at */
  at: Date;
  byUid: ReadonlyMap<string, Pick<KubeObject, 'id' | 'uid' | 'kind' | 'namespace' | 'name'>>;
}

export interface SourceScope extends ClusterScope {
  /** when given, JSON is read from here first, and what is read from the table is added to it */
  known?: KnownObjects | undefined;
  /**
   * When given, the latest versions of these uids are not read from the table: they are the rows
   * the push just wrote, which nothing changes before its listeners run.
   */
  pushed?: PushedVersions | undefined;
}

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
  /** absent when the scope holds the push's objects: see withRaw */
  raw?: string;
  live: boolean;
}

const META = 'c.id, c.uid, c.kind, c.namespace, c.name, c.ingested_at, c.deleted_at is null as live';
/** The select list: without the JSON when the push's objects can supply most of it. */
const columns = (scope: SourceScope) => (scope.known ? META : `${META}, c.raw`);

/** Each row's parsed JSON: the push's own object, the row's raw text, or one read by id. */
async function withRaw(db: Executor, scope: SourceScope, rows: readonly Row[]): Promise<LatestObject[]> {
  const missing = rows
    .filter((row) => row.raw === undefined && !scope.known?.has(row.id))
    .map((row) => row.id);
  const texts = new Map<string, string>();
  if (missing.length > 0) {
    const { rows: found } = await db.query<{ id: string; raw: string }>(
      `select id, raw from cluster_resources
        where account_id = $1 and cluster_id = $2 and id = any($3::text[])`,
      [scope.accountId, scope.clusterId, missing],
    );
    for (const row of found) texts.set(row.id, row.raw);
  }
  return rows.map((row) => {
    let raw = scope.known?.get(row.id);
    if (raw === undefined) {
      const text = row.raw ?? texts.get(row.id);
      if (text === undefined) throw new Error(`cluster_resources ${row.id} vanished during the push`);
      raw = JSON.parse(text) as Json;
      scope.known?.set(row.id, raw);
    }
    return {
      recordId: row.id,
      uid: row.uid,
      kind: row.kind,
      namespace: row.namespace,
      name: row.name,
      ingestedAt: row.ingested_at,
      raw,
      live: row.live,
    };
  });
}

/**
 * Latest versions (live or deleted) of these uids. Those the push wrote come from `scope.pushed`:
 * a pod push's delta read every pushed pod back, 1.4 million rows and 8 s of PostgreSQL over the
 * large benchmark's Kubernetes phase (docs/performance.md, "Fix 66").
 */
async function latestRowsOfUids(db: Executor, scope: SourceScope, uids: readonly string[]) {
  const written: Row[] = [];
  const stored: string[] = [];
  for (const uid of uids) {
    const object = scope.pushed?.byUid.get(uid);
    if (object === undefined || scope.pushed === undefined) stored.push(uid);
    else {
      const { id, kind, namespace, name } = object;
      written.push({ id, uid, kind, namespace, name, ingested_at: scope.pushed.at, live: true });
    }
  }
  if (stored.length === 0) return written;
  const { rows } = await db.query<Row>(
    `select ${columns(scope)} from cluster_resources c
      where c.account_id = $1 and c.cluster_id = $2 and c.is_latest and c.uid = any($3::text[])`,
    [scope.accountId, scope.clusterId, stored],
  );
  return [...written, ...rows];
}

/**
 * Live latest objects with these names. Kinds and names are matched as two lists (an index scan
 * of the live (account, cluster, kind, name) index with array keys; a join on a list of tuples
 * is planned as a scan of the cluster), then the exact names are kept.
 */
async function liveRowsByName(db: Executor, scope: SourceScope, names: readonly ObjectName[]) {
  if (names.length === 0) return [];
  const { rows } = await db.query<Row>(
    `select ${columns(scope)} from cluster_resources c
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
  return rows.filter(
    (row) =>
      wanted.has(JSON.stringify([row.kind, row.namespace, row.name])) ||
      wanted.has(JSON.stringify([row.kind, null, row.name])),
  );
}

export async function liveByName(db: Executor, scope: SourceScope, names: readonly ObjectName[]) {
  return withRaw(db, scope, await liveRowsByName(db, scope, names));
}

/**
 * Latest versions of these uids (deleted ones included) with the live namesakes of each. An
 * object is its own namesake: the two reads are merged before any JSON is read or parsed.
 */
export async function latestWithNamesakes(db: Executor, scope: SourceScope, uids: readonly string[]) {
  const latest = await latestRowsOfUids(db, scope, uids);
  const namesakes = await liveRowsByName(
    db,
    scope,
    latest.map((row) => ({ kind: row.kind, namespace: row.namespace, name: row.name })),
  );
  return withRaw(db, scope, [...new Map([...latest, ...namesakes].map((row) => [row.id, row])).values()]);
}

/** Live latest versions of these uids with their live namesakes. */
export async function liveWithNamesakes(db: Executor, scope: SourceScope, uids: readonly string[]) {
  return (await latestWithNamesakes(db, scope, uids)).filter((object) => object.live);
}

/** Every live object of one kind (ClusterRoles, when aggregation is involved: tens in a cluster). */
export async function liveOfKind(db: Executor, scope: SourceScope, kind: string) {
  const { rows } = await db.query<Row>(
    `select ${columns(scope)} from cluster_resources c
      where c.account_id = $1 and c.cluster_id = $2 and c.kind = $3 and c.is_latest and c.deleted_at is null`,
    [scope.accountId, scope.clusterId, kind],
  );
  return withRaw(db, scope, rows);
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
