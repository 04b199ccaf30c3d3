/**
 * Keeps the derived rows of an account in step with its scan facts, inside the scan's
 * transaction: each CVE row (CVE x package x version) and each package row touched by a scan is
 * recomputed from the findings of every image that has it, and removed when no image has it any
 * more. Set-based statements over the touched ids only, never a rebuild of the account; a CVE
 * row is written once per scan (an upsert of its aggregate), not inserted then updated.
 *
 * Aggregation rules (docs/vulnerabilities-api.md):
 * - a CVE row takes the most severe finding's severity and data source (on a tie the newest scan,
 *   then the latest push), the first non-empty fixed_in_version in that order, the newest scan's
 *   cluster and time (last_seen_at), the earliest scan time ever seen (first_seen_at), its images
 *   (associated_images, ordered by repository, tag and digest), and, for a row not named by a
 *   CVE, the union of its findings' CVE aliases (for EPSS and KEV), and the usage aggregate of
 *   its images' workloads (usage-store.ts: affected workloads, clusters, owner and cluster ids);
 * - a package counts its distinct vulnerabilities (its CVE rows) by severity, and its images.
 *
 * A scan's packages are written once, with their counts (refreshPackages), after its CVE rows:
 * inserting them first with zero counts and updating the counts afterwards wrote every new
 * package twice, and a count update moves the row in every one of its eleven indexes
 * (docs/performance.md, "Fix 11"). The CVE rows therefore take their package's name and version
 * from the scan rather than from vulnerability_packages.
 */
import { arrayLiteral } from '../../db/array-literal.js';
import type { Executor } from '../../db/database.js';
import type { PackageRow } from './scan-rows.js';
import { usageOfImageSets } from './usage-store.js';

const FINDING_ORDER = 'f.severity_rank desc, f.scanned_at desc, i.ingested_at desc, f.image_id';

const INSERT_CVE_ROWS = `insert into vulnerability_cves (account_id, id, cve_name, package_id, package_name,
       package_version, severity, severity_rank, fixable, fixed_in_version, data_source, lookup_cves, cluster_id,
       affected_images_count, associated_images, first_seen_at, last_seen_at, affected_workloads_count,
       affected_clusters_count, affected_owner_uids, affected_cluster_ids)`;

const UPDATE_CVE_ROWS = `on conflict (account_id, id) do update set
       severity = excluded.severity, severity_rank = excluded.severity_rank, fixable = excluded.fixable,
       fixed_in_version = excluded.fixed_in_version, data_source = excluded.data_source,
       lookup_cves = excluded.lookup_cves, cluster_id = excluded.cluster_id,
       affected_images_count = excluded.affected_images_count,
       associated_images = excluded.associated_images,
       first_seen_at = least(vulnerability_cves.first_seen_at, excluded.first_seen_at),
       last_seen_at = excluded.last_seen_at,
       affected_workloads_count = excluded.affected_workloads_count,
       affected_clusters_count = excluded.affected_clusters_count,
       affected_owner_uids = excluded.affected_owner_uids, affected_cluster_ids = excluded.affected_cluster_ids`;

/** The scan's packages as a relation `p (id, name, version)` over parameters $3, $4 and $5. */
const SCANNED_PACKAGES = 'unnest($3::uuid[], $4::text[], $5::text[]) as p (id, name, version)';

const packageParams = (packages: PackageRow[]) => [
  arrayLiteral(packages, (pkg) => pkg.id),
  arrayLiteral(packages, (pkg) => pkg.name),
  arrayLiteral(packages, (pkg) => pkg.version),
];

/**
 * Upserts the CVE rows of the image's findings that no other image has, straight from those
 * findings, and returns the ids of the others (the rows another image shares, which need
 * upsertCveRows' aggregate). Such a row is the aggregate of one finding, so it needs none of the
 * ordered aggregates: its severity, fix and data source are the finding's, its cluster, images and
 * usage the image's. In a first bulk load that is nearly every row, and the aggregate (six sorts
 * per row) was most of the upsert's time.
 *
 * The image's findings are read by the image alone (they are every row the scan touches now); the
 * image's columns, its one-element associated_images and its usage are computed once per
 * statement and copied into each row, not joined and built again per row (docs/performance.md,
 * "Fix 17c").
 *
 * Whether another image has a finding's CVE row is a probe of the primary key per finding, a
 * LATERAL subquery with LIMIT 1 so that it stays one: written as EXISTS, the planner could hash
 * it instead, reading every finding of the account's other images once per push (70,000 rows,
 * 20 to 30 ms, a third of the way into the medium scan phase; docs/performance.md, "Fix 58").
 *
 * An image's first scan inserts these rows without ON CONFLICT: a CVE row exists only while some
 * finding has it, and no other image has these findings, nor did this image before, so none of
 * them exists. The upsert's speculative insertion (an index probe before each row, a confirmation
 * after it) was a quarter of the statement's cost. A rescan upserts: its previous scan's rows are
 * there.
 */
async function upsertImageOnlyCveRows(
  tx: Executor,
  accountId: string,
  imageId: string,
  packages: PackageRow[],
  firstScan: boolean,
): Promise<string[]> {
  const { rows } = await tx.query<{ cve_id: string }>(
    `with mine as materialized (
       select f.cve_id, f.cve_name, f.package_id, f.severity, f.severity_rank, f.fixed_in_version, f.data_source,
              f.lookup_cves, f.scanned_at, other.cve_id is not null as shared
         from vulnerability_findings f
         left join lateral (
           select o.cve_id from vulnerability_findings o
            where o.account_id = $1 and o.cve_id = f.cve_id and o.image_id <> $2
            limit 1
         ) other on true
        where f.account_id = $1 and f.image_id = $2
     ),
     image as materialized (
       select i.cluster_id,
              jsonb_build_array(jsonb_build_object('image_digest', i.image_digest, 'image_name', i.image_name,
                'image_repo', i.image_repo, 'image_tag', i.image_tag)) as associated_images
         from vulnerability_images i where i.account_id = $1 and i.id = $2
     ),
     usage as materialized (${usageOfImageSets('(select array[$2::uuid] as image_ids) as image')}),
     written as (
       ${INSERT_CVE_ROWS}
       select $1, f.cve_id, f.cve_name, f.package_id, p.name, p.version, f.severity, f.severity_rank,
              f.fixed_in_version <> '', f.fixed_in_version, f.data_source,
              case when f.cve_name like 'CVE-%' then array[f.cve_name]
                   else array(select distinct cve from unnest(f.lookup_cves) as cve order by cve) end,
              i.cluster_id, 1, i.associated_images, f.scanned_at, f.scanned_at,
              u.workloads, u.clusters, u.owner_uids, u.cluster_ids
         from mine f
         join ${SCANNED_PACKAGES} on p.id = f.package_id
         cross join image i
         cross join usage u
        where not f.shared
       ${firstScan ? '' : UPDATE_CVE_ROWS}
     )
     select cve_id from mine where shared`,
    [accountId, imageId, ...packageParams(packages)],
  );
  return rows.map((row) => row.cve_id);
}

/**
 * Upserts the CVE rows among these ids that some finding still has; returns nothing. A new row's
 * package is one of the scan's `packages`; a row of the previous scan only (not in `packages`)
 * already exists, so its stored package names it.
 */
async function upsertCveRows(tx: Executor, accountId: string, cveIds: string[], packages: PackageRow[]) {
  await tx.query(
    `with a as materialized (
       select f.cve_id, f.cve_name, f.package_id,
              max(f.severity_rank) as severity_rank,
              (array_agg(f.severity order by ${FINDING_ORDER}))[1] as severity,
              bool_or(f.fixed_in_version <> '') as fixable,
              (array_agg(f.fixed_in_version order by f.fixed_in_version = '', ${FINDING_ORDER}))[1]
                as fixed_in_version,
              (array_agg(f.data_source order by ${FINDING_ORDER}))[1] as data_source,
              (array_agg(i.cluster_id order by i.scanned_at desc, i.ingested_at desc, i.id))[1] as cluster_id,
              count(*) as images,
              array_agg(f.image_id order by f.image_id) as image_ids,
              jsonb_agg(jsonb_build_object('image_digest', i.image_digest, 'image_name', i.image_name,
                          'image_repo', i.image_repo, 'image_tag', i.image_tag)
                        order by i.image_repo, i.image_tag, i.image_digest) as associated_images,
              min(f.scanned_at) as first_seen_at,
              max(f.scanned_at) as last_seen_at
         from vulnerability_findings f
         join vulnerability_images i on i.account_id = f.account_id and i.id = f.image_id
        where f.account_id = $1 and f.cve_id = any($2::uuid[])
        group by f.cve_id, f.cve_name, f.package_id
     ),
     usage as materialized (${usageOfImageSets('a')})
     ${INSERT_CVE_ROWS}
     select $1, a.cve_id, a.cve_name, a.package_id,
            coalesce(p.name, (select s.name from vulnerability_packages s where s.account_id = $1 and s.id = a.package_id)),
            coalesce(p.version, (select s.version from vulnerability_packages s where s.account_id = $1 and s.id = a.package_id)),
            a.severity, a.severity_rank, a.fixable,
            a.fixed_in_version, a.data_source,
            case when a.cve_name like 'CVE-%' then array[a.cve_name]
                 else array(select distinct cve
                              from vulnerability_findings f2 cross join unnest(f2.lookup_cves) as cve
                             where f2.account_id = $1 and f2.cve_id = a.cve_id order by cve) end,
            a.cluster_id, a.images, a.associated_images, a.first_seen_at, a.last_seen_at,
            u.workloads, u.clusters, u.owner_uids, u.cluster_ids
       from a
       left join ${SCANNED_PACKAGES} on p.id = a.package_id
       join usage u on u.image_ids = a.image_ids
     ${UPDATE_CVE_ROWS}`,
    [accountId, cveIds, ...packageParams(packages)],
  );
}

/**
 * The CVE rows a scan of an image touches: `current`, those of its new findings (every finding the
 * image has now), and `maybeGone`, those only its previous scan had, removed unless another image
 * still has them. `packages` are the scan's.
 */
export async function refreshCveRows(
  tx: Executor,
  accountId: string,
  scan: {
    imageId: string;
    current: string[];
    maybeGone: string[];
    packages: PackageRow[];
    /** the image had no scan before this one */
    firstScan: boolean;
  },
) {
  const { imageId, current, maybeGone, packages, firstScan } = scan;
  const shared =
    current.length > 0 ? await upsertImageOnlyCveRows(tx, accountId, imageId, packages, firstScan) : [];
  const aggregated = [...shared, ...maybeGone];
  if (aggregated.length > 0) await upsertCveRows(tx, accountId, aggregated, packages);
  if (maybeGone.length === 0) return;
  await tx.query(
    `delete from vulnerability_cves r
      where r.account_id = $1 and r.id = any($2::uuid[])
        and not exists (select 1 from vulnerability_findings f where f.account_id = r.account_id and f.cve_id = r.id)`,
    [accountId, maybeGone],
  );
}

/** A package's counts, from its image links and its (already refreshed) CVE rows. */
const PACKAGE_COUNTS = `
  (select count(*) from vulnerability_image_packages ip where ip.account_id = $1 and ip.package_id = t.id) as images,
  count(r.id) filter (where r.severity = 'critical') as critical,
  count(r.id) filter (where r.severity = 'high') as high,
  count(r.id) filter (where r.severity = 'medium') as medium,
  count(r.id) filter (where r.severity = 'low') as low,
  count(r.id) filter (where r.severity = 'negligible') as negligible,
  count(r.id) filter (where r.severity = 'unspecified') as unspecified,
  count(r.id) as total`;

const STORED_COUNTS = `(p.images_count, p.critical_count, p.high_count, p.medium_count, p.low_count,
  p.negligible_count, p.unspecified_count, p.total_vulerabilities_count)`;

/**
 * Run after refreshCveRows: package counts are counts of the refreshed CVE rows. `packages` are
 * the scan's (inserted with their counts, or updated when they changed); `previousIds` those of
 * the image's previous scan, recounted and removed when no image holds them any more.
 */
export async function refreshPackages(
  tx: Executor,
  accountId: string,
  packages: PackageRow[],
  previousIds: string[],
) {
  if (packages.length > 0) {
    await tx.query(
      `insert into vulnerability_packages as p (account_id, id, name, version, images_count, critical_count,
         high_count, medium_count, low_count, negligible_count, unspecified_count, total_vulerabilities_count)
       select $1, t.id, t.name, t.version, c.*
         from unnest($2::uuid[], $3::text[], $4::text[]) as t (id, name, version)
         cross join lateral (
           select ${PACKAGE_COUNTS}
             from vulnerability_cves r where r.account_id = $1 and r.package_id = t.id
         ) c
       on conflict (account_id, id) do update set
         images_count = excluded.images_count, critical_count = excluded.critical_count,
         high_count = excluded.high_count, medium_count = excluded.medium_count, low_count = excluded.low_count,
         negligible_count = excluded.negligible_count, unspecified_count = excluded.unspecified_count,
         total_vulerabilities_count = excluded.total_vulerabilities_count
       where ${STORED_COUNTS} is distinct from
             (excluded.images_count, excluded.critical_count, excluded.high_count, excluded.medium_count,
              excluded.low_count, excluded.negligible_count, excluded.unspecified_count,
              excluded.total_vulerabilities_count)`,
      [
        accountId,
        packages.map((pkg) => pkg.id),
        packages.map((pkg) => pkg.name),
        packages.map((pkg) => pkg.version),
      ],
    );
  }
  const scanned = new Set(packages.map((pkg) => pkg.id));
  const dropped = previousIds.filter((id) => !scanned.has(id));
  if (dropped.length === 0) return;
  await tx.query(
    `update vulnerability_packages p set
       images_count = c.images, critical_count = c.critical, high_count = c.high, medium_count = c.medium,
       low_count = c.low, negligible_count = c.negligible, unspecified_count = c.unspecified,
       total_vulerabilities_count = c.total
     from (
       select t.id, ${PACKAGE_COUNTS}
         from unnest($2::uuid[]) as t (id)
         left join vulnerability_cves r on r.account_id = $1 and r.package_id = t.id
        group by t.id
     ) c
     where p.account_id = $1 and p.id = c.id
       and ${STORED_COUNTS}
           is distinct from (c.images, c.critical, c.high, c.medium, c.low, c.negligible, c.unspecified, c.total)`,
    [accountId, dropped],
  );
  await tx.query(
    'delete from vulnerability_packages where account_id = $1 and id = any($2::uuid[]) and images_count = 0',
    [accountId, dropped],
  );
}
