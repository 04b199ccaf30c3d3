/** SQL of runtime_insights: upserted by ingestion, read by the insight list and detail (#6). */

import type { Executor } from '../../db/database.js';
import type { RowVersion } from '../../db/entry-json.js';
import type { AnalysisRecord, RuntimeInsight, Severity } from '../../engines/runtime/index.js';
import type { OffsetPage } from '../../http/paging.js';
import { orderSql, type Sort, sortOrder } from '../../http/sort.js';
import { batches } from '../../ingest/batches.js';
import { pageRange } from '../list-totals/page-range.js';
import { countOf, keptPerClusterTotal, pageWithTotal } from '../list-totals/repository.js';
import { Where } from '../resources/where.js';
import type { INSIGHT_SORT_FIELDS } from './insight-schemas.js';

export type InsightSortField = (typeof INSIGHT_SORT_FIELDS)[number];

export interface InsightSummaryJson {
  container_meta: {
    container_id: string;
    container_image_digest: string;
    container_image_name: string;
    container_name: string;
    runtime_name: string;
  };
  kube_meta: {
    cluster_id: string;
    container_name: string;
    namespace: string;
    node_name: string;
    pod_name: string;
  };
}

export interface InsightWrite {
  id: string;
  workload_id: string;
  cluster_id: string;
  baseline_id: string | null;
  container_id: string;
  namespace: string;
  workload_kind: string;
  workload_name: string;
  container_name: string;
  severity: Severity;
  severity_rank: number;
  state: RuntimeInsight['state'];
  has_drift: boolean;
  malicious: boolean;
  baseline_captured: boolean;
  summary: InsightSummaryJson;
  analysis: AnalysisRecord[];
  analysis_digest: string;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface InsightRow extends InsightWrite {
  account_id: string;
  llm_analysis: AnalysisRecord | null;
}

/** What an update needs of the stored insight. */
export interface InsightHead {
  id: string;
  created_at: Date;
  analysis_digest: string;
  has_llm_analysis: boolean;
}

const COLUMNS = `account_id, id, workload_id, cluster_id, baseline_id, container_id, namespace, workload_kind,
  workload_name, container_name, severity, severity_rank, state, has_drift, malicious, baseline_captured,
  summary, analysis, llm_analysis, analysis_digest, created_at, updated_at`;

const SORT_COLUMNS: Record<InsightSortField, string> = {
  updated_at: 'updated_at',
  created_at: 'created_at',
  severity: 'severity_rank',
};

/** What a page of versions reads of each row: its id and what the page is ordered by. */
const VERSION_ORDER_COLUMNS = `id, ${Object.values(SORT_COLUMNS).join(', ')}`;

export async function findHeads(db: Executor, accountId: string, ids: string[]) {
  if (ids.length === 0) return new Map<string, InsightHead>();
  const { rows } = await db.query<InsightHead>(
    `select id, created_at, analysis_digest, llm_analysis is not null as has_llm_analysis
       from runtime_insights where account_id = $1 and id = any($2::uuid[])`,
    [accountId, ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Creates or replaces insights. An LLM analysis of other signals than the new ones is marked stale. */
export async function upsertInsights(db: Executor, accountId: string, rows: InsightWrite[]) {
  for (const batch of batches(rows, 200)) {
    const col = <V>(pick: (row: InsightWrite) => V) => batch.map(pick);
    await db.query(
      `insert into runtime_insights (account_id, id, workload_id, cluster_id, baseline_id, container_id,
         namespace, workload_kind, workload_name, container_name, severity, severity_rank, state, has_drift,
         malicious, baseline_captured, summary, analysis, analysis_digest, created_at, updated_at)
       select $1, v.id, v.workload_id, v.cluster_id, v.baseline_id, v.container_id, v.namespace,
              v.workload_kind, v.workload_name, v.container_name, v.severity, v.severity_rank, v.state,
              v.has_drift, v.malicious, v.baseline_captured, v.summary::jsonb, v.analysis::jsonb,
              v.analysis_digest, v.created_at, v.updated_at
         from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::text[], $12::smallint[], $13::text[], $14::boolean[],
                     $15::boolean[], $16::boolean[], $17::text[], $18::text[], $19::text[],
                     $20::timestamptz[], $21::timestamptz[])
              as v (id, workload_id, cluster_id, baseline_id, container_id, namespace, workload_kind,
                    workload_name, container_name, severity, severity_rank, state, has_drift, malicious,
                    baseline_captured, summary, analysis, analysis_digest, created_at, updated_at)
       on conflict (account_id, id) do update set
         baseline_id = excluded.baseline_id,
         container_id = excluded.container_id,
         severity = excluded.severity,
         severity_rank = excluded.severity_rank,
         state = excluded.state,
         has_drift = excluded.has_drift,
         malicious = excluded.malicious,
         baseline_captured = excluded.baseline_captured,
         summary = excluded.summary,
         analysis = excluded.analysis,
         llm_analysis = case when runtime_insights.analysis_digest = excluded.analysis_digest
                             then runtime_insights.llm_analysis
                             else jsonb_set(runtime_insights.llm_analysis, '{stale}', 'true') end,
         analysis_digest = excluded.analysis_digest,
         updated_at = excluded.updated_at`,
      [
        accountId,
        col((r) => r.id),
        col((r) => r.workload_id),
        col((r) => r.cluster_id),
        col((r) => r.baseline_id),
        col((r) => r.container_id),
        col((r) => r.namespace),
        col((r) => r.workload_kind),
        col((r) => r.workload_name),
        col((r) => r.container_name),
        col((r) => r.severity),
        col((r) => r.severity_rank),
        col((r) => r.state),
        col((r) => r.has_drift),
        col((r) => r.malicious),
        col((r) => r.baseline_captured),
        col((r) => JSON.stringify(r.summary)),
        col((r) => JSON.stringify(r.analysis)),
        col((r) => r.analysis_digest),
        col((r) => r.created_at),
        col((r) => r.updated_at),
      ],
    );
  }
}

export async function findInsight(db: Executor, accountId: string, id: string) {
  const { rows } = await db.query<InsightRow>(
    `select ${COLUMNS} from runtime_insights where account_id = $1 and id = $2`,
    [accountId, id],
  );
  return rows[0];
}

/** An insight's row version (`xmin`), which every update of the row renews. */
export type InsightVersion = RowVersion;

export type VersionedInsight = InsightRow & InsightVersion;

export interface InsightListQuery {
  clusterIds: string[];
  /** each entry: container ids of which one must match (OR); entries AND together */
  containerIdSets: string[][];
  sort: Sort<InsightSortField>;
  page: OffsetPage;
}

/**
 * One page of the list with its total: each insight's `columns` and version, read from `read`
 * (the columns, and those the page is ordered by).
 */
async function insightPage<Row>(
  db: Executor,
  accountId: string,
  query: InsightListQuery,
  { read, columns }: { read: string; columns: string },
) {
  const where = new Where('i.account_id = $', accountId);
  if (query.clusterIds.length > 0) where.addKept('cluster_id', 'i.cluster_id', query.clusterIds);
  for (const ids of query.containerIdSets) {
    // Any container instance the workload container was seen in, not only the latest.
    where.add(
      `exists (select 1 from runtime_container_instances c
                where c.account_id = i.account_id and c.workload_id = i.workload_id
                  and c.container_id = any($::text[]))`,
      ids,
    );
  }
  // Unfiltered or by cluster alone, the total is kept at ingestion (migration 0028).
  const kept = keptPerClusterTotal(where, accountId, 'runtime_insights');
  const total =
    kept?.statement ??
    countOf(`select count(*) as total from runtime_insights i where ${where.sql}`, where.params);
  const order = sortOrder(query.sort, SORT_COLUMNS, 'id');
  const rows = pageRange(where, {
    rows: `select ${read}, xmin::text as row_version from runtime_insights i where ${where.sql}`,
    order,
    page: query.page,
    keptTotal: kept?.value,
  });
  const page = `select ${columns}, row_version from ${rows} i ${orderSql(order)}`;
  return pageWithTotal<Row>(db, { sql: page, params: where.params }, total);
}

/** A page of insights, whole. */
export function listInsights(db: Executor, accountId: string, query: InsightListQuery) {
  return insightPage<VersionedInsight>(db, accountId, query, { read: COLUMNS, columns: COLUMNS });
}

/**
 * A page of insights' ids and versions alone: the server holds most entries' bytes at their
 * version (row-bytes-cache.ts), and reads the others by id (`insightsByIds`).
 */
export function listInsightVersions(db: Executor, accountId: string, query: InsightListQuery) {
  return insightPage<InsightVersion>(db, accountId, query, { read: VERSION_ORDER_COLUMNS, columns: 'id' });
}

/** The account's insights `ids`, whole and with their versions. */
export async function insightsByIds(db: Executor, accountId: string, ids: readonly string[]) {
  const { rows } = await db.query<VersionedInsight>(
    `select ${COLUMNS}, xmin::text as row_version from runtime_insights where account_id = $1 and id = any($2::uuid[])`,
    [accountId, ids],
  );
  return rows;
}

/** Stores an LLM analysis unless a later push has changed what it analysed (the digest). */
export async function saveLlmAnalysis(
  db: Executor,
  accountId: string,
  id: string,
  digest: string,
  record: AnalysisRecord,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update runtime_insights set llm_analysis = $4::text::jsonb
      where account_id = $1 and id = $2 and analysis_digest = $3`,
    [accountId, id, digest, JSON.stringify(record)],
  );
  return rowCount > 0;
}
