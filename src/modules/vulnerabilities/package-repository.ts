/**
 * SQL of the inventory packages list (#9). Counts are stored on the rows; `in_use` is joined at
 * read time from the live containers running the account's scanned images (by image digest), so
 * it follows pod churn without any write on the package rows.
 */
import type { Executor } from '../../db/database.js';
import type { Filters } from '../../http/filters.js';
import type { OffsetPage } from '../../http/paging.js';
import { containsPattern } from '../../http/search.js';
import type { Sort } from '../../http/sort.js';
import type { Severity } from '../../ingest/vulnerabilities/severity.js';
import { countRows, keptTotal } from '../list-totals/repository.js';
import { Where } from '../resources/where.js';
import type { PackageFilterKey, PackageSortField } from './package-schemas.js';

export interface PackageRow {
  id: string;
  name: string;
  version: string;
  in_use: boolean;
  images_count: number;
  critical_count: number;
  high_count: number;
  medium_count: number;
  low_count: number;
  negligible_count: number;
  unspecified_count: number;
  total_vulerabilities_count: number;
}

export interface PackageQuery {
  filters: Filters<PackageFilterKey>;
  inUse: boolean | undefined;
  severities: Severity[];
  q?: string | undefined;
  sort: Sort<PackageSortField>;
  page: OffsetPage;
}

/**
 * Images some live container of the account runs; computed once per query, from the workloads
 * maintained at ingestion (usage-store.ts: the usage view's rows without duplicates), read from
 * their primary key instead of joining every container of the account.
 */
const IN_USE_IMAGES = `with in_use_images as materialized (
  select distinct image_id from vulnerability_image_workloads where account_id = $1)`;

const IN_USE = `exists (select 1 from vulnerability_image_packages ip
   where ip.account_id = p.account_id and ip.package_id = p.id
     and ip.image_id in (select image_id from in_use_images))`;

const COLUMNS = `p.id, p.name, p.version, p.images_count, p.critical_count, p.high_count, p.medium_count,
  p.low_count, p.negligible_count, p.unspecified_count, p.total_vulerabilities_count`;

/** Name sorts tie-break on version, count sorts on name then version; id last, so paging is stable. */
function orderBy(sort: Sort<PackageSortField>): string {
  const dir = sort.direction === 'desc' ? 'desc' : 'asc';
  if (sort.field === 'name') return `order by p.name ${dir}, p.version ${dir}, p.id ${dir}`;
  if (sort.field === 'version') return `order by p.version ${dir}, p.name ${dir}, p.id ${dir}`;
  return `order by p.${sort.field} ${dir}, p.name asc, p.version asc, p.id asc`;
}

function whereOf(accountId: string, query: PackageQuery): Where {
  const where = new Where('p.account_id = $', accountId);
  const names = query.filters.get('name');
  if (names) where.add('p.name = any($::text[])', names);
  const versions = query.filters.get('version');
  if (versions) where.add('p.version = any($::text[])', versions);
  if (query.inUse !== undefined) where.addRaw(query.inUse ? IN_USE : `not ${IN_USE}`);
  if (query.severities.length > 0) {
    // Severity values come from a closed list, so the column names below are never caller text.
    where.addRaw(`(${query.severities.map((severity) => `p.${severity}_count > 0`).join(' or ')})`);
  }
  if (query.q) {
    const pattern = where.next(containsPattern(query.q));
    where.addRaw(`(p.name ilike ${pattern} or p.version ilike ${pattern})`);
  }
  return where;
}

export async function listPackages(db: Executor, accountId: string, query: PackageQuery) {
  const where = whereOf(accountId, query);
  // Unfiltered, the account's total is kept at ingestion (migration 0022).
  const count = !where.filtered
    ? keptTotal(db, accountId, 'vulnerability_packages')
    : countRows(
        db,
        `${IN_USE_IMAGES} select count(*) as total from vulnerability_packages p where ${where.sql}`,
        [...where.params],
      );
  // The page's rows first, then `in_use` for those rows alone, one probe of two primary keys per
  // row. Asked of the account's rows before the limit (as `IN_USE`), the planner answered it for
  // all of them at once, a hashed subplan joining every image package of the account (10,000
  // packages at medium for a page of 100): 4 ms of a page on PostgreSQL, and several times that
  // on PGlite (docs/performance.md, "Fix 16e"). LIMIT 1 keeps it a probe per row.
  const list = db.query<PackageRow>(
    `${IN_USE_IMAGES} select ${COLUMNS}, u.package_id is not null as in_use
       from (select p.account_id, ${COLUMNS} from vulnerability_packages p
              where ${where.sql} ${orderBy(query.sort)}
              limit ${where.next(query.page.limit)} offset ${where.next(query.page.offset)}) p
       left join lateral (
         select ip.package_id from vulnerability_image_packages ip
           join vulnerability_image_workloads w on w.account_id = ip.account_id and w.image_id = ip.image_id
          where ip.account_id = p.account_id and ip.package_id = p.id
          limit 1) u on true
      ${orderBy(query.sort)}`,
    where.params,
  );
  const [rows, total] = await Promise.all([list, count]);
  return { rows: rows.rows, total };
}
