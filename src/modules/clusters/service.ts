/**
 * Clusters of an account, and the gates for everything under a cluster: `requireCluster` for
 * account paths (`/accounts/{account_id}/clusters/{cluster_id}/...`) and `requireVisibleCluster`
 * for `/clusters/{cluster_id}/...` paths, which name no account: the cluster is looked up among
 * the caller's visible accounts, so another tenant's or account's cluster is a 404.
 */
import type { Database } from '../../db/database.js';
import type { Actor, Role } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { iso, isUuid, newId } from '../../http/ids.js';
import { type PageRequest, pageList, pageToOffset } from '../../http/paging.js';
import { parseSort } from '../../http/sort.js';
import { type AccountService, visibleAccountIds } from '../accounts/service.js';
import * as repo from './repository.js';
import { CLUSTER_SORT_FIELDS } from './schemas.js';

export type Cluster = repo.ClusterRow;

export function toApiCluster(row: Cluster) {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    created_at: iso(row.created_at)!,
    last_ingested_at: iso(row.last_ingested_at),
  };
}

const clusterNotFound = () => new ApiError('not_found', 'cluster not found');

export function createClusterService({ db, accounts }: { db: Database; accounts: AccountService }) {
  async function requireCluster(actor: Actor, accountId: string, clusterId: string, needed: Role) {
    const account = await accounts.requireAccount(actor, accountId, needed);
    const cluster = isUuid(clusterId) ? await repo.findCluster(db, account.id, clusterId) : undefined;
    if (!cluster) throw clusterNotFound();
    return cluster;
  }

  return {
    requireCluster,

    async requireVisibleCluster(actor: Actor, clusterId: string, needed: Role): Promise<Cluster> {
      const visible = visibleAccountIds(actor);
      const cluster =
        isUuid(clusterId) && (visible === null || visible.length > 0)
          ? await repo.findClusterInTenant(db, actor.tenantId, visible, clusterId)
          : undefined;
      if (!cluster) throw clusterNotFound();
      await accounts.requireAccount(actor, cluster.account_id, needed);
      return cluster;
    },

    async create(actor: Actor, accountId: string, name: string) {
      const account = await accounts.requireAccount(actor, accountId, 'editor');
      try {
        const row = await repo.insertCluster(db, {
          accountId: account.id,
          id: newId(),
          name,
          createdBy: actor.userId,
        });
        return toApiCluster(row);
      } catch (error) {
        if (repo.isUniqueViolation(error)) {
          throw new ApiError('conflict', `a cluster named "${name}" already exists in this account`);
        }
        throw error;
      }
    },

    async get(actor: Actor, accountId: string, clusterId: string) {
      return toApiCluster(await requireCluster(actor, accountId, clusterId, 'viewer'));
    },

    async list(actor: Actor, accountId: string, query: { q?: string; sort?: string; page: PageRequest }) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const sort = parseSort(query.sort, CLUSTER_SORT_FIELDS, 'name:asc');
      const { rows, total } = await repo.listClusters(db, account.id, {
        q: query.q,
        sort,
        page: pageToOffset(query.page),
      });
      return pageList(rows.map(toApiCluster), total, query.page);
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
