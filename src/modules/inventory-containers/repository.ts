import type { Executor } from '../../db/database.js';
import type { Filters } from '../../http/filters.js';
import type { OffsetPage } from '../../http/paging.js';
import { containsPattern } from '../../http/search.js';
import { orderBy, type Sort } from '../../http/sort.js';
import { Where } from '../resources/where.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SEARCH_FIELDS, CONTAINER_SORT_FIELDS } from './schemas.js';

export type ContainerFilterKey = (typeof CONTAINER_FILTER_KEYS)[number];
export type ContainerSortField = (typeof CONTAINER_SORT_FIELDS)[number];

export interface ContainerRow {
  id: string;
  cluster_id: string;
  cluster_name: string;
  container_id: string;
  created_at: Date;
  name: string;
  image_repo: string;
  image_name: string;
  image_tag: string;
  image_digest: string;
  owner_id: string;
  owner_kind: string;
  owner_name: string;
  owner_namespace: string;
  owner_resource_version: string;
  owner_uid: string;
  pod_name: string;
  pod_namespace: string;
  pod_uid: string;
}

const COLUMNS = `id, cluster_id, cluster_name, container_id, created_at, name, image_repo, image_name,
  image_tag, image_digest, owner_id, owner_kind, owner_name, owner_namespace, owner_resource_version,
  owner_uid, pod_name, pod_namespace, pod_uid`;

/** Filter keys and sort fields are, by design, the names of inventory_containers columns. */
const SORT_COLUMNS = Object.fromEntries(CONTAINER_SORT_FIELDS.map((field) => [field, field])) as Record<
  ContainerSortField,
  string
>;
const FILTER_COLUMNS = Object.fromEntries(
  CONTAINER_FILTER_KEYS.map((key) => [
    key,
    key === 'cluster_id' ? 'cluster_id = any($::uuid[])' : `${key} = any($::text[])`,
  ]),
) as Record<ContainerFilterKey, string>;

export async function listContainers(
  db: Executor,
  accountId: string,
  query: {
    filters: Filters<ContainerFilterKey>;
    q?: string | undefined;
    sort: Sort<ContainerSortField>;
    page: OffsetPage;
  },
) {
  const where = new Where('account_id = $', accountId);
  for (const [key, values] of query.filters) {
    where.add(FILTER_COLUMNS[key], values);
  }
  if (query.q) {
    const pattern = where.next(containsPattern(query.q));
    where.addRaw(`(${CONTAINER_SEARCH_FIELDS.map((field) => `${field} ilike ${pattern}`).join(' or ')})`);
  }
  const filter = where.sql;
  const count = db.query<{ total: number }>(
    `select count(*) as total from inventory_containers where ${filter}`,
    [...where.params],
  );
  const order = orderBy(query.sort, SORT_COLUMNS, 'id');
  const list = db.query<ContainerRow>(
    `select ${COLUMNS} from inventory_containers where ${filter} ${order}
      limit ${where.next(query.page.limit)} offset ${where.next(query.page.offset)}`,
    where.params,
  );
  const [rows, total] = await Promise.all([list, count]);
  return { rows: rows.rows, total: total.rows[0]?.total ?? 0 };
}
