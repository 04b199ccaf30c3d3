/**
 * What identities are computed from: the live, latest version of every RBAC object,
 * ServiceAccount, pod and workload of one cluster, read from cluster_resources through its live
 * (account, cluster, kind) index.
 */
import type { Executor } from '../../db/database.js';
import type { Json } from '../../engines/rbac/index.js';
import { WORKLOAD_KINDS } from '../../engines/rbac/objects.js';

export const RBAC_KINDS = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'] as const;

/** Kinds whose change can change an identity: a push holding one of them triggers a recompute. */
export const IDENTITY_SOURCE_KINDS: ReadonlySet<string> = new Set([
  ...RBAC_KINDS,
  'ServiceAccount',
  'Pod',
  ...WORKLOAD_KINDS,
]);

export interface SourceObject {
  /** cluster_resources id, `<uid>_<resourceVersion>` */
  recordId: string;
  uid: string;
  kind: string;
  /** when this version was first stored */
  ingestedAt: Date;
  raw: Json;
}

export interface ClusterScope {
  accountId: string;
  clusterId: string;
}

export async function loadSourceObjects(db: Executor, scope: ClusterScope): Promise<SourceObject[]> {
  const { rows } = await db.query<{ id: string; uid: string; kind: string; ingested_at: Date; raw: string }>(
    `select id, uid, kind, ingested_at, raw from cluster_resources
      where account_id = $1 and cluster_id = $2 and kind = any($3::text[])
        and is_latest and deleted_at is null`,
    [scope.accountId, scope.clusterId, [...IDENTITY_SOURCE_KINDS]],
  );
  return rows.map((row) => ({
    recordId: row.id,
    uid: row.uid,
    kind: row.kind,
    ingestedAt: row.ingested_at,
    raw: JSON.parse(row.raw) as Json,
  }));
}

export async function findTenantOfAccount(db: Executor, accountId: string): Promise<string> {
  const { rows } = await db.query<{ tenant_id: string }>('select tenant_id from accounts where id = $1', [
    accountId,
  ]);
  const tenantId = rows[0]?.tenant_id;
  if (tenantId === undefined) throw new Error(`account ${accountId} does not exist`);
  return tenantId;
}
