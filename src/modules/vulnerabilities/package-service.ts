/**
 * Inventory packages (#9) and their facets (#10): one row per package name + version of the
 * account, maintained by scan ingestion; `in_use` follows the live containers at read time. A
 * page is JSON text: PostgreSQL writes its entries (db/entry-json.ts), and the server keeps their
 * bytes by version (the row's and its `in_use`, row-bytes-cache.ts), so a page of entries it holds
 * reads only its rows' ids and versions.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { booleanFilter, parseFilters } from '../../http/filters.js';
import { type OffsetPage, offsetListParts } from '../../http/paging.js';
import { entryBytes, type RowBytesCache, versionedPage } from '../../http/row-bytes-cache.js';
import { searchPathFor } from '../../http/search.js';
import { parseSort } from '../../http/sort.js';
import { SEVERITIES, type Severity } from '../../ingest/vulnerabilities/severity.js';
import type { AccountService } from '../accounts/service.js';
import { PageBookmarks } from '../list-totals/page-bookmarks.js';
import type { SearchedMatches } from '../list-totals/searched-matches.js';
import * as repo from './package-repository.js';
import { PACKAGE_FACETS, PACKAGE_FILTER_KEYS, PACKAGE_SORT_FIELDS } from './package-schemas.js';

/** Severity filter values, checked against the closed list (they also name columns). */
export function severityFilter(values: string[] | undefined): Severity[] {
  const severities = (values ?? []).map((value) => value.trim().toLowerCase());
  const bad = severities.find((value) => !(SEVERITIES as readonly string[]).includes(value));
  if (bad !== undefined) {
    throw ApiError.invalidParam(
      'filters',
      'invalid_value',
      `severity "${bad}" is not one of ${SEVERITIES.join(', ')}`,
    );
  }
  return [...new Set(severities as Severity[])];
}

export function createPackageService({
  db,
  accounts,
  entries,
  bookmarksFromOffset,
  searches,
}: {
  db: Database;
  accounts: AccountService;
  /** the list entries' bytes by version */
  entries: RowBytesCache;
  /** the first offset whose pages take bookmarks (LIST_BOOKMARKS_FROM_OFFSET) */
  bookmarksFromOffset: number;
  /** the matches of recent searches, for their later pages (searched-matches.ts); none: every page searches */
  searches: SearchedMatches | undefined;
}) {
  // Rows seen at their offsets in the unfiltered list, to start nearby pages from (page-bookmarks.ts).
  const bookmarks = new PageBookmarks({ fromOffset: bookmarksFromOffset });
  return {
    /** A page of the list as parts of its body (json-text.ts, sendJsonJoined). */
    async list(
      actor: Actor,
      accountId: string,
      query: {
        filters?: string | undefined;
        q?: string | undefined;
        sort?: string | undefined;
        page: OffsetPage;
      },
    ) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const filters = parseFilters(query.filters, PACKAGE_FILTER_KEYS);
      const list = {
        filters,
        inUse: booleanFilter('in_use', filters.get('in_use')),
        severities: severityFilter(filters.get('severity')),
        q: query.q,
        searchPath: searchPathFor(db.engine),
        sort: parseSort(query.sort, PACKAGE_SORT_FIELDS, 'name:asc'),
        page: query.page,
        bookmarks,
        searches,
      };
      const { entries: bytes, total } = await versionedPage(
        entries,
        account.id,
        {
          whole: () => repo.listPackages(db, account.id, list),
          versions: () => repo.listPackageVersions(db, account.id, list),
          byIds: (ids) => repo.packagesByIds(db, account.id, ids),
        },
        entryBytes,
      );
      return offsetListParts(bytes, total, query.page);
    },

    async facets(actor: Actor, accountId: string) {
      await accounts.requireAccount(actor, accountId, 'viewer');
      return PACKAGE_FILTER_KEYS.map((key) => ({ ...PACKAGE_FACETS[key] }));
    },
  };
}

export type PackageService = ReturnType<typeof createPackageService>;
