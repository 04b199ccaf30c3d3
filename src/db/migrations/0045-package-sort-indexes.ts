import type { Migration } from '../migrator.js';

/**
 * Inventory packages sorted by a count or by version, read from an index in the list's own order
 * (docs/performance.md, "Fix 23").
 *
 * A count sort orders by the count, then name, version and id ascending (the documented tie-break,
 * docs/vulnerabilities-api.md), and a version sort by version, name and id. The indexes of 0003
 * held only the sort column and id, so no index gave that order and every sorted page read and
 * sorted the whole account: packages by `critical_count` were the slowest list page at large size
 * (690 ms p99, 8.2 times their small p99).
 *
 * Each count is indexed descending, with its tie-break after it: the descending sort, the one a
 * security team reads (most vulnerable packages first), is a walk of the index's first rows, and a
 * deep page of it reads the index backwards from its end (Fix 17a). An ascending count sort still
 * sorts, by the count's groups (PostgreSQL's incremental sort where the groups are small); a
 * second index per count for it would cost every scan push eight more index updates. The version
 * sort's tie-breaks follow its direction, so one index serves both. The severity filter
 * (`<severity>_count > 0`) is a range of the same indexes, as before.
 */
export const packageSortIndexes: Migration = {
  id: '0045-package-sort-indexes',
  sql: `
drop index vulnerability_packages_version;
create index vulnerability_packages_version on vulnerability_packages (account_id, version, name, id);
drop index vulnerability_packages_images;
create index vulnerability_packages_images on vulnerability_packages (account_id, images_count desc, name, version, id);
drop index vulnerability_packages_critical;
create index vulnerability_packages_critical on vulnerability_packages (account_id, critical_count desc, name, version, id);
drop index vulnerability_packages_high;
create index vulnerability_packages_high on vulnerability_packages (account_id, high_count desc, name, version, id);
drop index vulnerability_packages_medium;
create index vulnerability_packages_medium on vulnerability_packages (account_id, medium_count desc, name, version, id);
drop index vulnerability_packages_low;
create index vulnerability_packages_low on vulnerability_packages (account_id, low_count desc, name, version, id);
drop index vulnerability_packages_negligible;
create index vulnerability_packages_negligible on vulnerability_packages (account_id, negligible_count desc, name, version, id);
drop index vulnerability_packages_unspecified;
create index vulnerability_packages_unspecified on vulnerability_packages (account_id, unspecified_count desc, name, version, id);
drop index vulnerability_packages_total;
create index vulnerability_packages_total on vulnerability_packages (account_id, total_vulerabilities_count desc, name, version, id);
`,
};
