/**
 * Reads of the identity endpoints. Every query is scoped by account in its WHERE clause; list
 * filters and sorts read plain indexed columns and identity_facets, never JSON.
 */
import type { Executor } from '../../db/database.js';
import { isoUtc } from '../../db/iso-time.js';
import type { OffsetPage } from '../../http/paging.js';
import { addSearch, type SearchPath, TOTAL_OF_KEYS } from '../../http/search.js';
import { type ListOrder, orderSql, type Sort, sortOrder } from '../../http/sort.js';
import { pageRange } from '../list-totals/page-range.js';
import {
  countOf,
  type KeptListTotal,
  keptPerClusterTotal,
  type ListTotal,
  listPage,
} from '../list-totals/repository.js';
import { Where } from '../resources/where.js';
import type { IdentityFilters, IdentitySortField } from './list-query.js';
import { IDENTITY_SEARCH, searchedPageKeys, walkableSearch } from './search.js';

export interface IdentityRow {
  account_id: string;
  id: string;
  tenant_id: string;
  cluster_id: string;
  source_name: string;
  source_type: string;
  original_id: string;
  name: string;
  namespace: string;
  type: string;
  status: 'open' | 'resolved';
  resolved_at: Date | null;
  resolved_reason: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  last_used_at: Date | null;
  risk_score: number;
  risk_level: string;
  risk_types: string[];
  actions: string[];
  linked_resources: number;
  rightsizeable: boolean;
  risk_detectors: Record<string, unknown>;
  risks_summary: Record<string, unknown>;
  /** only for a row without the cached text below (written before migration 0016) */
  rbac_objects: Record<string, unknown> | null;
  raw_record_ids: string[];
  /** the API text of rbac_objects.assigned_roles, and of its graph and permissions (identity-json.ts) */
  assigned_roles_json: string | null;
  access_json: string | null;
}

export interface RiskRow {
  identity_id: string;
  id: string;
  fingerprint: string;
  type: string;
  name: string;
  description: string;
  weight: number;
  score: number;
  severity: string;
  namespace: string;
  associated_resources: { id: string; name: string; severity: string }[];
  risk_counter: number;
  first_detected_at: Date;
  last_detected_at: Date;
  deleted_at: Date | null;
}

/** The stored rbac_objects jsonb is read (and parsed) only for rows without the cached text. */
const COLUMNS = `i.account_id, i.id, i.tenant_id, i.cluster_id, i.source_name, i.source_type, i.original_id,
  i.name, i.namespace, i.type, i.status, i.resolved_at, i.resolved_reason, i.created_at, i.updated_at,
  i.deleted_at, i.last_used_at, i.risk_score, i.risk_level, i.risk_types, i.actions, i.linked_resources,
  i.rightsizeable, i.risk_detectors, i.risks_summary, i.raw_record_ids, i.assigned_roles_json, i.access_json,
  case when i.assigned_roles_json is null or i.access_json is null then i.rbac_objects end as rbac_objects`;

const SORT_COLUMNS: Record<IdentitySortField, string> = {
  risk_score: 'i.risk_score',
  name: 'i.name',
  namespace: 'i.namespace',
  type: 'i.type',
  created_at: 'i.created_at',
  updated_at: 'i.updated_at',
  last_used_at: 'i.last_used_at',
  last_detected_at: 'i.last_detected_at',
  linked_resources: 'i.linked_resources',
};

/** Columns that may be null sort their nulls last in both directions ("never used" at the end). */
const NULLABLE: ReadonlySet<IdentitySortField> = new Set(['last_used_at', 'last_detected_at']);

function order(sort: Sort<IdentitySortField>): ListOrder {
  const terms = sortOrder(sort, SORT_COLUMNS, 'i.id');
  if (!NULLABLE.has(sort.field)) return terms;
  const [field, ...tiebreaks] = terms;
  return [{ ...field!, nulls: 'last' }, ...tiebreaks];
}

type ListWhere = ReturnType<typeof listWhere>;

function listWhere(accountId: string, filters: IdentityFilters, searchPath: SearchPath) {
  const where = new Where('i.account_id = $', accountId);
  if (filters.createdFrom) where.add('i.created_at >= $', filters.createdFrom);
  if (filters.createdTo) where.add('i.created_at <= $', filters.createdTo);
  if (filters.lastUsedFrom) where.add('i.last_used_at >= $', filters.lastUsedFrom);
  if (filters.lastDetectedTo) where.add('i.last_detected_at <= $', filters.lastDetectedTo);
  const { countedWithPage } = addSearch(where, accountId, filters.q, IDENTITY_SEARCH, searchPath);
  const facet = (name: string, values: string[]) => {
    if (values.length === 0) return;
    where.add(
      `exists (select 1 from identity_facets f where f.account_id = i.account_id and f.identity_id = i.id
                  and f.facet = '${name}' and f.value = any($::text[]))`,
      values,
    );
  };
  facet('resource', filters.resources);
  facet('risk', filters.risks);
  facet('action', filters.actions);
  if (filters.usages.length > 0) where.addOneOf('i.usage', filters.usages, 'text');
  if (filters.riskLevels.length > 0) where.addOneOf('i.risk_level', filters.riskLevels, 'text');
  if (filters.types.length > 0) where.addOneOf('i.type', filters.types, 'text');
  if (filters.sources.length > 0) where.addKept('cluster_id', 'i.cluster_id', filters.sources);
  if (filters.statuses.length > 0) where.addOneOf('i.status', filters.statuses, 'text');
  return { where, countedWithPage };
}

/** A page of the identities list, parsed (list-query.ts). */
export interface IdentityPageQuery {
  filters: IdentityFilters;
  sort: Sort<IdentitySortField>;
  page: OffsetPage;
  /** how `q` reaches the trigram index (search.ts) */
  searchPath: SearchPath;
}

/**
 * The keys of a page as a subquery, in no particular order, and the `where` holding the values it
 * binds. A deferred join, as the containers and resources lists do (docs/performance.md, "Fix
 * 4"): the page's keys first, from the sort's index (account_id, <field>, id) or a sort of narrow
 * keys, from the nearer end of the list, then those rows by primary key. Sorting whole identity
 * rows (about 1.5 KB each) spilled to disk for a deep page at medium size. Searched through the
 * trigram index, the keys count every match too: the page carries its total.
 */
function pageKeys(
  accountId: string,
  query: IdentityPageQuery,
  listOrder: ListOrder,
  listed: ListWhere,
  kept: KeptListTotal | undefined,
) {
  const { q, ...unsearched } = query.filters;
  if (walkableSearch(q, query.sort)) {
    // `q` alone: its matches read by id or along the sort's index, whichever is shorter (search.ts)
    const others = listWhere(accountId, unsearched, query.searchPath);
    if (!others.where.filtered) {
      const keys = searchedPageKeys(others.where, {
        accountId,
        q,
        path: query.searchPath,
        order: listOrder,
        page: query.page,
      });
      return { keys, where: others.where };
    }
  }
  const { where, countedWithPage } = listed;
  const keys = pageRange(where, {
    rows: `select i.account_id, i.id${countedWithPage ? `, ${TOTAL_OF_KEYS}` : ''} from identities i where ${where.sql}`,
    order: listOrder,
    page: query.page,
    keptTotal: kept?.value,
  });
  return { keys, where };
}

/** A page's statement, its rows with `columns` in the list's order, and where its total comes from. */
function pageStatements(accountId: string, query: IdentityPageQuery, columns: string) {
  const listed = listWhere(accountId, query.filters, query.searchPath);
  const { where, countedWithPage } = listed;
  const count = countOf(`select count(*) as total from identities i where ${where.sql}`, where.params);
  // Unfiltered or by cluster alone, the total is kept at ingestion (migration 0050).
  const kept = keptPerClusterTotal(where, accountId, 'identities');
  const listOrder = order(query.sort);
  const keys = pageKeys(accountId, query, listOrder, listed, kept);
  const page = `select ${columns}${countedWithPage ? ', k.total' : ''}
       from ${keys.keys} k
       join identities i on i.account_id = k.account_id and i.id = k.id
      ${orderSql(listOrder)}`;
  const total: ListTotal = {
    carried: countedWithPage,
    kept: kept?.statement,
    count,
  };
  return { page: { sql: page, params: keys.where.params }, total };
}

export async function listIdentities(db: Executor, accountId: string, query: IdentityPageQuery) {
  const { page, total } = pageStatements(accountId, query, COLUMNS);
  return listPage<IdentityRow>(db, page, total);
}

/**
 * The version of everything an identity's API text is made from (identity-json.ts), for the bytes
 * the server keeps of it (row-bytes-cache.ts): the row's own `xmin`. Its risks' rows are the other
 * part of the text, and the recompute never writes a risk without rewriting its identity in the
 * same transaction (planRecompute, plan.ts), so a new risk version always comes with a new
 * identity version. An md5 of the risks' `id:xmin` did the same from their rows: 7.9 of the 10.1 ms
 * PostgreSQL spent on a large page (docs/performance.md, "Fix 43"). Its raw RBAC objects are
 * versions of cluster_resources, whose kind and text are never rewritten and which the service
 * never deletes. What the version cannot see is a hand-typed write of a risk or a raw object; a
 * restart forgets the kept bytes.
 */
const TEXT_VERSION = 'i.xmin::text';

/** A page's identity as the kept bytes are looked up: its id and its text's version. */
export interface IdentityVersion {
  id: string;
  text_version: string;
}

/** listIdentities' page as ids and text versions only: none of the stored texts is read. */
export async function listIdentityVersions(db: Executor, accountId: string, query: IdentityPageQuery) {
  const { page, total } = pageStatements(accountId, query, `i.id, ${TEXT_VERSION} as text_version`);
  return listPage<IdentityVersion>(db, page, total);
}

/** The rows of the given identities, in no particular order (one missing was deleted). */
export async function findIdentities(db: Executor, accountId: string, ids: readonly string[]) {
  const { rows } = await db.query<IdentityRow>(
    `select ${COLUMNS} from identities i where i.account_id = $1 and i.id = any($2::uuid[])`,
    [accountId, ids],
  );
  return rows;
}

export async function findIdentity(db: Executor, accountId: string, id: string) {
  const { rows } = await db.query<IdentityRow>(
    `select ${COLUMNS} from identities i where i.account_id = $1 and i.id = $2`,
    [accountId, id],
  );
  return rows[0];
}

const RISK_COLUMNS = `identity_id, id, fingerprint, type, name, description, weight, score, severity,
  namespace, associated_resources, risk_counter, first_detected_at, last_detected_at, deleted_at`;
/** Open risks first, the worst first; then resolved ones, the latest resolved first. */
const RISK_ORDER = `(deleted_at is not null), deleted_at desc, score desc, type, namespace, fingerprint, id`;

/** Every risk (open and resolved) of the given identities. */
export async function findRisksOf(db: Executor, accountId: string, identityIds: string[]) {
  if (identityIds.length === 0) return [];
  const { rows } = await db.query<RiskRow>(
    `select ${RISK_COLUMNS} from identity_risks
      where account_id = $1 and identity_id = any($2::uuid[]) order by identity_id, ${RISK_ORDER}`,
    [accountId, identityIds],
  );
  return rows;
}

/**
 * A risk as an identities page reads it (risk-json.ts): its stored API text up to the detection
 * times (null for a row written before migration 0025), and the times as the API writes them.
 */
export interface RiskTextRow {
  identity_id: string;
  id: string;
  head_json: string | null;
  first_detected_at: string;
  last_detected_at: string;
  deleted_at: string | null;
}

/** Every risk (open and resolved) of the given identities, as text columns, in findRisksOf's order. */
export async function findRiskTextsOf(db: Executor, accountId: string, identityIds: string[]) {
  if (identityIds.length === 0) return [];
  const { rows } = await db.query<RiskTextRow>(
    `select identity_id, id, head_json, ${isoUtc('first_detected_at')} as first_detected_at,
            ${isoUtc('last_detected_at')} as last_detected_at, ${isoUtc('deleted_at')} as deleted_at
       from identity_risks
      where account_id = $1 and identity_id = any($2::uuid[]) order by identity_id, ${RISK_ORDER}`,
    [accountId, identityIds],
  );
  return rows;
}

export async function listRisksOfType(
  db: Executor,
  accountId: string,
  identityId: string,
  type: string,
  page: OffsetPage,
) {
  const params = [accountId, identityId, type];
  const where = 'where account_id = $1 and identity_id = $2 and type = $3';
  const [rows, total] = await Promise.all([
    db.query<RiskRow>(
      `select ${RISK_COLUMNS} from identity_risks ${where} order by ${RISK_ORDER} limit $4 offset $5`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ total: number }>(`select count(*) as total from identity_risks ${where}`, params),
  ]);
  return { rows: rows.rows, total: Number(total.rows[0]?.total ?? 0) };
}

/**
 * The raw Kubernetes objects identities were computed from, by `<cluster_id>/<record id>`, as
 * their kind and stored text: primary key lookups, one query per cluster.
 */
export async function findRawObjects(db: Executor, accountId: string, idsByCluster: Map<string, string[]>) {
  const raw = new Map<string, { kind: string; raw: string }>();
  for (const [clusterId, ids] of idsByCluster) {
    if (ids.length === 0) continue;
    const { rows } = await db.query<{ id: string; kind: string; raw: string }>(
      `select id, kind, raw from cluster_resources where account_id = $1 and cluster_id = $2 and id = any($3::text[])`,
      [accountId, clusterId, ids],
    );
    for (const row of rows) raw.set(`${clusterId}/${row.id}`, { kind: row.kind, raw: row.raw });
  }
  return raw;
}

export async function findFilterValues(db: Executor, accountId: string) {
  const { rows } = await db.query<{ facet: string; value: string; label: string }>(
    'select facet, value, label from identity_filter_values where account_id = $1',
    [accountId],
  );
  return rows;
}

export interface ReportRow {
  id: string;
  account_id: string;
  created_at: Date;
  year: number;
  month: number;
  day: number;
  hour: number;
  body: Record<string, unknown>;
}

export async function findLatestReport(db: Executor, accountId: string) {
  const { rows } = await db.query<ReportRow>(
    `select id, account_id, created_at, year, month, day, hour, body from identities_reports
      where account_id = $1 order by created_at desc, id desc limit 1`,
    [accountId],
  );
  return rows[0];
}
