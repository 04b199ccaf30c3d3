/** SQL of runtime_baselines: written when a learning window closes, listed by #7. */
import type { Executor } from '../../db/database.js';
import type { Fingerprint } from '../../engines/runtime/index.js';
import type { Filters } from '../../http/filters.js';
import type { OffsetPage } from '../../http/paging.js';
import { containsPattern } from '../../http/search.js';
import { orderSql, type Sort, sortOrder } from '../../http/sort.js';
import { batches } from '../../ingest/batches.js';
import { pageRange } from '../list-totals/page-range.js';
import { countOf, keptPerClusterTotal, pageWithTotal } from '../list-totals/repository.js';
import { Where } from '../resources/where.js';
import {
  type BASELINE_FILTER_KEYS,
  BASELINE_SEARCH_FIELDS,
  BASELINE_SORT_FIELDS,
} from './baseline-schemas.js';
import { fingerprintJson } from './fingerprint-json.js';

export type BaselineFilterKey = (typeof BASELINE_FILTER_KEYS)[number];
export type BaselineSortField = (typeof BASELINE_SORT_FIELDS)[number];

export interface BaselineRow {
  id: string;
  workload_id: string;
  cluster_id: string;
  namespace: string;
  workload_kind: string;
  workload_name: string;
  container_name: string;
  container_id: string;
  image_name: string;
  notes: string;
  fingerprint: Fingerprint;
  created_at: Date | string;
  created_by: string;
}

/**
 * How a page reads each baseline's fingerprint:
 * - `parsed`: the stored jsonb, parsed, for a caller that changes it (children_limit);
 * - `text`: the API's text rendered when the baseline was written (migration 0023), or the parsed
 *   jsonb for a row without that text;
 * - `version`: for a row with its text, only the row's version, whose text the server may hold
 *   (row-bytes-cache.ts; `fingerprintTexts` reads the others); the parsed jsonb for a row without.
 */
export type FingerprintRead = 'parsed' | 'text' | 'version';

/**
 * A listed baseline, with its row's version (`xmin`). Its fingerprint is the parsed jsonb, or its
 * text, or neither: a `version` read of a row whose text is stored.
 */
export type ListedBaseline = Omit<BaselineRow, 'fingerprint'> & { row_version: string } & (
    | { fingerprint: Fingerprint; fingerprint_json: null }
    | { fingerprint: null; fingerprint_json: string | null }
  );

const LIST_COLUMNS = `id, workload_id, cluster_id, namespace, workload_kind, workload_name, container_name,
  container_id, image_name, notes, created_at, created_by`;

/** Sort fields and filter keys are, by design, column names of runtime_baselines. */
const SORT_COLUMNS = Object.fromEntries(BASELINE_SORT_FIELDS.map((f) => [f, f])) as Record<
  BaselineSortField,
  string
>;

export async function insertBaselines(db: Executor, accountId: string, rows: BaselineRow[]) {
  // A fingerprint is at most a few hundred KiB: small batches keep one statement's parameters sane.
  for (const batch of batches(rows, 20)) {
    const col = <V>(pick: (row: BaselineRow) => V) => batch.map(pick);
    await db.query(
      `insert into runtime_baselines (account_id, id, workload_id, cluster_id, namespace, workload_kind,
         workload_name, container_name, container_id, image_name, notes, fingerprint, created_at, created_by,
         fingerprint_json)
       select $1, v.id, v.workload_id, v.cluster_id, v.namespace, v.workload_kind, v.workload_name,
              v.container_name, v.container_id, v.image_name, v.notes, v.fingerprint::jsonb, v.created_at,
              v.created_by, v.fingerprint_json
         from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::text[], $12::text[], $13::timestamptz[], $14::text[],
                     $15::text[])
              as v (id, workload_id, cluster_id, namespace, workload_kind, workload_name, container_name,
                    container_id, image_name, notes, fingerprint, created_at, created_by, fingerprint_json)
       on conflict (account_id, workload_id) do nothing`,
      [
        accountId,
        col((r) => r.id),
        col((r) => r.workload_id),
        col((r) => r.cluster_id),
        col((r) => r.namespace),
        col((r) => r.workload_kind),
        col((r) => r.workload_name),
        col((r) => r.container_name),
        col((r) => r.container_id),
        col((r) => r.image_name),
        col((r) => r.notes),
        col((r) => JSON.stringify(r.fingerprint)),
        col((r) => r.created_at),
        col((r) => r.created_by),
        col((r) => fingerprintJson(r.fingerprint)),
      ],
    );
  }
}

export async function listBaselines(
  db: Executor,
  accountId: string,
  query: {
    filters: Filters<BaselineFilterKey>;
    q?: string | undefined;
    sort: Sort<BaselineSortField>;
    page: OffsetPage;
    fingerprint: FingerprintRead;
  },
) {
  const where = new Where('account_id = $', accountId);
  where.addColumnFilters(query.filters);
  if (query.q) {
    const pattern = where.next(containsPattern(query.q));
    where.addRaw(`(${BASELINE_SEARCH_FIELDS.map((field) => `${field} ilike ${pattern}`).join(' or ')})`);
  }
  // Unfiltered or by cluster alone, the total is kept at ingestion (migration 0028).
  const kept = keptPerClusterTotal(where, accountId, 'runtime_baselines');
  const total =
    kept?.statement ??
    countOf(`select count(*) as total from runtime_baselines where ${where.sql}`, where.params);
  // The jsonb is read (and parsed by pg) only for rows whose text is missing, and the text only
  // where the caller asks for it: neither is detoasted otherwise.
  const fingerprint = {
    parsed: 'fingerprint, null as fingerprint_json',
    text: 'case when fingerprint_json is null then fingerprint end as fingerprint, fingerprint_json',
    version:
      'case when fingerprint_json is null then fingerprint end as fingerprint, null as fingerprint_json',
  }[query.fingerprint];
  const order = sortOrder(query.sort, SORT_COLUMNS, 'id');
  const rows = pageRange(where, {
    rows: `select ${LIST_COLUMNS}, xmin::text as row_version, fingerprint, fingerprint_json
             from runtime_baselines where ${where.sql}`,
    order,
    page: query.page,
    keptTotal: kept?.value,
  });
  const page = `select ${LIST_COLUMNS}, row_version, ${fingerprint} from ${rows} b ${orderSql(order)}`;
  return pageWithTotal<ListedBaseline>(db, { sql: page, params: where.params }, total);
}

/** The stored fingerprint texts of the account's baselines `ids`, with their rows' versions, by id. */
export async function fingerprintTexts(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, { version: string; text: string | null }>> {
  const { rows } = await db.query<{ id: string; row_version: string; fingerprint_json: string | null }>(
    `select id, xmin::text as row_version, fingerprint_json
       from runtime_baselines where account_id = $1 and id = any($2::uuid[])`,
    [accountId, ids],
  );
  return new Map(rows.map((row) => [row.id, { version: row.row_version, text: row.fingerprint_json }]));
}
