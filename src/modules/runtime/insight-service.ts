/**
 * Runtime insights: the list (DESIGN.md section 6) reads the insight rows only, and sends the
 * entries' bytes the server keeps by row version (row-bytes-cache.ts); one insight (#6) adds the
 * baseline and ongoing fingerprints, rendered by the engine from the workload container's state and
 * truncated by `children_limit` and `most_recent_limit`.
 */
import type { Database } from '../../db/database.js';
import { buildRuntimeInsight, type Fingerprint } from '../../engines/runtime/index.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { parseFilters, parseList } from '../../http/filters.js';
import { CLUSTER_ID_FILTER, iso, isUuid, requireClusterIds } from '../../http/ids.js';
import { type OffsetPage, offsetListParts } from '../../http/paging.js';
import { type RowBytesCache, versionedPage } from '../../http/row-bytes-cache.js';
import { parseSort } from '../../http/sort.js';
import type { AccountService } from '../accounts/service.js';
import { inventoryContainerId } from './container-ids.js';
import * as repo from './insight-repository.js';
import { INSIGHT_FILTER_KEYS, INSIGHT_SORT_FIELDS } from './insight-schemas.js';
import * as workloads from './workload-repository.js';

export function toApiInsightSummary(row: repo.InsightRow) {
  const createdAt = iso(row.created_at)!;
  return {
    accountID: row.account_id,
    analysis: row.analysis,
    baselineCaptured: row.baseline_captured,
    baselineID: row.baseline_id ?? '',
    clusterID: row.cluster_id,
    createdAt,
    deletedAt: null,
    hasDrift: row.has_drift,
    id: row.id,
    llmAnalysis: row.llm_analysis,
    malicious: row.malicious,
    severity: row.severity,
    state: row.state,
    summary: {
      container_meta: row.summary.container_meta,
      createdAt,
      deletedAt: null,
      kube_meta: row.summary.kube_meta,
    },
    updatedAt: iso(row.updated_at)!,
  };
}

/** A list entry, as the route's serializer (compiled from the entry's schema) takes it. */
export type InsightSummary = ReturnType<typeof toApiInsightSummary>;
export type SerializeInsight = (entry: InsightSummary) => string;

const withContainerId = (fingerprint: Fingerprint, id: string): Fingerprint => ({
  ...fingerprint,
  containers: fingerprint.containers.map((container) => ({ ...container, id })),
});

export function createInsightService({
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
        filters?: string | undefined;
        containerIds?: string | undefined;
        sort?: string | undefined;
        page: OffsetPage;
      },
      serialize: SerializeInsight,
    ): Promise<(string | Buffer)[]> {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const filters = parseFilters(query.filters, INSIGHT_FILTER_KEYS);
      const containerIdSets = [filters.get('container_id') ?? [], parseList(query.containerIds)]
        .filter((ids) => ids.length > 0)
        .map((ids) => ids.map(inventoryContainerId));
      const list = {
        clusterIds: requireClusterIds(filters.get('cluster_id') ?? [], CLUSTER_ID_FILTER),
        containerIdSets,
        sort: parseSort(query.sort, INSIGHT_SORT_FIELDS, 'updated_at:desc'),
        page: query.page,
      };
      const { entries: bytes, total } = await versionedPage(
        entries,
        account.id,
        {
          whole: () => repo.listInsights(db, account.id, list),
          versions: () => repo.listInsightVersions(db, account.id, list),
          byIds: (ids) => repo.insightsByIds(db, account.id, ids),
        },
        (row) => Buffer.from(serialize(toApiInsightSummary(row))),
      );
      return offsetListParts(bytes, total, query.page);
    },

    async get(
      actor: Actor,
      accountId: string,
      insightId: string,
      limits: { childrenLimit?: number | undefined; mostRecentLimit?: number | undefined },
    ) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const row = isUuid(insightId) ? await repo.findInsight(db, account.id, insightId) : undefined;
      const state = row ? await workloads.loadState(db, account.id, row.workload_id) : undefined;
      if (!row || !state) throw new ApiError('not_found', 'runtime insight not found');
      const summary = toApiInsightSummary(row);
      const built = buildRuntimeInsight(state, {
        accountId: account.id,
        clusterId: row.cluster_id,
        insightId: row.id,
        baselineId: summary.baselineID,
        createdAt: summary.createdAt,
        updatedAt: summary.updatedAt,
        analysis: row.analysis,
        llmAnalysis: row.llm_analysis,
        ...(limits.childrenLimit !== undefined ? { childrenLimit: limits.childrenLimit } : {}),
        ...(limits.mostRecentLimit !== undefined ? { mostRecentLimit: limits.mostRecentLimit } : {}),
      });
      // The row's summary names the container by its inventory id; so do the fingerprints.
      const containerId = row.summary.container_meta.container_id;
      return {
        ...built,
        summary: summary.summary,
        baseline: withContainerId(built.baseline, containerId),
        ongoing: withContainerId(built.ongoing, containerId),
      };
    },
  };
}

export type InsightService = ReturnType<typeof createInsightService>;
