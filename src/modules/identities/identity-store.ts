/**
 * SQL of the recompute step for identity rows and their facets. Every statement is scoped by
 * account (and cluster where it reads) and writes many rows at once.
 *
 * The reads and writes of a recompute's part are built here as statements and run by the caller
 * together, in one round trip (recompute.ts): none takes its parameters from another's result.
 */
import type { Executor, QueryResult, Statement } from '../../db/database.js';
import { scoreIdentity } from '../../engines/rbac/scoring.js';
import { iso } from '../../http/ids.js';
import { batches } from '../../ingest/batches.js';
import type { IdentityFill, IdentityRemoval, IdentityTouch, IdentityUpsert, StoredIdentity } from './plan.js';
import type { ClusterScope } from './sources.js';

export interface IdentityScope extends ClusterScope {
  tenantId: string;
}

interface StoredIdentityRow {
  id: string;
  status: 'open' | 'resolved';
  resolved_at: Date | null;
  resolved_reason: string | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  last_detected_at: Date | null;
  content_hash: string;
  json_cached: boolean;
}

/** The stored identities of the cluster with these ids; read by `storedIdentities`. */
export const storedIdentitiesStatement = (scope: ClusterScope, ids: readonly string[]): Statement => ({
  sql: `select id, status, resolved_at, resolved_reason, deleted_at, created_at, updated_at, last_used_at,
               last_detected_at, content_hash,
               (assigned_roles_json is not null and access_json is not null) as json_cached
          from identities where account_id = $1 and cluster_id = $2 and id = any($3::uuid[])`,
  params: [scope.accountId, scope.clusterId, ids],
});

/** The rows of `storedIdentitiesStatement`, by id. */
export function storedIdentities(result: QueryResult<Record<string, unknown>>): Map<string, StoredIdentity> {
  const rows = result.rows as unknown as StoredIdentityRow[];
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        status: row.status,
        resolved_at: iso(row.resolved_at),
        resolved_reason: row.resolved_reason,
        deleted_at: iso(row.deleted_at),
        created_at: iso(row.created_at)!,
        updated_at: iso(row.updated_at)!,
        last_used_at: iso(row.last_used_at),
        last_detected_at: iso(row.last_detected_at),
        content_hash: row.content_hash,
        json_cached: row.json_cached,
      },
    ]),
  );
}

/** The ids of the cluster's live (not deleted) identities: what a whole-cluster recompute may resolve. */
export async function loadLiveIdentityIds(db: Executor, scope: ClusterScope): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'select id from identities where account_id = $1 and cluster_id = $2 and deleted_at is null',
    [scope.accountId, scope.clusterId],
  );
  return rows.map((row) => row.id);
}

const UPSERT_COLUMNS = [
  'account_id',
  'id',
  'tenant_id',
  'cluster_id',
  'source_name',
  'source_type',
  'original_id',
  'name',
  'namespace',
  'type',
  'status',
  'resolved_at',
  'resolved_reason',
  'created_at',
  'updated_at',
  'deleted_at',
  'last_used_at',
  'last_detected_at',
  'risk_score',
  'risk_level',
  'risk_types',
  'actions',
  'usage',
  'is_system',
  'linked_resources',
  'rightsizeable',
  'risk_detectors',
  'risks_summary',
  'rbac_objects',
  'raw_record_ids',
  'content_hash',
  'assigned_roles_json',
  'access_json',
] as const;

/** Casts for parameters whose type PostgreSQL cannot infer from a VALUES list. */
const CASTS: Partial<Record<(typeof UPSERT_COLUMNS)[number], string>> = {
  account_id: 'uuid',
  id: 'uuid',
  tenant_id: 'uuid',
  cluster_id: 'uuid',
  resolved_at: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  deleted_at: 'timestamptz',
  last_used_at: 'timestamptz',
  last_detected_at: 'timestamptz',
  risk_score: 'float8',
  risk_types: 'text[]',
  actions: 'text[]',
  is_system: 'boolean',
  linked_resources: 'integer',
  rightsizeable: 'boolean',
  risk_detectors: 'jsonb',
  risks_summary: 'jsonb',
  rbac_objects: 'jsonb',
  raw_record_ids: 'text[]',
};

function upsertValues(scope: IdentityScope, { identity, content, lifecycle }: IdentityUpsert): unknown[] {
  // The access is stored only as its API text: rbac_objects, the jsonb through which rows older
  // than those texts are read, is cleared (migration 0063).
  const access = content.cachedAccess();
  return [
    scope.accountId,
    identity.id,
    scope.tenantId,
    scope.clusterId,
    identity.source_name,
    identity.source_type,
    identity.original_id,
    identity.name,
    identity.namespace,
    identity.type,
    lifecycle.status,
    lifecycle.resolved_at,
    lifecycle.resolved_reason,
    lifecycle.created_at,
    lifecycle.updated_at,
    lifecycle.deleted_at,
    lifecycle.last_used_at,
    lifecycle.last_detected_at,
    identity.risk_score,
    identity.risk_level,
    identity.risk_types,
    identity.actions,
    identity.facets.usage,
    identity.facets.system,
    identity.linked_resources,
    identity.rightsizeable,
    JSON.stringify(identity.risk_detectors),
    JSON.stringify(identity.risks_summary),
    null,
    content.rawRecordIds,
    content.hash,
    access.assignedRolesJson,
    access.accessJson,
  ];
}

const UPSERT_UPDATES = UPSERT_COLUMNS.filter((c) => !['account_id', 'id', 'created_at'].includes(c))
  .map((column) => `${column} = excluded.${column}`)
  .join(', ');

/** Whole rows (new or changed identities), in statements of up to 200 rows. */
export function upsertStatements(scope: IdentityScope, upserts: readonly IdentityUpsert[]): Statement[] {
  return [...batches(upserts, 200)].map((batch) => {
    const params: unknown[] = [];
    const rows = batch.map((upsert) => {
      const slots = upsertValues(scope, upsert).map((value, index) => {
        params.push(value);
        const cast = CASTS[UPSERT_COLUMNS[index]!];
        return cast ? `$${params.length}::${cast}` : `$${params.length}`;
      });
      return `(${slots.join(', ')})`;
    });
    return {
      sql: `insert into identities (${UPSERT_COLUMNS.join(', ')}) values ${rows.join(', ')}
            on conflict (account_id, id) do update set ${UPSERT_UPDATES}`,
      params,
    };
  });
}

/** Unchanged identities whose last use or last detection moved on. */
export function touchStatements(scope: IdentityScope, touches: readonly IdentityTouch[]): Statement[] {
  return [...batches(touches)].map((batch) => ({
    sql: `update identities i set last_used_at = v.last_used_at, last_detected_at = v.last_detected_at
            from unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[]) as v (id, last_used_at, last_detected_at)
           where i.account_id = $1 and i.id = v.id`,
    params: [
      scope.accountId,
      batch.map((touch) => touch.id),
      batch.map((touch) => touch.last_used_at),
      batch.map((touch) => touch.last_detected_at),
    ],
  }));
}

/**
 * The API text of unchanged identities stored before it was cached (migration 0016). Only rows
 * whose content is still the one the text was built from are written (the hash guards it); the
 * jsonb they were read through until now goes (migration 0063).
 */
export function fillStatements(scope: IdentityScope, fills: readonly IdentityFill[]): Statement[] {
  return [...batches(fills, 200)].map((batch) => {
    const access = batch.map((fill) => fill.content.cachedAccess());
    return {
      sql: `update identities i set assigned_roles_json = v.roles, access_json = v.access, rbac_objects = null
              from unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) as v (id, hash, roles, access)
             where i.account_id = $1 and i.id = v.id and i.content_hash = v.hash`,
      params: [
        scope.accountId,
        batch.map((fill) => fill.id),
        batch.map((fill) => fill.content.hash),
        access.map((text) => text.assignedRolesJson),
        access.map((text) => text.accessJson),
      ],
    };
  });
}

const NO_RISK = scoreIdentity([]);

/** Vanished identities: resolved, no score left; their last permissions stay as history. */
export function removalStatements(scope: IdentityScope, removals: readonly IdentityRemoval[]): Statement[] {
  const parts = [...batches(removals)];
  const updates = parts.map((batch) => {
    const column = <K extends keyof IdentityRemoval['lifecycle']>(key: K) =>
      batch.map((removal) => removal.lifecycle[key]);
    return {
      sql: `update identities i
               set status = v.status, resolved_at = v.resolved_at, resolved_reason = v.resolved_reason,
                   deleted_at = v.deleted_at, updated_at = v.updated_at, last_detected_at = v.last_detected_at,
                   risk_score = $2, risk_level = $3, risk_types = '{}', risks_summary = $4::jsonb
              from unnest($5::uuid[], $6::text[], $7::timestamptz[], $8::text[], $9::timestamptz[],
                          $10::timestamptz[], $11::timestamptz[])
                   as v (id, status, resolved_at, resolved_reason, deleted_at, updated_at, last_detected_at)
             where i.account_id = $1 and i.id = v.id`,
      params: [
        scope.accountId,
        NO_RISK.risk_score,
        NO_RISK.risk_level,
        JSON.stringify(NO_RISK.risks_summary),
        batch.map((removal) => removal.id),
        column('status'),
        column('resolved_at'),
        column('resolved_reason'),
        column('deleted_at'),
        column('updated_at'),
        column('last_detected_at'),
      ],
    };
  });
  // A resolved identity has no risk left to filter by.
  const riskFacets = parts.map((batch) => ({
    sql: `delete from identity_facets where account_id = $1 and identity_id = any($2::uuid[]) and facet = 'risk'`,
    params: [scope.accountId, batch.map((removal) => removal.id)],
  }));
  return [...updates, ...riskFacets];
}

/**
 * The facet rows of rewritten identities, made what their content says: rows no longer named are
 * deleted, new ones inserted, and the rest left alone. A rewritten identity mostly keeps its
 * resources and verbs (a binding that adds a rule on one more resource rewrites the identity),
 * and deleting and inserting every facet row again wrote both of the table's indexes for each
 * (docs/performance.md, "Fix 68").
 */
export function facetStatements(scope: ClusterScope, upserts: readonly IdentityUpsert[]): Statement[] {
  return [...batches(upserts, 100)].map((part) => {
    const rows = part.flatMap(({ identity, content }) =>
      content.facets.map((facet) => ({ id: identity.id, ...facet })),
    );
    // The delete and the insert see the same snapshot: the insert's conflicts are rows the
    // delete keeps, so neither undoes the other.
    return {
      sql: `with facets as (
              select * from unnest($3::uuid[], $4::text[], $5::text[]) as v (id, facet, value)
            ), gone as (
              delete from identity_facets f
               where f.account_id = $1 and f.identity_id = any($2::uuid[])
                 and not exists (select 1 from facets n
                                  where n.id = f.identity_id and n.facet = f.facet and n.value = f.value)
            )
            insert into identity_facets (account_id, identity_id, facet, value)
            select $1, id, facet, value from facets
            on conflict do nothing`,
      params: [
        scope.accountId,
        part.map((upsert) => upsert.identity.id),
        rows.map((row) => row.id),
        rows.map((row) => row.facet),
        rows.map((row) => row.value),
      ],
    };
  });
}
