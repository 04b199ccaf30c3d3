/**
 * The unified findings endpoints: the group list, one group with its findings (#24) and the
 * status change. Viewers read; editors change a status. Groups outside the caller's scope are
 * 404 like missing ones.
 */
import type { Database } from '../../db/database.js';
import { FINDING_SEVERITIES } from '../../engines/findings/index.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { parseFilters } from '../../http/filters.js';
import { isUuid } from '../../http/ids.js';
import { jsonArrayParts } from '../../http/paging.js';
import { type RowBytesCache, versionedPage } from '../../http/row-bytes-cache.js';
import { MAX_PAGE_SIZE } from '../../http/schemas.js';
import { parseTimeRange } from '../../http/time.js';
import type { AccountService } from '../accounts/service.js';
import { toApiFinding, toApiGroup } from './mapping.js';
import * as repo from './repository.js';
import { GROUP_FILTER_KEYS, GROUP_STATUSES, type GroupStatus } from './schemas.js';

const DEFAULT_FINDINGS_LIMIT = 100;

/** #24 declares `limit` a string: digits only, 1..MAX_PAGE_SIZE. */
export function parseFindingsLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_FINDINGS_LIMIT;
  if (!/^[0-9]+$/.test(raw)) throw ApiError.invalidParam('limit', 'invalid_format', 'must be digits only');
  const limit = Number(raw);
  if (limit < 1 || limit > MAX_PAGE_SIZE) {
    throw ApiError.invalidParam('limit', 'out_of_range', `must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  return limit;
}

/** Closed vocabularies are checked, so a typo is a 400 rather than an empty list. */
const CLOSED_VALUES: Partial<Record<(typeof GROUP_FILTER_KEYS)[number], readonly string[]>> = {
  severity: FINDING_SEVERITIES,
  status: GROUP_STATUSES,
};

function groupFilters(raw: string | undefined) {
  const filters = parseFilters(raw, GROUP_FILTER_KEYS);
  for (const [key, values] of filters) {
    const allowed = CLOSED_VALUES[key];
    if (!allowed) continue;
    const bad = values.find((value) => !allowed.includes(value));
    if (bad !== undefined) {
      throw ApiError.invalidParam(
        'filters',
        'invalid_value',
        `${key} "${bad}" is not one of ${allowed.join(', ')}`,
      );
    }
  }
  return filters;
}

/** A group as the list and #24 answer it. */
export type ApiGroup = ReturnType<typeof toApiGroup>;

/** One group's API JSON, by the route's serializer of FindingGroupSchema. */
export type SerializeGroup = (group: ApiGroup) => string;

export function createFindingService({
  db,
  accounts,
  entries,
}: {
  db: Database;
  accounts: AccountService;
  /** the list's groups' bytes by row version (row-bytes-cache.ts) */
  entries: RowBytesCache;
}) {
  async function groupWithFindings(accountId: string, groupId: string, limit: number) {
    const group = isUuid(groupId) ? await repo.findGroup(db, accountId, groupId) : undefined;
    if (!group) throw new ApiError('not_found', 'finding group not found');
    const findings = await repo.listGroupFindings(db, accountId, group.id, limit);
    return { ...toApiGroup(group), findings: findings.map(toApiFinding) };
  }

  return {
    /**
     * The list as the parts of its body, a bare JSON array (json-text.ts, sendJsonJoined): each
     * group's bytes kept by its row's version where the server holds them, the others read by id
     * and serialized (docs/performance.md, "Fix 75").
     */
    async listGroups(
      actor: Actor,
      accountId: string,
      query: { limit?: number; filters?: string; from?: string; to?: string },
      serialize: SerializeGroup,
    ): Promise<(string | Buffer)[]> {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const filters = groupFilters(query.filters);
      const range = parseTimeRange(query.from, query.to);
      const list = { filters, ...range, limit: query.limit ?? 100 };
      // The list has no total: versionedPage's is 0 and unused.
      const { entries: groups } = await versionedPage(
        entries,
        account.id,
        {
          whole: async () => ({ rows: await repo.listGroups(db, account.id, list), total: 0 }),
          versions: async () => ({ rows: await repo.listGroupVersions(db, account.id, list), total: 0 }),
          byIds: (ids) => repo.groupsByIds(db, account.id, ids),
        },
        (row) => Buffer.from(serialize(toApiGroup(row))),
      );
      return jsonArrayParts(groups);
    },

    async getGroup(actor: Actor, accountId: string, groupId: string, limit?: string) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const findingsLimit = parseFindingsLimit(limit);
      return groupWithFindings(account.id, groupId, findingsLimit);
    },

    async setStatus(actor: Actor, accountId: string, groupId: string, status: GroupStatus) {
      const account = await accounts.requireAccount(actor, accountId, 'editor');
      if (!isUuid(groupId) || !(await repo.findGroup(db, account.id, groupId))) {
        throw new ApiError('not_found', 'finding group not found');
      }
      await repo.setGroupStatus(db, account.id, groupId, { status, userId: actor.userId, at: new Date() });
      return groupWithFindings(account.id, groupId, DEFAULT_FINDINGS_LIMIT);
    },
  };
}

export type FindingService = ReturnType<typeof createFindingService>;
