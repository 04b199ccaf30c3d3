/**
 * The two per-account views the recompute step refreshes after the identity rows: the values
 * each #14 filter can take (#15), per cluster, and the identities report (#18), per account and
 * hour. Both are read back as small indexed lookups.
 */
import type { Executor } from '../../db/database.js';
import { buildIdentitiesReport, type ReportIdentity } from '../../engines/rbac/index.js';
import { newId } from '../../http/ids.js';
import type { ClusterScope } from './sources.js';

/** The cluster's filter values, from its identities' columns and facet rows. */
export async function refreshFilterValues(db: Executor, scope: ClusterScope, clusterName: string) {
  const params = [scope.accountId, scope.clusterId];
  await db.query('delete from identity_filter_values where account_id = $1 and cluster_id = $2', params);
  const ofCluster = 'from identities where account_id = $1 and cluster_id = $2';
  await db.query(
    `insert into identity_filter_values (account_id, cluster_id, facet, value, label)
     select $1, $2, facet, value, value from (
       select distinct f.facet, f.value
         from identities i join identity_facets f on f.account_id = i.account_id and f.identity_id = i.id
        where i.account_id = $1 and i.cluster_id = $2
       union select 'identity_type', type ${ofCluster}
       union select 'risk_level', risk_level ${ofCluster}
       union select 'status', status ${ofCluster}
       union select 'usage', usage ${ofCluster}
     ) as v (facet, value)`,
    params,
  );
  await db.query(
    `insert into identity_filter_values (account_id, cluster_id, facet, value, label)
     select $1, $2, 'identity_source', $3, $4
      where exists (select 1 ${ofCluster})`,
    [...params, scope.clusterId, clusterName],
  );
}

/** Live identities of the account with their open risks' types, as the report engine wants them. */
async function reportIdentities(db: Executor, accountId: string): Promise<ReportIdentity[]> {
  // Sequential: inside the ingestion transaction both engines run one statement at a time.
  const identities = await db.query<Omit<ReportIdentity, 'risks'> & { id: string }>(
    `select id, type, cluster_id as source_id, risk_score, risk_level
       from identities where account_id = $1 and deleted_at is null`,
    [accountId],
  );
  const risks = await db.query<{ identity_id: string; type: string; count: number }>(
    `select identity_id, type, count(*) as count from identity_risks
      where account_id = $1 and deleted_at is null group by identity_id, type`,
    [accountId],
  );
  const risksOf = new Map<string, { type: string }[]>();
  for (const row of risks.rows) {
    const list = risksOf.get(row.identity_id) ?? [];
    for (let i = 0; i < Number(row.count); i++) list.push({ type: row.type });
    risksOf.set(row.identity_id, list);
  }
  return identities.rows.map(({ id, ...identity }) => ({ ...identity, risks: risksOf.get(id) ?? [] }));
}

/** First key of the advisory locks of this module (the second is the account). */
const REPORT_LOCK_CLASS = 5004;

/**
 * Recomputes the account's report; one row per hour, the latest computation of the hour wins.
 * Pushes to two clusters of one account may run at once: the lock makes the second wait for the
 * first to commit, so its report reads both clusters' identities and the last writer is right.
 */
export async function writeIdentitiesReport(db: Executor, accountId: string, now: Date) {
  const accountKey = Number.parseInt(accountId.replace(/-/g, '').slice(0, 8), 16) | 0;
  await db.query('select pg_advisory_xact_lock($1::integer, $2::integer)', [REPORT_LOCK_CLASS, accountKey]);
  const report = buildIdentitiesReport(await reportIdentities(db, accountId), now);
  const { year, month, day, hour, ...body } = report;
  await db.query(
    `insert into identities_reports (account_id, id, created_at, year, month, day, hour, body)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
     on conflict (account_id, year, month, day, hour)
       do update set created_at = excluded.created_at, body = excluded.body`,
    [accountId, newId(), now, year, month, day, hour, JSON.stringify(body)],
  );
}
