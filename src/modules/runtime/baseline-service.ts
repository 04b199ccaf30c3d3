/**
 * Latest baseline fingerprints (#7): one per workload container whose learning window closed.
 * `children_limit` truncates the process tree of each fingerprint in the page.
 */
import type { Database } from '../../db/database.js';
import { truncateFingerprint } from '../../engines/runtime/index.js';
import type { Actor } from '../../http/actor.js';
import { parseFilters } from '../../http/filters.js';
import { CLUSTER_ID_FILTER, iso, requireClusterIds } from '../../http/ids.js';
import { type PageRequest, pageList, pageToOffset } from '../../http/paging.js';
import { parseSort } from '../../http/sort.js';
import type { AccountService } from '../accounts/service.js';
import * as repo from './baseline-repository.js';
import { BASELINE_FILTER_KEYS, BASELINE_SORT_FIELDS } from './baseline-schemas.js';
import { inventoryContainerId } from './container-ids.js';

/** The entry's fields before its fingerprint, in the response schema's order. */
function baselineHead(accountId: string, row: Omit<repo.BaselineRow, 'fingerprint'>) {
  return {
    id: row.id,
    account_id: accountId,
    cluster_id: row.cluster_id,
    namespace: row.namespace,
    workload_kind: row.workload_kind,
    workload_name: row.workload_name,
    container_name: row.container_name,
    image_name: row.image_name,
    notes: row.notes,
    created_at: iso(row.created_at)!,
    created_by: row.created_by,
  };
}

export function toApiBaseline(accountId: string, row: repo.BaselineRow, childrenLimit: number | undefined) {
  return {
    ...baselineHead(accountId, row),
    fingerprint:
      childrenLimit === undefined ? row.fingerprint : truncateFingerprint(row.fingerprint, { childrenLimit }),
  };
}

/** The response schema's serializer of one entry (the route compiles it once). */
export type BaselineEntry = ReturnType<typeof toApiBaseline>;
export type SerializeBaseline = (entry: BaselineEntry) => string;

/**
 * One entry's text, as parts: its fields (all strings, which JSON.stringify writes as the
 * serializer does) and the fingerprint's stored text (fingerprint-json.ts), or the serializer's
 * output for an entry without that text or whose fingerprint children_limit truncates.
 */
function entryParts(
  accountId: string,
  row: repo.ListedBaseline,
  childrenLimit: number | undefined,
  serialize: SerializeBaseline,
): string[] {
  if (row.fingerprint_json === null) {
    return [serialize(toApiBaseline(accountId, { ...row, fingerprint: row.fingerprint }, childrenLimit))];
  }
  const head = JSON.stringify(baselineHead(accountId, row));
  return [head.slice(0, -1), ',"fingerprint":', row.fingerprint_json, '}'];
}

/**
 * The page as text parts: the envelope, in PageList's field order, around the entries' parts.
 * Sent as one Buffer (utf8-bytes.ts): the fingerprints are most of a page's 0.5 MB.
 */
function pageParts(entries: string[][], total: number, request: PageRequest): string[] {
  const { page, page_count, page_size, total_count } = pageList([], total, request);
  const parts = ['{"entries":['];
  entries.forEach((entry, index) => {
    if (index > 0) parts.push(',');
    parts.push(...entry);
  });
  parts.push(
    `],"page":${page},"page_count":${page_count},"page_size":${page_size},"total_count":${total_count}}`,
  );
  return parts;
}

function baselineFilters(raw: string | undefined) {
  const filters = parseFilters(raw, BASELINE_FILTER_KEYS);
  requireClusterIds(filters.get('cluster_id') ?? [], CLUSTER_ID_FILTER);
  const containerIds = filters.get('container_id');
  if (containerIds) filters.set('container_id', containerIds.map(inventoryContainerId));
  return filters;
}

export function createBaselineService({ db, accounts }: { db: Database; accounts: AccountService }) {
  return {
    async listLatest(
      actor: Actor,
      accountId: string,
      query: {
        filters?: string | undefined;
        q?: string | undefined;
        sort?: string | undefined;
        childrenLimit?: number | undefined;
        page: PageRequest;
      },
      serialize: SerializeBaseline,
    ): Promise<string[]> {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const { rows, total } = await repo.listBaselines(db, account.id, {
        filters: baselineFilters(query.filters),
        q: query.q,
        sort: parseSort(query.sort, BASELINE_SORT_FIELDS, 'created_at:desc'),
        page: pageToOffset(query.page),
        cachedText: query.childrenLimit === undefined,
      });
      return pageParts(
        rows.map((row) => entryParts(account.id, row, query.childrenLimit, serialize)),
        total,
        query.page,
      );
    },
  };
}

export type BaselineService = ReturnType<typeof createBaselineService>;
