/** SQL of runtime_http_observations: merged by ingestion, listed by #5. */
import type { Executor } from '../../db/database.js';
import {
  type EntryColumns,
  entryJson,
  type RowVersion,
  rowVersionOf,
  type VersionedEntryRow,
} from '../../db/entry-json.js';
import { isoUtc } from '../../db/iso-time.js';
import type { HttpObservation } from '../../engines/runtime/index.js';
import type { Filters } from '../../http/filters.js';
import type { OffsetPage } from '../../http/paging.js';
import { containsPattern } from '../../http/search.js';
import { type ListOrder, orderSql } from '../../http/sort.js';
import { batches } from '../../ingest/batches.js';
import { pageRange } from '../list-totals/page-range.js';
import { countOf, keptPerClusterTotal, pageWithTotal } from '../list-totals/repository.js';
import { Where } from '../resources/where.js';
import { type HTTP_FILTER_KEYS, HTTP_SEARCH_FIELDS, HttpObservationSchema } from './http-schemas.js';

export type HttpFilterKey = Exclude<(typeof HTTP_FILTER_KEYS)[number], 'has_pii'>;

export interface StoredObservation extends Omit<HttpObservation, 'key' | 'first_seen_at' | 'last_seen_at'> {
  id: string;
  account_id: string;
  first_seen_at: Date | string;
  last_seen_at: Date | string;
}

const FIELDS = [
  'cluster_id',
  'app_protocol',
  'method',
  'scheme',
  'path',
  'source_workload_kind',
  'source_workload_name',
  'source_workload_namespace',
  'destination_addr',
  'destination_port',
  'destination_hostname',
  'destination_service_name',
  'destination_service_namespace',
  'destination_workload_kind',
  'destination_workload_name',
  'destination_workload_namespace',
  'has_pii',
  'pii_labels',
  'trusted_ip',
  'trusted_ip_prefix',
  'trusted_ip_description',
  'first_seen_at',
  'last_seen_at',
  'request_count',
] as const;
type Field = (typeof FIELDS)[number];

const CASTS: Partial<Record<Field, string>> = {
  cluster_id: 'uuid',
  destination_port: 'integer',
  has_pii: 'boolean',
  trusted_ip: 'boolean',
  first_seen_at: 'timestamptz',
  last_seen_at: 'timestamptz',
  request_count: 'bigint',
};

const COLUMNS = `account_id, id, ${FIELDS.join(', ')}`;

/**
 * A listed observation as the API's JSON text, written by PostgreSQL (db/entry-json.ts): the
 * schema's properties are the table's columns, the times written as the API's ISO text.
 */
const ENTRY = entryJson(
  HttpObservationSchema,
  Object.fromEntries(
    (['id', 'account_id', ...FIELDS] as const).map((field) => [
      field,
      field === 'first_seen_at' || field === 'last_seen_at' ? isoUtc(`o.${field}`) : `o.${field}`,
    ]),
  ) as EntryColumns<typeof HttpObservationSchema>,
);

export async function findObservations(db: Executor, accountId: string, ids: string[]) {
  const found = new Map<string, StoredObservation>();
  for (const batch of batches(ids)) {
    const { rows } = await db.query<StoredObservation>(
      `select ${COLUMNS} from runtime_http_observations where account_id = $1 and id = any($2::uuid[])`,
      [accountId, batch],
    );
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

/** Writes merged observations (the caller merged them with what was stored). */
export async function upsertObservations(
  db: Executor,
  accountId: string,
  observations: (HttpObservation & { id: string })[],
) {
  // unnest cannot take an array of arrays per row: labels travel comma-joined (they hold no comma).
  const columns = FIELDS.map((field, index) => {
    const cast = CASTS[field] ?? 'text';
    return field === 'pii_labels'
      ? { field, param: `$${index + 3}::text[]`, select: "string_to_array(v.pii_labels, ',')" }
      : { field, param: `$${index + 3}::${cast}[]`, select: `v.${field}` };
  });
  for (const batch of batches(observations)) {
    await db.query(
      `insert into runtime_http_observations (account_id, id, ${FIELDS.join(', ')})
       select $1, v.id, ${columns.map((c) => c.select).join(', ')}
         from unnest($2::uuid[], ${columns.map((c) => c.param).join(', ')}) as v (id, ${FIELDS.join(', ')})
       on conflict (account_id, id) do update set
         ${FIELDS.filter((f) => f !== 'cluster_id')
           .map((f) => `${f} = excluded.${f}`)
           .join(', ')}`,
      [
        accountId,
        batch.map((o) => o.id),
        ...FIELDS.map((field) =>
          batch.map((o) => (field === 'pii_labels' ? o.pii_labels.join(',') : o[field])),
        ),
      ],
    );
  }
}

export interface ObservationListQuery {
  clusterIds: string[];
  filters: Filters<HttpFilterKey>;
  hasPii: boolean | undefined;
  q?: string | undefined;
  page: OffsetPage;
}

/** Most recently seen first: what a reviewer of live traffic wants on top. */
const ORDER: ListOrder = [
  // Qualified: the bare name would be the select list's text of last_seen_at, which no index is
  // ordered by.
  { column: 'o.last_seen_at', direction: 'desc' },
  { column: 'o.id', direction: 'desc' },
];

/**
 * One page of the list with its total: each observation's `columns` (over the page's rows `o`, and
 * after `lateral`), read from `read` of the table with the row's version.
 */
async function observationPage<Row>(
  db: Executor,
  accountId: string,
  query: ObservationListQuery,
  { read, columns, lateral }: { read: string; columns: string; lateral: string },
) {
  const where = new Where('account_id = $', accountId);
  if (query.clusterIds.length > 0) where.addKept('cluster_id', 'cluster_id', query.clusterIds);
  where.addColumnFilters(query.filters);
  if (query.hasPii !== undefined) where.add('has_pii = $', query.hasPii);
  if (query.q) {
    const pattern = where.next(containsPattern(query.q));
    where.addRaw(`(${HTTP_SEARCH_FIELDS.map((field) => `${field} ilike ${pattern}`).join(' or ')})`);
  }
  // Unfiltered or by cluster alone, the total is kept at ingestion (migration 0028).
  const kept = keptPerClusterTotal(where, accountId, 'runtime_http_observations');
  const total =
    kept?.statement ??
    countOf(`select count(*) as total from runtime_http_observations where ${where.sql}`, where.params);
  const rows = pageRange(where, {
    rows: `select ${read}, ${rowVersionOf('o')} from runtime_http_observations o where ${where.sql}`,
    order: ORDER,
    page: query.page,
    keptTotal: kept?.value,
  });
  const page = `select ${columns} from ${rows} o ${lateral} ${orderSql(ORDER)}`;
  return pageWithTotal<Row>(db, { sql: page, params: where.params }, total);
}

/** A page of observations, each entry's text and its row's version. */
export function listObservations(db: Executor, accountId: string, query: ObservationListQuery) {
  return observationPage<VersionedEntryRow>(db, accountId, query, {
    read: COLUMNS,
    columns: `o.id, o.row_version, ${ENTRY.select}`,
    lateral: ENTRY.lateral,
  });
}

/**
 * A page of observations' ids and row versions alone: the server holds most entries' bytes at
 * their version (row-bytes-cache.ts) and reads the others by id (`observationsByIds`).
 */
export function listObservationVersions(db: Executor, accountId: string, query: ObservationListQuery) {
  return observationPage<RowVersion>(db, accountId, query, {
    read: 'id, last_seen_at',
    columns: 'o.id, o.row_version',
    lateral: '',
  });
}

/** The account's observations `ids`: each entry's text and its row's version. */
export async function observationsByIds(db: Executor, accountId: string, ids: readonly string[]) {
  const { rows } = await db.query<VersionedEntryRow>(
    `select o.id, ${rowVersionOf('o')}, ${ENTRY.select}
       from runtime_http_observations o ${ENTRY.lateral}
      where o.account_id = $1 and o.id = any($2::uuid[])`,
    [accountId, ids],
  );
  return rows;
}
