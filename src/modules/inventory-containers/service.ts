/**
 * Inventory containers (#8): one entry per container of a live pod, maintained by Kubernetes
 * ingestion (src/ingest/kubernetes/inventory.ts). Filters are exact matches, OR within a key.
 * A page is JSON text: PostgreSQL writes its entries (db/entry-json.ts), and the server keeps
 * their bytes by row version (row-bytes-cache.ts), so a page of entries it holds reads only its
 * rows' ids and versions.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { parseFilters } from '../../http/filters.js';
import { CLUSTER_ID_FILTER, requireClusterIds } from '../../http/ids.js';
import { type OffsetPage, offsetListParts } from '../../http/paging.js';
import { entryBytes, type RowBytesCache, versionedPage } from '../../http/row-bytes-cache.js';
import { searchPathFor } from '../../http/search.js';
import { parseSort } from '../../http/sort.js';
import type { AccountService } from '../accounts/service.js';
import { PageBookmarks } from '../list-totals/page-bookmarks.js';
import type { SearchedMatches } from '../list-totals/searched-matches.js';
import { normalizeDigest } from '../resources/service.js';
import * as repo from './repository.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SORT_FIELDS } from './schemas.js';

function parseContainerFilters(raw: string | undefined) {
  const filters = parseFilters(raw, CONTAINER_FILTER_KEYS);
  requireClusterIds(filters.get('cluster_id') ?? [], CLUSTER_ID_FILTER);
  const digests = filters.get('image_digest');
  if (digests) filters.set('image_digest', digests.map(normalizeDigest));
  return filters;
}

export function createInventoryContainerService({
  db,
  accounts,
  entries,
  bookmarksFromOffset,
  searches,
}: {
  db: Database;
  accounts: AccountService;
  /** the list entries' bytes by row version */
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
      const list = {
        filters: parseContainerFilters(query.filters),
        q: query.q,
        searchPath: searchPathFor(db.engine),
        sort: parseSort(query.sort, CONTAINER_SORT_FIELDS, 'name:asc'),
        page: query.page,
        bookmarks,
        searches,
      };
      const { entries: bytes, total } = await versionedPage(
        entries,
        account.id,
        {
          whole: () => repo.listContainers(db, account.id, list),
          versions: () => repo.listContainerVersions(db, account.id, list),
          byIds: (ids) => repo.containersByIds(db, account.id, ids),
        },
        entryBytes,
      );
      return offsetListParts(bytes, total, query.page);
    },
  };
}

export type InventoryContainerService = ReturnType<typeof createInventoryContainerService>;
