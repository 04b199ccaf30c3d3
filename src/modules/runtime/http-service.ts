/**
 * HTTP request observations (#5): most recently seen first. `cluster_ids` and the `cluster_id`
 * filter both narrow by cluster (AND); other filters are exact matches, OR within a key. A page
 * is JSON text: PostgreSQL writes its entries (db/entry-json.ts), and the server keeps their bytes
 * by row version (row-bytes-cache.ts), so a page of entries it holds reads only its rows' ids and
 * versions.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { booleanFilter, parseFilters, parseList } from '../../http/filters.js';
import { requireClusterIds } from '../../http/ids.js';
import { type OffsetPage, offsetListParts } from '../../http/paging.js';
import { entryBytes, type RowBytesCache, versionedPage } from '../../http/row-bytes-cache.js';
import type { AccountService } from '../accounts/service.js';
import * as repo from './http-repository.js';
import { HTTP_FILTER_KEYS } from './http-schemas.js';

export function createHttpObservationService({
  db,
  accounts,
  entries,
}: {
  db: Database;
  accounts: AccountService;
  /** the list entries' bytes by row version */
  entries: RowBytesCache;
}) {
  return {
    /** A page of the list as parts of its body (json-text.ts, sendJsonJoined). */
    async list(
      actor: Actor,
      accountId: string,
      query: {
        clusterIds?: string | undefined;
        q?: string | undefined;
        filters?: string | undefined;
        page: OffsetPage;
      },
    ) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const filters = parseFilters(query.filters, HTTP_FILTER_KEYS);
      const hasPii = booleanFilter('has_pii', filters.get('has_pii'));
      filters.delete('has_pii');
      requireClusterIds(filters.get('cluster_id') ?? [], { param: 'filters', code: 'invalid_value' });
      const list = {
        clusterIds: requireClusterIds(parseList(query.clusterIds), {
          param: 'cluster_ids',
          code: 'invalid_value',
        }),
        filters: filters as Map<repo.HttpFilterKey, string[]>,
        hasPii,
        q: query.q,
        page: query.page,
      };
      const { entries: bytes, total } = await versionedPage(
        entries,
        account.id,
        {
          whole: () => repo.listObservations(db, account.id, list),
          versions: () => repo.listObservationVersions(db, account.id, list),
          byIds: (ids) => repo.observationsByIds(db, account.id, ids),
        },
        entryBytes,
      );
      return offsetListParts(bytes, total, query.page);
    },
  };
}

export type HttpObservationService = ReturnType<typeof createHttpObservationService>;
