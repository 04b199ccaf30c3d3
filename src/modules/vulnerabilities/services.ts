/** The services of scan ingestion, the package and CVE reports, and the feeds, for src/services.ts. */
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { type RowBytesCache, rowBytesOfTable } from '../../http/row-bytes-cache.js';
import type { AccountService } from '../accounts/service.js';
import type { ClusterService } from '../clusters/service.js';
import type { SearchedMatches } from '../list-totals/searched-matches.js';
import { createCveReportService } from './cve-report-service.js';
import { createFeedService, type KevChangeListener } from './feed-service.js';
import { createVulnerabilityIngestService, type ScanPushListener } from './ingest-service.js';
import { createPackageService } from './package-service.js';

export function createVulnerabilityServices(deps: {
  config: Config;
  db: Database;
  accounts: AccountService;
  clusters: ClusterService;
  /** list entries' bytes by version, shared with other lists (LIST_ENTRY_CACHE_MB) */
  listEntries: RowBytesCache;
  /** the matches of recent searches, shared with other lists (SEARCHED_MATCHES_MAX_IDS) */
  searchedMatches: SearchedMatches | undefined;
  /** run inside each stored scan's transaction (the findings evaluation) */
  scanListeners?: readonly ScanPushListener[];
  /** run inside a KEV import's transaction with the CVEs that entered or left the catalog */
  kevListeners?: readonly KevChangeListener[];
}) {
  const { config, db, accounts, clusters } = deps;
  return {
    vulnerabilityIngest: createVulnerabilityIngestService({
      db,
      clusters,
      listeners: deps.scanListeners ?? [],
    }),
    packages: createPackageService({
      db,
      accounts,
      entries: rowBytesOfTable(deps.listEntries, 'vulnerability_packages'),
      bookmarksFromOffset: config.LIST_BOOKMARKS_FROM_OFFSET,
      searches: deps.searchedMatches,
    }),
    cveReport: createCveReportService({ db, accounts }),
    feeds: createFeedService({
      db,
      feedAdminTenant: config.FEED_ADMIN_TENANT,
      kevListeners: deps.kevListeners ?? [],
    }),
  };
}
