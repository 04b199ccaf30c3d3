/**
 * HTTP request observations (#5): most recently seen first. `cluster_ids` and the `cluster_id`
 * filter both narrow by cluster (AND); other filters are exact matches, OR within a key.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { booleanFilter, parseFilters, parseList } from '../../http/filters.js';
import { requireClusterIds } from '../../http/ids.js';
import { type OffsetPage, offsetList } from '../../http/paging.js';
import type { AccountService } from '../accounts/service.js';
import * as repo from './http-repository.js';
import { HTTP_FILTER_KEYS } from './http-schemas.js';

export function toApiObservation(row: repo.ListedObservation) {
  return {
    id: row.id,
    account_id: row.account_id,
    cluster_id: row.cluster_id,
    app_protocol: row.app_protocol,
    method: row.method,
    scheme: row.scheme,
    path: row.path,
    source_workload_kind: row.source_workload_kind,
    source_workload_name: row.source_workload_name,
    source_workload_namespace: row.source_workload_namespace,
    destination_addr: row.destination_addr,
    destination_port: row.destination_port,
    destination_hostname: row.destination_hostname,
    destination_service_name: row.destination_service_name,
    destination_service_namespace: row.destination_service_namespace,
    destination_workload_kind: row.destination_workload_kind,
    destination_workload_name: row.destination_workload_name,
    destination_workload_namespace: row.destination_workload_namespace,
    has_pii: row.has_pii,
    pii_labels: row.pii_labels,
    trusted_ip: row.trusted_ip,
    trusted_ip_prefix: row.trusted_ip_prefix,
    trusted_ip_description: row.trusted_ip_description,
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
    request_count: row.request_count,
  };
}

export function createHttpObservationService({ db, accounts }: { db: Database; accounts: AccountService }) {
  return {
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
      const { rows, total } = await repo.listObservations(db, account.id, {
        clusterIds: requireClusterIds(parseList(query.clusterIds), {
          param: 'cluster_ids',
          code: 'invalid_value',
        }),
        filters: filters as Map<repo.HttpFilterKey, string[]>,
        hasPii,
        q: query.q,
        page: query.page,
      });
      return offsetList(rows.map(toApiObservation), total, query.page);
    },
  };
}

export type HttpObservationService = ReturnType<typeof createHttpObservationService>;
