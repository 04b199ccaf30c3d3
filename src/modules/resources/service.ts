/**
 * Cluster resource records (#12, #13 and the latest version by uid). The list shows the current
 * version of each live object unless `include_history` asks for every stored version. Records
 * are JSON text, which PostgreSQL writes (db/entry-json.ts).
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { parseList } from '../../http/filters.js';
import { requireClusterIds } from '../../http/ids.js';
import { type PageRequest, pageListText, pageToOffset } from '../../http/paging.js';
import { parseSort } from '../../http/sort.js';
import { parseTimeRange } from '../../http/time.js';
import type { AccountService } from '../accounts/service.js';
import type { ClusterService } from '../clusters/service.js';
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

export function createResourceService(deps: {
  db: Database;
  accounts: AccountService;
  clusters: ClusterService;
}) {
  const { db, accounts, clusters } = deps;
  return {
    async list(actor: Actor, accountId: string, query: ResourceListQuery) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const range = parseTimeRange(query.from, query.to);
      const sort = parseSort(query.sort, RESOURCE_SORT_FIELDS, 'name:asc');
      const { rows, total } = await repo.listResources(db, account.id, {
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
        withPayload: query.with_payload ?? false,
      });
      return pageListText(
        rows.map((row) => row.entry),
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
