/**
 * Reads of the access-control endpoints: rbac_objects (kept by sync.ts at each recompute) and the
 * identity rows of subjects (their access from the identities' API texts). Every query names the
 * account; lookups inside one cluster name it too.
 */
import type { Static } from 'typebox';
import type { Executor } from '../../db/database.js';
import type { SubjectRefSchema } from './shapes.js';
import type { StoredRule, StoredSubject } from './sync.js';

export interface RbacObjectRow {
  account_id: string;
  cluster_id: string;
  uid: string;
  object_id: string;
  kind: string;
  namespace: string;
  name: string;
  resource_version: string;
  created_at: Date | null;
  updated_at: Date;
  role_ref_kind: string | null;
  role_ref_name: string | null;
  role_ref_api_group: string | null;
  subjects: StoredSubject[] | null;
  rules: StoredRule[] | null;
  components: string[] | null;
}

const COLUMNS = `account_id, cluster_id, uid, object_id, kind, namespace, name, resource_version, created_at,
  updated_at, role_ref_kind, role_ref_name, role_ref_api_group, subjects, rules, components`;

/**
 * An object by Kubernetes uid. uids are unique within a cluster; should two clusters of the account
 * hold the same uid (a cluster restored from another's backup), the optional cluster id picks one,
 * else the most recently updated wins.
 */
export async function findObjectByUid(
  db: Executor,
  accountId: string,
  kind: string,
  uid: string,
  clusterId?: string,
): Promise<RbacObjectRow | undefined> {
  const params: unknown[] = [accountId, uid, kind];
  if (clusterId !== undefined) params.push(clusterId);
  const { rows } = await db.query<RbacObjectRow>(
    `select ${COLUMNS} from rbac_objects
      where account_id = $1 and uid = $2 and kind = $3 ${clusterId !== undefined ? 'and cluster_id = $4' : ''}
      order by updated_at desc, cluster_id limit 1`,
    params,
  );
  return rows[0];
}

/** Objects of one cluster by stable object id (graph node ids). */
export async function findObjectsById(
  db: Executor,
  accountId: string,
  clusterId: string,
  objectIds: readonly string[],
): Promise<RbacObjectRow[]> {
  if (objectIds.length === 0) return [];
  const { rows } = await db.query<RbacObjectRow>(
    `select ${COLUMNS} from rbac_objects
      where account_id = $1 and cluster_id = $2 and object_id = any($3::uuid[])`,
    [accountId, clusterId, [...new Set(objectIds)]],
  );
  return rows;
}

/** The bindings whose roleRef names this role: a Role only from RoleBindings of its namespace. */
export async function findBindingsOfRole(db: Executor, role: RbacObjectRow): Promise<RbacObjectRow[]> {
  const sameNamespace = role.kind === 'Role' ? 'and kind = $5' : '';
  const params: unknown[] = [role.account_id, role.cluster_id, role.kind, role.name];
  if (role.kind === 'Role') params.push('RoleBinding', role.namespace);
  const { rows } = await db.query<RbacObjectRow>(
    `select ${COLUMNS} from rbac_objects
      where account_id = $1 and cluster_id = $2 and role_ref_kind = $3 and role_ref_name = $4
        ${sameNamespace} ${role.kind === 'Role' ? 'and namespace = $6' : ''}
      order by kind, namespace, name, uid`,
    params,
  );
  return rows;
}

export interface SubjectIdentityRow {
  id: string;
  cluster_id: string;
  type: string;
  name: string;
  namespace: string;
  original_id: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  rbac_objects: {
    assigned_roles: Static<typeof SubjectRefSchema>[];
    graph: { nodes: { id: string; type: string; properties: Record<string, unknown> }[]; edges: GraphEdge[] };
  };
}

interface GraphEdge {
  id: string;
  from_id: string;
  to_id: string;
  type: string;
}

/** An identity row as stored: its access as the API's texts, or as jsonb for rows older than them. */
interface StoredSubjectIdentity extends Omit<SubjectIdentityRow, 'rbac_objects'> {
  assigned_roles_json: string | null;
  access_json: string | null;
  rbac_objects: SubjectIdentityRow['rbac_objects'] | null;
}

const IDENTITY_COLUMNS = `id, cluster_id, type, name, namespace, original_id, created_at, updated_at, deleted_at,
  assigned_roles_json, access_json,
  case when assigned_roles_json is null or access_json is null then rbac_objects end as rbac_objects`;

/**
 * The assigned roles and graph of an identity from its API texts, which the recompute writes
 * instead of the rbac_objects jsonb (migration 0063): the same fields, graph node properties in
 * the jsonb's key order (identity-json.ts). Rows written before the texts existed have the jsonb.
 */
function subjectIdentityRow({
  assigned_roles_json,
  access_json,
  rbac_objects,
  ...row
}: StoredSubjectIdentity): SubjectIdentityRow {
  if (assigned_roles_json !== null && access_json !== null) {
    const { graph } = JSON.parse(access_json) as Pick<SubjectIdentityRow['rbac_objects'], 'graph'>;
    return { ...row, rbac_objects: { assigned_roles: JSON.parse(assigned_roles_json), graph } };
  }
  if (rbac_objects === null)
    throw new Error(`identity ${row.id} has neither its access texts nor rbac_objects`);
  return { ...row, rbac_objects };
}

export async function findIdentities(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<SubjectIdentityRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<StoredSubjectIdentity>(
    `select ${IDENTITY_COLUMNS} from identities where account_id = $1 and id = any($2::uuid[])`,
    [accountId, [...new Set(ids)]],
  );
  return rows.map(subjectIdentityRow);
}

export async function findIdentityOfType(db: Executor, accountId: string, id: string, type: string) {
  const { rows } = await db.query<StoredSubjectIdentity>(
    `select ${IDENTITY_COLUMNS} from identities where account_id = $1 and id = $2 and type = $3`,
    [accountId, id, type],
  );
  return rows[0] && subjectIdentityRow(rows[0]);
}

/** resourceVersion of the latest version of objects of a cluster, by uid. */
export async function findResourceVersions(
  db: Executor,
  accountId: string,
  clusterId: string,
  uids: string[],
) {
  if (uids.length === 0) return new Map<string, string>();
  const { rows } = await db.query<{ uid: string; resource_version: string }>(
    `select uid, resource_version from cluster_resources
      where account_id = $1 and cluster_id = $2 and uid = any($3::text[]) and is_latest`,
    [accountId, clusterId, uids],
  );
  return new Map(rows.map((row) => [row.uid, row.resource_version]));
}
