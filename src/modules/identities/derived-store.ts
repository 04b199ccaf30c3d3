/**
 * The two per-account views the recompute step refreshes after the identity rows: the values
 * each #14 filter can take (#15), per cluster, and the identities report (#18), per account and
 * hour, added up from a tally kept per cluster (migration 0059). Both are read back as small
 * indexed lookups.
 */
import type { Executor } from '../../db/database.js';
import { type IdentitiesTally, reportFromTallies } from '../../engines/rbac/index.js';
import { newId } from '../../http/ids.js';
import type { ClusterScope } from './sources.js';

/**
 * The cluster's filter values, from its identities' columns and facet rows (every identity of the
 * cluster, resolved ones included: their values still find them).
 *
 * The facet values are not read from the cluster's facet rows (about eleven an identity, 113,804
 * rows for a cluster of 10,000 identities at the large benchmark size): the account's distinct
 * (facet, value) pairs are walked in `identity_facets_value`, one index descent each (a few dozen
 * pairs), and each is kept when one identity of the cluster holds it, found through the same index
 * and `identities_cluster` with `limit 1`, so the probe stops at the first holder. A pair held
 * only by other clusters' identities is read to its end; pairs are shared across clusters as a
 * rule (verbs, resources, risk types), so that is the exception. The columns take one pass over the
 * cluster's identities (docs/performance.md, "Fix 60").
 */
export async function refreshFilterValues(db: Executor, scope: ClusterScope, clusterName: string) {
  const params = [scope.accountId, scope.clusterId];
  await db.query('delete from identity_filter_values where account_id = $1 and cluster_id = $2', params);
  await db.query(
    `with recursive pairs (facet, value) as (
       (select facet, value from identity_facets where account_id = $1 order by facet, value limit 1)
       union all
       select next.facet, next.value
         from pairs p cross join lateral (
           select f.facet, f.value from identity_facets f
            where f.account_id = $1 and (f.facet, f.value) > (p.facet, p.value)
            order by f.facet, f.value limit 1) as next
     )
     insert into identity_filter_values (account_id, cluster_id, facet, value, label)
     select $1, $2, facet, value, value from (
       select p.facet, p.value
         from pairs p cross join lateral (
           select 1 from identity_facets f
             join identities i on i.account_id = f.account_id and i.id = f.identity_id
            where f.account_id = $1 and f.facet = p.facet and f.value = p.value and i.cluster_id = $2
            limit 1) as held
       union
       select distinct v.facet, v.value
         from identities i
        cross join lateral (values ('identity_type', i.type), ('risk_level', i.risk_level),
                                   ('status', i.status), ('usage', i.usage)) as v (facet, value)
        where i.account_id = $1 and i.cluster_id = $2
     ) as v (facet, value)`,
    params,
  );
  await db.query(
    `insert into identity_filter_values (account_id, cluster_id, facet, value, label)
     select $1, $2, 'identity_source', $3, $4
      where exists (select 1 from identities where account_id = $1 and cluster_id = $2)`,
    [...params, scope.clusterId, clusterName],
  );
}

/** First key of the advisory locks of this module (the second is the account). */
const REPORT_LOCK_CLASS = 5004;

/**
 * Refreshes the cluster's tally from its stored identities and open risks, then writes the
 * account's report for the hour from every cluster's tally; the latest computation of the hour
 * wins. Only the recomputed cluster is read: the other clusters' tallies were written by their
 * own pushes (docs/performance.md, "Fix 59").
 *
 * Pushes to two clusters of one account may run at once: the lock makes the second wait for the
 * first to commit before it reads the tallies, so its report counts both clusters and the last
 * writer is right.
 */
export async function writeIdentitiesReport(db: Executor, scope: ClusterScope, now: Date) {
  const { accountId } = scope;
  await db.query(
    `insert into identity_report_tallies (account_id, cluster_id, tally)
     values ($1, $2, identity_report_tally($1, $2))
     on conflict (account_id, cluster_id) do update set tally = excluded.tally`,
    [accountId, scope.clusterId],
  );
  const accountKey = Number.parseInt(accountId.replace(/-/g, '').slice(0, 8), 16) | 0;
  await db.query('select pg_advisory_xact_lock($1::integer, $2::integer)', [REPORT_LOCK_CLASS, accountKey]);
  const { rows } = await db.query<{ cluster_id: string; tally: IdentitiesTally }>(
    'select cluster_id, tally from identity_report_tallies where account_id = $1',
    [accountId],
  );
  const report = reportFromTallies(
    rows.map((row) => ({ source_id: row.cluster_id, tally: row.tally })),
    now,
  );
  const { year, month, day, hour, ...body } = report;
  await db.query(
    `insert into identities_reports (account_id, id, created_at, year, month, day, hour, body)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
     on conflict (account_id, year, month, day, hour)
       do update set created_at = excluded.created_at, body = excluded.body`,
    [accountId, newId(), now, year, month, day, hour, JSON.stringify(body)],
  );
}
