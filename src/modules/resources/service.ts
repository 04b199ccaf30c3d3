/**
 * Cluster resource records (#12, #13 and the latest version by uid). The list shows the current
 * version of each live object unless `include_history` asks for every stored version. Records
 * are JSON text, which PostgreSQL writes (db/entry-json.ts). The server keeps list entries' bytes
 * by row version (row-bytes-cache.ts), so a page of entries it holds reads only its rows' keys and
 * versions; pages with the payload are read whole, their entries being kilobytes each.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { parseList } from '../../http/filters.js';
import { requireClusterIds } from '../../http/ids.js';
import { type PageRequest, pageListParts, pageToOffset } from '../../http/paging.js';
import {
  createRowBytesCache,
  entryBytes,
  type RowBytesCache,
  versionedPage,
} from '../../http/row-bytes-cache.js';
import { parseSort } from '../../http/sort.js';
import { parseTimeRange } from '../../http/time.js';
import type { AccountService } from '../accounts/service.js';
import type { ClusterService } from '../clusters/service.js';
import { PageBookmarks } from '../list-totals/page-bookmarks.js';
import { kindOf } from './kinds.js';
import * as repo from './repository.js';
import { RESOURCE_SORT_FIELDS } from './schemas.js';

const DIGEST_HEX = /^[a-f0-9]{64}$/i;

/** `sha256:<hex>`; a bare 64-hex value is taken as a sha256 digest. */
export const normalizeDigest = (value: string) =>
  DIGEST_HEX.test(value) ? `sha256:${value.toLowerCase()}` : value.toLowerCase();

export interface ResourceListQuery {
  from?: string | undefined;
  to?: string | undefined;
  cluster_id?: string | undefined;
  namespace?: string | undefined;
  owner_uid?: string | undefined;
  image_digest?: string | undefined;
  resource_types?: string | undefined;
  sort?: string | undefined;
  with_payload?: boolean | undefined;
  include_history?: boolean | undefined;
  page: PageRequest;
}

/** What pages with the payload use: their entries are not kept. */
const NOT_KEPT = createRowBytesCache({ maxBytes: 0 });

export function createResourceService(deps: {
  db: Database;
  accounts: AccountService;
  clusters: ClusterService;
  /** the list entries' bytes (without payload) by row version */
  entries: RowBytesCache;
  /** the first offset whose pages take bookmarks (LIST_BOOKMARKS_FROM_OFFSET) */
  bookmarksFromOffset: number;
}) {
  const { db, accounts, clusters } = deps;
  // Rows seen at their offsets in the live list, to start nearby pages from (page-bookmarks.ts).
  const bookmarks = new PageBookmarks({ fromOffset: deps.bookmarksFromOffset });
  return {
    /** A page of the list as parts of its body (json-text.ts, sendJsonJoined). */
    async list(actor: Actor, accountId: string, query: ResourceListQuery) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const range = parseTimeRange(query.from, query.to);
      const sort = parseSort(query.sort, RESOURCE_SORT_FIELDS, 'name:asc');
      const withPayload = query.with_payload ?? false;
      const list = {
        filters: {
          ...range,
          clusterIds: requireClusterIds(parseList(query.cluster_id), {
            param: 'cluster_id',
            code: 'invalid_format',
          }),
          namespaces: parseList(query.namespace),
          ownerUids: parseList(query.owner_uid),
          imageDigests: parseList(query.image_digest).map(normalizeDigest),
          kinds: [...new Set(parseList(query.resource_types).map(kindOf))],
          includeHistory: query.include_history ?? false,
        },
        sort,
        page: pageToOffset(query.page),
        withPayload,
        bookmarks,
      };
      const { entries, total } = await versionedPage(
        withPayload ? NOT_KEPT : deps.entries,
        account.id,
        {
          whole: () => repo.listResources(db, account.id, list),
          versions: () => repo.listResourceVersions(db, account.id, list),
          byIds: (keys) => repo.resourcesByKeys(db, account.id, keys),
        },
        entryBytes,
      );
      return pageListParts(
        entries.map((entry) => [entry]),
        total,
        query.page,
      );
    },

    async get(actor: Actor, clusterId: string, resourceId: string, withPayload: boolean) {
      const cluster = await clusters.requireVisibleCluster(actor, clusterId, 'viewer');
      const entry = await repo.findResource(db, cluster.account_id, cluster.id, resourceId, withPayload);
      if (entry === undefined) throw new ApiError('not_found', 'resource not found');
      return entry;
    },

    async latest(actor: Actor, clusterId: string, uid: string, withPayload: boolean) {
      const cluster = await clusters.requireVisibleCluster(actor, clusterId, 'viewer');
      const entry = await repo.findLatestResource(db, cluster.account_id, cluster.id, uid, withPayload);
      if (entry === undefined) throw new ApiError('not_found', 'resource not found');
      return entry;
    },
  };
}

export type ResourceService = ReturnType<typeof createResourceService>;
