import type { Executor } from '../../db/database.js';
import {
  type EntryRow,
  entryJson,
  type RowVersion,
  rowVersionOf,
  type VersionedEntryRow,
} from '../../db/entry-json.js';
import { isoUtc } from '../../db/iso-time.js';
import type { OffsetPage } from '../../http/paging.js';
import { orderSql, type Sort, sortOrder } from '../../http/sort.js';
import {
  bookmarkedList,
  bookmarkPage,
  bookmarkSql,
  generationColumn,
  type PageBookmarks,
  type WithGeneration,
} from '../list-totals/page-bookmarks.js';
import { pageRange } from '../list-totals/page-range.js';
import { countOf, keptLiveResourcesTotal, pageWithTotal } from '../list-totals/repository.js';
import { type RESOURCE_SORT_FIELDS, ResourceRecordSchema } from './schemas.js';
import { Where } from './where.js';

export type ResourceSortField = (typeof RESOURCE_SORT_FIELDS)[number];

export interface ResourceFilters {
  from?: Date | undefined;
  to?: Date | undefined;
  clusterIds: string[];
  namespaces: string[];
  ownerUids: string[];
  imageDigests: string[];
  kinds: string[];
  includeHistory: boolean;
}

/**
 * A record as the API's JSON text, written by PostgreSQL (db/entry-json.ts); `raw`, the object's
 * JSON text in base64 (without the line breaks PostgreSQL's encoder writes every 76 characters),
 * only with the payload.
 */
const RECORD_COLUMNS = {
  id: 'r.id',
  account_id: 'r.account_id',
  cluster_id: 'r.cluster_id',
  uid: 'r.uid',
  resource_version: 'r.resource_version',
  kind: 'r.kind',
  api_version: 'r.api_version',
  name: 'r.name',
  namespace: 'r.namespace',
  owner_uid: 'r.owner_uid',
  entity_type: 'r.entity_type',
  resource_created_at: isoUtc('r.resource_created_at'),
  ingested_at: isoUtc('r.ingested_at'),
  watched_at: isoUtc('r.watched_at'),
  deleted_at: isoUtc('r.deleted_at'),
  deletion_source: 'r.deletion_source',
  version_overwritten_at: isoUtc('r.version_overwritten_at'),
};
const WITHOUT_PAYLOAD = entryJson(ResourceRecordSchema, { ...RECORD_COLUMNS, raw: undefined });
const WITH_PAYLOAD = entryJson(ResourceRecordSchema, {
  ...RECORD_COLUMNS,
  raw: `translate(encode(convert_to(r.raw, 'UTF8'), 'base64'), E'\\n', '')`,
});
const entry = (withPayload: boolean) => (withPayload ? WITH_PAYLOAD : WITHOUT_PAYLOAD);

const SORT_COLUMNS: Record<ResourceSortField, string> = {
  name: 'r.name',
  namespace: 'r.namespace',
  kind: 'r.kind',
  ingested_at: 'r.ingested_at',
  resource_created_at: 'r.resource_created_at',
};

/** Secondary order keeps related rows together: within a namespace or kind, by name. */
const THEN_BY: Partial<Record<ResourceSortField, string>> = { namespace: 'r.name', kind: 'r.name' };

function listWhere(accountId: string, filters: ResourceFilters): Where {
  const where = new Where('r.account_id = $', accountId);
  // The live partial indexes carry exactly this predicate.
  if (!filters.includeHistory) where.addDefinition('r.is_latest and r.deleted_at is null');
  if (filters.from) where.add('r.ingested_at >= $', filters.from);
  if (filters.to) where.add('r.ingested_at <= $', filters.to);
  if (filters.clusterIds.length > 0) where.addKept('cluster_id', 'r.cluster_id', filters.clusterIds);
  if (filters.namespaces.length > 0) where.addOneOf('r.namespace', filters.namespaces, 'text');
  if (filters.ownerUids.length > 0) where.addOneOf('r.owner_uid', filters.ownerUids, 'text');
  if (filters.kinds.length > 0) where.addKept('kind', 'r.kind', filters.kinds);
  if (filters.imageDigests.length > 0) {
    where.add(
      `exists (select 1 from cluster_resource_images i
                where i.account_id = r.account_id and i.image_digest = any($::text[])
                  and i.cluster_id = r.cluster_id and i.resource_id = r.id)`,
      filters.imageDigests,
    );
  }
  return where;
}

export interface ResourcePageQuery {
  filters: ResourceFilters;
  sort: Sort<ResourceSortField>;
  page: OffsetPage;
  withPayload: boolean;
  /** where the live list's pages are bookmarked (page-bookmarks.ts); none: every page walks */
  bookmarks?: PageBookmarks | undefined;
}

/**
 * The sorts whose every column is NOT NULL (cluster_resources, migration 0002): a row comparison
 * orders their rows as the list does, so their pages may start from a bookmark.
 * `resource_created_at` may be null.
 */
const BOOKMARKED_SORTS: ReadonlySet<ResourceSortField> = new Set([
  'name',
  'namespace',
  'kind',
  'ingested_at',
]);

/**
 * A record's key in a page, for the server's cache of entries (row-bytes-cache.ts): its cluster and
 * its id, which together are the row's key in the account. A cluster id is a UUID, so the first
 * `/` ends it whatever the record id holds.
 */
const RECORD_KEY = `concat(r.cluster_id, '/', r.id) as id`;
const ROW_VERSION = rowVersionOf('r');

/** The cluster id and the record id of a page's record key. */
function splitRecordKey(key: string): [clusterId: string, id: string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/**
 * One page of the list with its total, each row's `select` (from cluster_resources `r`, after
 * `lateral`) in the list's order.
 */
async function resourcePage<Row>(
  db: Executor,
  accountId: string,
  query: ResourcePageQuery,
  { select, lateral }: { select: string; lateral: string },
) {
  const where = listWhere(accountId, query.filters);
  const then = THEN_BY[query.sort.field];
  // cluster_id last: the same id in two clusters still has one order (the live indexes end with it).
  const order = sortOrder(query.sort, SORT_COLUMNS, ...(then ? [then] : []), 'r.id', 'r.cluster_id');
  const filter = where.sql;
  const live = !query.filters.includeHistory && !where.filtered;
  // The live versions, unfiltered or of some clusters or kinds alone: their total is kept at
  // ingestion (migrations 0050, 0064). With the history, every version is counted.
  const kept = query.filters.includeHistory ? undefined : keptLiveResourcesTotal(where, accountId);
  const total =
    kept?.statement ??
    countOf(`select count(*) as total from cluster_resources r where ${filter}`, where.params);
  // The live list's pages are bookmarked (page-bookmarks.ts): past the bookmarks' first offset,
  // each page's rows carry the list's generation, and a page near a row seen before starts from
  // it while the list is unchanged.
  const bookmarks =
    live && BOOKMARKED_SORTS.has(query.sort.field)
      ? query.bookmarks?.forPageAt(query.page.offset)
      : undefined;
  const list = bookmarkedList(accountId, 'cluster_resources_live', query.sort, (key, where) => {
    const [clusterId, id] = splitRecordKey(key);
    return `from cluster_resources r
      where r.account_id = ${where.next(accountId)} and r.cluster_id = ${where.next(clusterId)}::uuid
        and r.id = ${where.next(id)}`;
  });
  // A deferred join: the page's keys first, in order, from the sort's live index alone (no row of
  // the account is read or sorted), from the nearer end of the list or from a bookmark, then those
  // rows by primary key, put in order.
  const keys = pageRange(where, {
    rows: `select r.account_id, r.cluster_id, r.id from cluster_resources r where ${filter}`,
    order,
    page: query.page,
    keptTotal: kept?.value,
    bookmark: bookmarks && bookmarkSql(bookmarks, list, query.page.offset),
  });
  const generation = bookmarks ? generationColumn(list, where) : '';
  const page = `select ${select}${generation}
       from ${keys} k
       join cluster_resources r on r.account_id = k.account_id and r.cluster_id = k.cluster_id and r.id = k.id
       ${lateral}
      ${orderSql(order)}`;
  const read = await pageWithTotal<WithGeneration<Row & { id: string }>>(
    db,
    { sql: page, params: where.params },
    total,
  );
  return bookmarks ? bookmarkPage(bookmarks, list, query.page.offset, read) : read;
}

/** A page of records: each entry's text, with its record key and row version. */
export function listResources(db: Executor, accountId: string, query: ResourcePageQuery) {
  const { select, lateral } = entry(query.withPayload);
  return resourcePage<VersionedEntryRow>(db, accountId, query, {
    select: `${RECORD_KEY}, ${ROW_VERSION}, ${select}`,
    lateral,
  });
}

/**
 * A page of records' keys and row versions alone: the server holds most entries' bytes at their
 * version (row-bytes-cache.ts) and reads the others by key (`resourcesByKeys`).
 */
export function listResourceVersions(db: Executor, accountId: string, query: ResourcePageQuery) {
  return resourcePage<RowVersion>(db, accountId, query, {
    select: `${RECORD_KEY}, ${ROW_VERSION}`,
    lateral: '',
  });
}

/** The account's records of the page's record `keys`, without their payload: entry text and version. */
export async function resourcesByKeys(db: Executor, accountId: string, keys: readonly string[]) {
  const split = keys.map(splitRecordKey);
  const { select, lateral } = entry(false);
  const { rows } = await db.query<VersionedEntryRow>(
    `select ${RECORD_KEY}, ${ROW_VERSION}, ${select}
       from unnest($2::uuid[], $3::text[]) as k (cluster_id, id)
       join cluster_resources r on r.account_id = $1 and r.cluster_id = k.cluster_id and r.id = k.id
       ${lateral}`,
    [accountId, split.map(([clusterId]) => clusterId), split.map(([, id]) => id)],
  );
  return rows;
}

export async function findResource(
  db: Executor,
  accountId: string,
  clusterId: string,
  id: string,
  withPayload: boolean,
) {
  const { select, lateral } = entry(withPayload);
  const { rows } = await db.query<EntryRow>(
    `select ${select} from cluster_resources r ${lateral}
      where r.account_id = $1 and r.cluster_id = $2 and r.id = $3`,
    [accountId, clusterId, id],
  );
  return rows[0]?.entry;
}

export async function findLatestResource(
  db: Executor,
  accountId: string,
  clusterId: string,
  uid: string,
  withPayload: boolean,
) {
  const { select, lateral } = entry(withPayload);
  const { rows } = await db.query<EntryRow>(
    `select ${select} from cluster_resources r ${lateral}
      where r.account_id = $1 and r.cluster_id = $2 and r.uid = $3 and r.is_latest`,
    [accountId, clusterId, uid],
  );
  return rows[0]?.entry;
}
