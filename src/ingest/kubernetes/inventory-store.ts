/** SQL of the inventory_containers rows that Kubernetes ingestion derives from pods. */
import type { Executor } from '../../db/database.js';
import { batches } from '../batches.js';
import type { ResolvedOwner } from './owners.js';
import type { Scope } from './resource-store.js';

export interface InventoryRow {
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

/** The image of a container row, for what is derived from the images that run (CVE usage). */
export type ContainerImage = Pick<InventoryRow, 'image_repo' | 'image_tag' | 'image_digest'>;

/** What owner re-resolution needs of a stored row, and its image. */
export type StoredOwnerLink = Pick<
  InventoryRow,
  'id' | 'pod_uid' | 'pod_namespace' | 'pod_owner_uid' | 'pod_owner_kind' | 'pod_owner_name'
> &
  ContainerImage;

/** A stored row of a pod being replaced: its id, and its image for the CVE usage recompute. */
export type StoredContainer = Pick<InventoryRow, 'id'> & ContainerImage;

export async function findContainersOfPods(
  db: Executor,
  scope: Scope,
  podUids: string[],
): Promise<StoredContainer[]> {
  if (podUids.length === 0) return [];
  const { rows } = await db.query<StoredContainer>(
    `select id, image_repo, image_tag, image_digest from inventory_containers
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
] as const;

const UNNEST = `unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
  $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
  $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[],
  $23::text[], $24::text[], $25::text[], $26::timestamptz[]) as v (${COLUMNS.join(', ')})`;

function columnParams(scope: Scope, batch: InventoryRow[]) {
  const col = <V>(pick: (row: InventoryRow) => V) => batch.map(pick);
  return [
    scope.accountId,
    scope.clusterId,
    col((r) => r.id),
    col((r) => r.cluster_name),
    col((r) => r.pod_uid),
    col((r) => r.pod_resource_id),
    col((r) => r.pod_name),
    col((r) => r.pod_namespace),
    col((r) => r.pod_owner_uid),
    col((r) => r.pod_owner_kind),
    col((r) => r.pod_owner_name),
    col((r) => r.name),
    col((r) => r.container_id),
    col((r) => r.container_runtime),
    col((r) => r.image),
    col((r) => r.image_repo),
    col((r) => r.image_name),
    col((r) => r.image_tag),
    col((r) => r.image_digest),
    col((r) => r.owner.uid),
    col((r) => r.owner.kind),
    col((r) => r.owner.name),
    col((r) => r.owner.namespace),
    col((r) => r.owner.resourceVersion),
    col((r) => r.owner.id),
    col((r) => r.created_at),
  ];
}

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
 * Rewrites stored rows (same id) with their new values, and only those where a value differs: a
 * pod's new version usually changes just pod_resource_id, which no index holds, so PostgreSQL can
 * keep the row on its page without touching any of the table's indexes (a heap-only update, given
 * room on the page: migration 0024's fillfactor). An unchanged row is not written at all. The
 * kept total does not move (it counts inserts and deletes, and an update keeps the cluster); the
 * cluster's list generation does, once a statement, if a row was written (migration 0056).
 */
export async function updateContainers(db: Executor, scope: Scope, rows: InventoryRow[]) {
  for (const batch of batches(rows)) {
    await db.query(
      `update inventory_containers c
          set ${SET_CHANGED.map((column) => `${column} = v.${column}`).join(', ')}
         from ${UNNEST}
        where c.account_id = $1 and c.cluster_id = $2 and c.id = v.id
          and (${SET_CHANGED.map((column) => `c.${column}`).join(', ')})
              is distinct from (${SET_CHANGED.map((column) => `v.${column}`).join(', ')})`,
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
