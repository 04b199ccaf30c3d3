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

export function createFindingService({ db, accounts }: { db: Database; accounts: AccountService }) {
  async function groupWithFindings(accountId: string, groupId: string, limit: number) {
    const group = isUuid(groupId) ? await repo.findGroup(db, accountId, groupId) : undefined;
    if (!group) throw new ApiError('not_found', 'finding group not found');
    const findings = await repo.listGroupFindings(db, accountId, group.id, limit);
    return { ...toApiGroup(group), findings: findings.map(toApiFinding) };
  }

  return {
    async listGroups(
      actor: Actor,
      accountId: string,
      query: { limit?: number; filters?: string; from?: string; to?: string },
    ) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const filters = groupFilters(query.filters);
      const range = parseTimeRange(query.from, query.to);
      const rows = await repo.listGroups(db, account.id, { filters, ...range, limit: query.limit ?? 100 });
      return rows.map(toApiGroup);
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
