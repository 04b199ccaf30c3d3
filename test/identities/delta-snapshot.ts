/**
 * What the identities step stored for one cluster, as comparable rows: the property test compares
 * the delta recompute's result with a full recompute's (run in a transaction that is rolled back).
 *
 * The "as of the computation" timestamps (an identity's last_used_at and last_detected_at, a
 * risk's last_detected_at) are kept apart: the delta advances them for the identities it
 * recomputes only, a full recompute for all (docs/identities-api.md).
 */
import type { Executor } from '../../src/db/database.js';

export interface Scope {
  accountId: string;
  clusterId: string;
}

type Row = Record<string, unknown>;

const normalize = (row: Row): string =>
  JSON.stringify(row, (_key, value) => (value instanceof Date ? value.toISOString() : value));

async function rows(db: Executor, sql: string, params: unknown[], omit: string[] = []): Promise<string[]> {
  const result = await db.query<Row>(sql, params);
  return result.rows
    .map((row) => normalize(Object.fromEntries(Object.entries(row).filter(([key]) => !omit.includes(key)))))
    .sort();
}

export interface StoredState {
  tables: Record<string, string[]>;
  /** id -> [last_used_at, last_detected_at] of identities, last_detected_at of risks */
  freshness: Map<string, (string | null)[]>;
}

export async function storedState(db: Executor, scope: Scope): Promise<StoredState> {
  const params = [scope.accountId, scope.clusterId];
  const ofCluster = 'where account_id = $1 and cluster_id = $2';
  const tables: Record<string, string[]> = {
    identities: await rows(db, `select * from identities ${ofCluster}`, params, [
      'last_used_at',
      'last_detected_at',
    ]),
    identity_risks: await rows(db, `select * from identity_risks ${ofCluster}`, params, ['last_detected_at']),
    identity_facets: await rows(
      db,
      `select f.* from identity_facets f join identities i on i.account_id = f.account_id and i.id = f.identity_id
        where i.account_id = $1 and i.cluster_id = $2`,
      params,
    ),
    identity_search_texts: await rows(
      db,
      `select s.* from identity_search_texts s join identities i on i.account_id = s.account_id and i.id = s.identity_id
        where i.account_id = $1 and i.cluster_id = $2`,
      params,
    ),
    identity_filter_values: await rows(db, `select * from identity_filter_values ${ofCluster}`, params),
    rbac_objects: await rows(db, `select * from rbac_objects ${ofCluster}`, params),
    identity_source_links: await rows(db, `select * from identity_source_links ${ofCluster}`, params),
    identity_report_tallies: await rows(db, `select * from identity_report_tallies ${ofCluster}`, params),
    identities_reports: await rows(
      db,
      'select * from identities_reports where account_id = $1',
      [scope.accountId],
      ['id'],
    ),
  };
  const freshness = new Map<string, (string | null)[]>();
  const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));
  const identities = await db.query<Row>(
    `select id, last_used_at, last_detected_at from identities ${ofCluster}`,
    params,
  );
  for (const row of identities.rows)
    freshness.set(`identity ${row.id}`, [iso(row.last_used_at), iso(row.last_detected_at)]);
  const risks = await db.query<Row>(`select id, last_detected_at from identity_risks ${ofCluster}`, params);
  for (const row of risks.rows) freshness.set(`risk ${row.id}`, [iso(row.last_detected_at)]);
  return { tables, freshness };
}

/** Row versions of the identities step's tables: equal before and after means nothing was written. */
export async function rowVersions(db: Executor, scope: Scope): Promise<Record<string, string[]>> {
  const versions: Record<string, string[]> = {};
  for (const table of [
    'identities',
    'identity_risks',
    'identity_filter_values',
    'rbac_objects',
    'identity_source_links',
    'identity_report_tallies',
  ]) {
    const result = await db.query<{ v: string }>(
      `select xmin::text || ':' || ctid::text as v from ${table} where account_id = $1 and cluster_id = $2`,
      [scope.accountId, scope.clusterId],
    );
    versions[table] = result.rows.map((row) => row.v).sort();
  }
  const reports = await db.query<{ v: string }>(
    'select xmin::text as v from identities_reports where account_id = $1',
    [scope.accountId],
  );
  versions.identities_reports = reports.rows.map((row) => row.v).sort();
  return versions;
}
