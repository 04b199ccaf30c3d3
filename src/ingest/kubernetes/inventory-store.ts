/** SQL of the inventory_containers rows that Kubernetes ingestion derives from pods. */
import { hash } from 'node:crypto';
import type { Executor } from '../../db/database.js';
import { batches } from '../batches.js';
import type { ResolvedOwner } from './owners.js';
import type { Scope } from './resource-store.js';

/** A container row's values, as a pod's version gives them. */
export interface ContainerValues {
  id: string;
  cluster_name: string;
  pod_uid: string;
  pod_resource_id: string;
  pod_name: string;
  pod_namespace: string;
  pod_owner_uid: string | null;
  pod_owner_kind: string | null;
  pod_owner_name: string | null;
  name: string;
  container_id: string;
  container_runtime: string;
  image: string;
  image_repo: string;
  image_name: string;
  image_tag: string;
  image_digest: string;
  owner: ResolvedOwner;
  created_at: string;
}

/** A row as written: its values and their digest (containerValuesDigest). */
export interface InventoryRow extends ContainerValues {
  values_digest: string;
}

/** The image of a container row, for what is derived from the images that run (CVE usage). */
export type ContainerImage = Pick<InventoryRow, 'image_repo' | 'image_tag' | 'image_digest'>;

/** What owner re-resolution needs of a stored row, and its image. */
export type StoredOwnerLink = Pick<
  InventoryRow,
  'id' | 'pod_uid' | 'pod_namespace' | 'pod_owner_uid' | 'pod_owner_kind' | 'pod_owner_name'
> &
  ContainerImage;

/**
 * A stored row of a pod being replaced: its id, its image for the CVE usage recompute, and its
 * digest (null when unknown: migration 0062).
 */
export type StoredContainer = Pick<InventoryRow, 'id'> & ContainerImage & { values_digest: string | null };

export async function findContainersOfPods(
  db: Executor,
  scope: Scope,
  podUids: string[],
): Promise<StoredContainer[]> {
  if (podUids.length === 0) return [];
  const { rows } = await db.query<StoredContainer>(
    `select id, image_repo, image_tag, image_digest, values_digest from inventory_containers
      where account_id = $1 and cluster_id = $2 and pod_uid = any($3::text[])`,
    [scope.accountId, scope.clusterId, podUids],
  );
  return rows;
}

export async function deleteContainers(db: Executor, scope: Scope, ids: string[]) {
  for (const batch of batches(ids)) {
    await db.query(
      `delete from inventory_containers
        where account_id = $1 and cluster_id = $2 and id = any($3::uuid[])`,
      [scope.accountId, scope.clusterId, batch],
    );
  }
}

/** Every written column but the key, in the order of the statements' parameters from $3 on. */
const COLUMNS = [
  'id',
  'cluster_name',
  'pod_uid',
  'pod_resource_id',
  'pod_name',
  'pod_namespace',
  'pod_owner_uid',
  'pod_owner_kind',
  'pod_owner_name',
  'name',
  'container_id',
  'container_runtime',
  'image',
  'image_repo',
  'image_name',
  'image_tag',
  'image_digest',
  'owner_uid',
  'owner_kind',
  'owner_name',
  'owner_namespace',
  'owner_resource_version',
  'owner_id',
  'created_at',
  'values_digest',
] as const;

type Column = (typeof COLUMNS)[number];

/** Each column's value in a row; the digest is the row's own. */
const VALUE_OF: Record<Exclude<Column, 'values_digest'>, (row: ContainerValues) => string | null> = {
  id: (r) => r.id,
  cluster_name: (r) => r.cluster_name,
  pod_uid: (r) => r.pod_uid,
  pod_resource_id: (r) => r.pod_resource_id,
  pod_name: (r) => r.pod_name,
  pod_namespace: (r) => r.pod_namespace,
  pod_owner_uid: (r) => r.pod_owner_uid,
  pod_owner_kind: (r) => r.pod_owner_kind,
  pod_owner_name: (r) => r.pod_owner_name,
  name: (r) => r.name,
  container_id: (r) => r.container_id,
  container_runtime: (r) => r.container_runtime,
  image: (r) => r.image,
  image_repo: (r) => r.image_repo,
  image_name: (r) => r.image_name,
  image_tag: (r) => r.image_tag,
  image_digest: (r) => r.image_digest,
  owner_uid: (r) => r.owner.uid,
  owner_kind: (r) => r.owner.kind,
  owner_name: (r) => r.owner.name,
  owner_namespace: (r) => r.owner.namespace,
  owner_resource_version: (r) => r.owner.resourceVersion,
  owner_id: (r) => r.owner.id,
  created_at: (r) => r.created_at,
};

/**
 * The values a row's digest covers: every column but its key, its digest and pod_resource_id.
 * That column names the pod version the row's values were read from; nothing serves or reads it,
 * and a pod's new version whose containers run on unchanged (a restart count, a label, the pod's
 * IP) changes nothing else of them. Rewriting every such row only to name the newer version was
 * the largest update of the large benchmark's Kubernetes phase: 1.4 million rows, 32 s of
 * PostgreSQL's 281 (docs/performance.md, "Fix 64"). A row written for another reason takes the
 * newer version too.
 */
const DIGESTED = COLUMNS.filter(
  (column): column is Exclude<Column, 'values_digest'> =>
    column !== 'id' && column !== 'pod_resource_id' && column !== 'values_digest',
);

/**
 * The digest of a row's served values (migration 0062), 128 bits of SHA-256: equal digests mean
 * equal values, so a row whose stored digest equals its new one is not sent at all.
 */
export function containerValuesDigest(row: ContainerValues): string {
  const values = DIGESTED.map((column) => VALUE_OF[column](row));
  return hash('sha256', JSON.stringify(values), 'buffer').subarray(0, 16).toString('base64');
}

const UNNEST = `unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
  $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
  $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[],
  $23::text[], $24::text[], $25::text[], $26::timestamptz[], $27::text[]) as v (${COLUMNS.join(', ')})`;

const digestOf = (row: InventoryRow) => row.values_digest;

const columnParams = (scope: Scope, batch: InventoryRow[]) => [
  scope.accountId,
  scope.clusterId,
  ...COLUMNS.map((column) => batch.map(column === 'values_digest' ? digestOf : VALUE_OF[column])),
];

export async function insertContainers(db: Executor, scope: Scope, rows: InventoryRow[]) {
  for (const batch of batches(rows)) {
    await db.query(
      `insert into inventory_containers (account_id, cluster_id, ${COLUMNS.join(', ')})
       select $1, $2, v.* from ${UNNEST}`,
      columnParams(scope, batch),
    );
  }
}

const SET_CHANGED = COLUMNS.filter((column) => column !== 'id');

/**
 * Rewrites stored rows (same id) with their new values, where the stored digest differs from the
 * new one (a stored row's may be null: migration 0062). Equal digests are equal values, so that
 * one comparison leaves alone every row a version does not change; the caller sends only the rows
 * whose digests it saw differ, and the condition keeps the statement exact on its own. A change
 * of a column no index holds (a new owner's resource version) lets PostgreSQL keep the row on its
 * page without touching any of the table's indexes (a heap-only update, given room on the page:
 * migration 0024's fillfactor). The kept total does not move (it counts inserts and deletes, and
 * an update keeps the cluster); the cluster's list generation does, once a statement, if a row
 * was written (migration 0056).
 */
export async function updateContainers(db: Executor, scope: Scope, rows: InventoryRow[]) {
  for (const batch of batches(rows)) {
    await db.query(
      `update inventory_containers c
          set ${SET_CHANGED.map((column) => `${column} = v.${column}`).join(', ')}
         from ${UNNEST}
        where c.account_id = $1 and c.cluster_id = $2 and c.id = v.id
          and c.values_digest is distinct from v.values_digest`,
      columnParams(scope, batch),
    );
  }
}

/** Rows whose resolved owner is one of these objects: their chain may now reach further. */
export async function findRowsOwnedBy(
  db: Executor,
  scope: Scope,
  ownerUids: string[],
): Promise<StoredOwnerLink[]> {
  if (ownerUids.length === 0) return [];
  const { rows } = await db.query<StoredOwnerLink>(
    `select id, pod_uid, pod_namespace, pod_owner_uid, pod_owner_kind, pod_owner_name, image_repo,
            image_tag, image_digest
       from inventory_containers
      where account_id = $1 and cluster_id = $2 and owner_uid = any($3::text[])`,
    [scope.accountId, scope.clusterId, ownerUids],
  );
  return rows;
}

export async function updateOwners(
  db: Executor,
  scope: Scope,
  updates: { id: string; owner: ResolvedOwner }[],
) {
  for (const batch of batches(updates)) {
    const col = (pick: (u: { id: string; owner: ResolvedOwner }) => string) => batch.map(pick);
    await db.query(
      `update inventory_containers c set owner_uid = v.uid, owner_kind = v.kind, owner_name = v.name,
              owner_namespace = v.namespace, owner_resource_version = v.rv, owner_id = v.owner_id
         from unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
              as v (id, uid, kind, name, namespace, rv, owner_id)
        where c.account_id = $1 and c.cluster_id = $2 and c.id = v.id`,
      [
        scope.accountId,
        scope.clusterId,
        col((u) => u.id),
        col((u) => u.owner.uid),
        col((u) => u.owner.kind),
        col((u) => u.owner.name),
        col((u) => u.owner.namespace),
        col((u) => u.owner.resourceVersion),
        col((u) => u.owner.id),
      ],
    );
  }
}
