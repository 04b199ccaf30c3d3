/**
 * Cluster actions (#25): requests for an agent to act on a cluster. The description only lists
 * them; `POST .../actions` records a `Pending` terminate_pod action for a live pod, and an
 * agent-facing way to pick up and complete actions is a later concern.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { iso, newId } from '../../http/ids.js';
import { type PageRequest, pageList, pageToOffset } from '../../http/paging.js';
import type { ClusterService } from '../clusters/service.js';
import * as repo from './repository.js';

export function toApiAction(row: repo.ClusterActionRow) {
  return {
    id: row.id,
    cluster_id: row.cluster_id,
    account_id: row.account_id,
    action_type: row.action_type,
    status: row.status,
    target_namespace: row.target_namespace,
    target_pod_name: row.target_pod_name,
    parameters: row.parameters,
    result: row.result,
    created_by: row.created_by,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    deleted_at: iso(row.deleted_at),
  };
}

export interface NewClusterAction {
  action_type: 'terminate_pod';
  target_namespace: string;
  target_pod_name: string;
  parameters?: { grace_period_seconds?: number | undefined; reason?: string | undefined } | undefined;
}

export function createClusterActionService({ db, clusters }: { db: Database; clusters: ClusterService }) {
  return {
    async list(actor: Actor, accountId: string, clusterId: string, page: PageRequest) {
      const cluster = await clusters.requireCluster(actor, accountId, clusterId, 'viewer');
      const { rows, total } = await repo.listActions(db, cluster.account_id, cluster.id, pageToOffset(page));
      return pageList(rows.map(toApiAction), total, page);
    },

    async create(actor: Actor, accountId: string, clusterId: string, input: NewClusterAction) {
      const cluster = await clusters.requireCluster(actor, accountId, clusterId, 'editor');
      const exists = await repo.livePodExists(
        db,
        cluster.account_id,
        cluster.id,
        input.target_namespace,
        input.target_pod_name,
      );
      if (!exists) {
        throw ApiError.validation([
          {
            code: 'invalid_value',
            field: 'target_pod_name',
            message: `no live pod ${input.target_namespace}/${input.target_pod_name} in this cluster`,
            param: 'body',
          },
        ]);
      }
      const row = await repo.insertAction(db, {
        id: newId(),
        cluster_id: cluster.id,
        account_id: cluster.account_id,
        action_type: input.action_type,
        status: 'Pending',
        target_namespace: input.target_namespace,
        target_pod_name: input.target_pod_name,
        parameters: input.parameters ?? {},
        created_by: actor.userId,
      });
      return toApiAction(row);
    },
  };
}

export type ClusterActionService = ReturnType<typeof createClusterActionService>;
