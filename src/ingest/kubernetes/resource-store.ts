/**
 * SQL of Kubernetes ingestion over cluster_resources and cluster_resource_images. Every
 * statement is scoped by account and cluster and touches many rows at once (arrays in, unnest).
 */
import type { Executor } from '../../db/database.js';
import { batches } from '../batches.js';
import type { KubeObject } from './object.js';
import type { OwnerNode } from './owners.js';

export interface Scope {
  accountId: string;
  clusterId: string;
}

export interface StoredVersion {
  id: string;
  uid: string;
  is_latest: boolean;
  deletion_source: string | null;
}

export interface LatestVersion {
  id: string;
  uid: string;
  resource_version: string;
}

export interface ChangedResource {
  uid: string;
  kind: string;
}

export interface NewVersion {
  object: KubeObject;
  isLatest: boolean;
  overwrittenAt: Date | null;
}

export async function findStoredVersions(db: Executor, scope: Scope, ids: string[]) {
  const { rows } = await db.query<StoredVersion>(
    `select id, uid, is_latest, deletion_source from cluster_resources
      where account_id = $1 and cluster_id = $2 and id = any($3::text[])`,
    [scope.accountId, scope.clusterId, ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export async function findLatestVersions(db: Executor, scope: Scope, uids: string[]) {
  const { rows } = await db.query<LatestVersion>(
    `select id, uid, resource_version from cluster_resources
      where account_id = $1 and cluster_id = $2 and is_latest and uid = any($3::text[])`,
    [scope.accountId, scope.clusterId, uids],
  );
  return new Map(rows.map((row) => [row.uid, row]));
}

/** Demotes previous latest versions; runs before the new ones are inserted (one latest per uid). */
export async function markOverwritten(db: Executor, scope: Scope, ids: string[], at: Date) {
  if (ids.length === 0) return;
  await db.query(
    `update cluster_resources set is_latest = false, version_overwritten_at = $4
      where account_id = $1 and cluster_id = $2 and id = any($3::text[])`,
    [scope.accountId, scope.clusterId, ids, at],
  );
}

export async function insertVersions(
  db: Executor,
  scope: Scope,
  versions: NewVersion[],
  times: { ingestedAt: Date; watchedAt: Date },
) {
  // One VALUES row per version: large JSON texts travel as plain parameters, which both engines
  // take much faster than the same texts inside an array literal.
  for (const batch of batches(versions, 500)) {
    const params: unknown[] = [scope.accountId, scope.clusterId, times.ingestedAt, times.watchedAt];
    const rows = batch.map(({ object: o, isLatest, overwrittenAt }) => {
      const first = params.length + 1;
      params.push(
        o.id,
        o.uid,
        o.resourceVersion,
        o.kind,
        o.apiVersion,
        o.name,
        o.namespace,
        o.owner?.uid ?? null,
        o.owner?.kind ?? null,
        o.owner?.name ?? null,
        o.createdAt,
        o.entityType,
        isLatest,
        overwrittenAt,
        o.rawText,
      );
      const slots = Array.from({ length: 15 }, (_, i) => `$${first + i}`);
      return `($1, $2, $3, $4, ${slots.join(', ')})`;
    });
    await db.query(
      `insert into cluster_resources (account_id, cluster_id, ingested_at, watched_at, id, uid,
         resource_version, kind, api_version, name, namespace, owner_uid, owner_kind, owner_name,
         resource_created_at, entity_type, is_latest, version_overwritten_at, raw)
       values ${rows.join(', ')}`,
      params,
    );
  }
  const images = versions.flatMap(({ object }) =>
    object.imageDigests.map((digest) => ({ digest, id: object.id })),
  );
  for (const batch of batches(images, 5000)) {
    await db.query(
      `insert into cluster_resource_images (account_id, cluster_id, image_digest, resource_id)
       select $1, $2, d, r from unnest($3::text[], $4::text[]) as v (d, r) on conflict do nothing`,
      [scope.accountId, scope.clusterId, batch.map((i) => i.digest), batch.map((i) => i.id)],
    );
  }
}

/** DELETED watch events: the latest version of each uid becomes deleted. */
export async function markDeleted(db: Executor, scope: Scope, uids: string[], at: Date) {
  if (uids.length === 0) return [];
  const { rows } = await db.query<ChangedResource>(
    `update cluster_resources set deleted_at = $4, deletion_source = 'watch'
      where account_id = $1 and cluster_id = $2 and is_latest and deleted_at is null
        and uid = any($3::text[])
      returning uid, kind`,
    [scope.accountId, scope.clusterId, uids, at],
  );
  return rows;
}

/** Ids of the live latest versions of these kinds (an index-only scan). */
export async function findLiveIdsOfKinds(db: Executor, scope: Scope, kinds: string[]) {
  if (kinds.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `select id from cluster_resources
      where account_id = $1 and cluster_id = $2 and kind = any($3::text[]) and is_latest and deleted_at is null`,
    [scope.accountId, scope.clusterId, kinds],
  );
  return rows.map((row) => row.id);
}

/** Snapshot mode: these versions were absent from the push. */
export async function markAbsentDeleted(db: Executor, scope: Scope, ids: string[], at: Date) {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ChangedResource>(
    `update cluster_resources set deleted_at = $4, deletion_source = 'snapshot'
      where account_id = $1 and cluster_id = $2 and id = any($3::text[]) and is_latest and deleted_at is null
      returning uid, kind`,
    [scope.accountId, scope.clusterId, ids, at],
  );
  return rows;
}

/** A version a snapshot had marked deleted was pushed again: it was not gone after all. */
export async function restoreVersions(db: Executor, scope: Scope, ids: string[]) {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ChangedResource>(
    `update cluster_resources set deleted_at = null, deletion_source = null
      where account_id = $1 and cluster_id = $2 and id = any($3::text[])
        and is_latest and deletion_source = 'snapshot'
      returning uid, kind`,
    [scope.accountId, scope.clusterId, ids],
  );
  return rows;
}

/** Latest versions of the given uids, as links of owner chains. */
export async function findOwnerNodes(db: Executor, scope: Scope, uids: string[]): Promise<OwnerNode[]> {
  if (uids.length === 0) return [];
  const { rows } = await db.query<{
    uid: string;
    id: string;
    kind: string;
    name: string;
    namespace: string;
    resource_version: string;
    owner_uid: string | null;
    owner_kind: string | null;
    owner_name: string | null;
  }>(
    `select uid, id, kind, name, namespace, resource_version, owner_uid, owner_kind, owner_name
       from cluster_resources
      where account_id = $1 and cluster_id = $2 and is_latest and uid = any($3::text[])`,
    [scope.accountId, scope.clusterId, uids],
  );
  return rows.map((row) => ({
    uid: row.uid,
    id: row.id,
    kind: row.kind,
    name: row.name,
    namespace: row.namespace,
    resourceVersion: row.resource_version,
    owner: row.owner_uid
      ? { uid: row.owner_uid, kind: row.owner_kind ?? '', name: row.owner_name ?? '' }
      : null,
  }));
}

export async function touchCluster(db: Executor, scope: Scope, at: Date) {
  await db.query('update clusters set last_ingested_at = $3 where account_id = $1 and id = $2', [
    scope.accountId,
    scope.clusterId,
    at,
  ]);
}

/**
 * Serialises pushes to one cluster: each sees the versions the previous one stored. `for no key
 * update`, not `for update`: the rows a scan push writes for the cluster (its findings) check their
 * foreign key with `for key share`, which this does not block, so a scan holding the account's
 * scan lock never waits for a push that holds this and waits for the scan lock.
 */
export async function lockCluster(db: Executor, scope: Scope) {
  await db.query('select id from clusters where account_id = $1 and id = $2 for no key update', [
    scope.accountId,
    scope.clusterId,
  ]);
}
