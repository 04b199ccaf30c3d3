/**
 * Latest baseline fingerprints (#7): one per workload container whose learning window closed.
 * `children_limit` truncates the process tree of each fingerprint in the page. Otherwise each
 * fingerprint is its stored text, whose bytes the server keeps between pages (row-bytes-cache.ts).
 */
import type { Database, Executor } from '../../db/database.js';
import { truncateFingerprint } from '../../engines/runtime/index.js';
import type { Actor } from '../../http/actor.js';
import { parseFilters } from '../../http/filters.js';
import { CLUSTER_ID_FILTER, iso, requireClusterIds } from '../../http/ids.js';
import { type PageRequest, pageListParts, pageToOffset } from '../../http/paging.js';
import type { RowBytesCache } from '../../http/row-bytes-cache.js';
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
 * serializer does) and the fingerprint's stored text (fingerprint-json.ts) or its bytes, or the
 * serializer's output for an entry without that text or whose fingerprint children_limit truncates.
 */
function entryParts(
  accountId: string,
  row: repo.ListedBaseline,
  fingerprintBytes: ReadonlyMap<string, Buffer>,
  childrenLimit: number | undefined,
  serialize: SerializeBaseline,
): (string | Buffer)[] {
  if (row.fingerprint !== null) {
    return [serialize(toApiBaseline(accountId, { ...row, fingerprint: row.fingerprint }, childrenLimit))];
  }
  const head = JSON.stringify(baselineHead(accountId, row));
  const fingerprint = row.fingerprint_json ?? fingerprintBytes.get(row.id)!;
  return [head.slice(0, -1), ',"fingerprint":', fingerprint, '}'];
}

/**
 * The fingerprint bytes of a `version` page's rows whose text is stored: from the cache, or read
 * and kept. Undefined when a row was rewritten or deleted between the page's read and this one:
 * the caller then reads the page again with its texts.
 */
async function fingerprintBytesOf(
  db: Executor,
  cache: RowBytesCache,
  accountId: string,
  rows: readonly repo.ListedBaseline[],
): Promise<Map<string, Buffer> | undefined> {
  const bytes = new Map<string, Buffer>();
  const missing: repo.ListedBaseline[] = [];
  for (const row of rows) {
    if (row.fingerprint !== null || row.fingerprint_json !== null) continue;
    const held = cache.get(accountId, row.id, row.row_version);
    if (held) bytes.set(row.id, held);
    else missing.push(row);
  }
  if (missing.length === 0) return bytes;
  const stored = await repo.fingerprintTexts(
    db,
    accountId,
    missing.map((row) => row.id),
  );
  for (const row of missing) {
    const text = stored.get(row.id);
    if (text?.version !== row.row_version || text.text === null) return undefined;
    bytes.set(row.id, cache.keep(accountId, row.id, row.row_version, Buffer.from(text.text)));
  }
  return bytes;
}

function baselineFilters(raw: string | undefined) {
  const filters = parseFilters(raw, BASELINE_FILTER_KEYS);
  requireClusterIds(filters.get('cluster_id') ?? [], CLUSTER_ID_FILTER);
  const containerIds = filters.get('container_id');
  if (containerIds) filters.set('container_id', containerIds.map(inventoryContainerId));
  return filters;
}

const NO_BYTES: ReadonlyMap<string, Buffer> = new Map();

export function createBaselineService({
  db,
  accounts,
  fingerprints,
}: {
  db: Database;
  accounts: AccountService;
  fingerprints: RowBytesCache;
}) {
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
    ): Promise<(string | Buffer)[]> {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const list = {
        filters: baselineFilters(query.filters),
        q: query.q,
        sort: parseSort(query.sort, BASELINE_SORT_FIELDS, 'created_at:desc'),
        page: pageToOffset(query.page),
      };
      // The fallback below reads the same page again: the parameters are parsed once.
      const read = (fingerprint: repo.FingerprintRead) =>
        repo.listBaselines(db, account.id, { ...list, fingerprint });
      // The page as text parts, sent piece by piece with its Content-Length (json-text.ts,
      // sendJsonPieces): the fingerprints are most of a page's bytes.
      const parts = ({ rows, total }: { rows: repo.ListedBaseline[]; total: number }, bytes = NO_BYTES) =>
        pageListParts(
          rows.map((row) => entryParts(account.id, row, bytes, query.childrenLimit, serialize)),
          total,
          query.page,
        );
      if (query.childrenLimit !== undefined) return parts(await read('parsed'));
      if (!fingerprints.enabled) return parts(await read('text'));
      const page = await read('version');
      const bytes = await fingerprintBytesOf(db, fingerprints, account.id, page.rows);
      // A row rewritten or deleted between the two reads: the page again, with its texts.
      return bytes ? parts(page, bytes) : parts(await read('text'));
    },
  };
}

export type BaselineService = ReturnType<typeof createBaselineService>;
