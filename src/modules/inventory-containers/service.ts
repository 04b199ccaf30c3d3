/**
 * Inventory containers (#8): one entry per container of a live pod, maintained by Kubernetes
 * ingestion (src/ingest/kubernetes/inventory.ts). Filters are exact matches, OR within a key.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { parseFilters } from '../../http/filters.js';
import { CLUSTER_ID_FILTER, requireClusterIds } from '../../http/ids.js';
import { type OffsetPage, offsetList } from '../../http/paging.js';
import { parseSort } from '../../http/sort.js';
import type { AccountService } from '../accounts/service.js';
import { normalizeDigest } from '../resources/service.js';
import * as repo from './repository.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SORT_FIELDS } from './schemas.js';

export function toApiContainer(row: repo.ContainerRow) {
  return {
    id: row.id,
    cluster_id: row.cluster_id,
    cluster_name: row.cluster_name,
    container_id: row.container_id,
    created_at: row.created_at,
    name: row.name,
    image_repo: row.image_repo,
    image_name: row.image_name,
    image_tag: row.image_tag,
    image_digest: row.image_digest,
    owner_id: row.owner_id,
    owner_kind: row.owner_kind,
    owner_name: row.owner_name,
    owner_namespace: row.owner_namespace,
    owner_resource_version: row.owner_resource_version,
    owner_uid: row.owner_uid,
    pod_name: row.pod_name,
    pod_namespace: row.pod_namespace,
    pod_uid: row.pod_uid,
  };
}

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
}: {
  db: Database;
  accounts: AccountService;
}) {
  return {
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
      const { rows, total } = await repo.listContainers(db, account.id, {
        filters: parseContainerFilters(query.filters),
        q: query.q,
        sort: parseSort(query.sort, CONTAINER_SORT_FIELDS, 'name:asc'),
        page: query.page,
      });
      return offsetList(rows.map(toApiContainer), total, query.page);
    },
  };
}

export type InventoryContainerService = ReturnType<typeof createInventoryContainerService>;
