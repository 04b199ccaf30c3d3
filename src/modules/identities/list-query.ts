/**
 * The query parameters of #14 (docs/identities-api.md): comma-joined lists, time bounds, `q` and
 * `sort`. Lists of a closed vocabulary (levels, types, statuses, usages, risk types) refuse an
 * unknown value with a 400 naming the parameter rather than silently matching nothing; levels
 * are matched in any case (`critical` = `Critical`) since finding severities elsewhere are
 * lowercase. Empty parameters never reach here (the app drops them).
 */
import { RISK_RULES } from '../../engines/rbac/index.js';
import { ApiError } from '../../http/errors.js';
import { parseList } from '../../http/filters.js';
import { requireClusterIds } from '../../http/ids.js';
import { parseSort, type Sort } from '../../http/sort.js';
import { parseTime, parseTimeRange } from '../../http/time.js';
import {
  DEFAULT_IDENTITY_SORT,
  IDENTITY_SORT_FIELDS,
  IDENTITY_TYPE_VALUES,
  RISK_LEVEL_VALUES,
  STATUS_VALUES,
  USAGE_VALUES,
} from './schemas.js';

export type IdentitySortField = (typeof IDENTITY_SORT_FIELDS)[number];

export interface IdentityFilters {
  createdFrom?: Date;
  createdTo?: Date;
  lastUsedFrom?: Date;
  lastDetectedTo?: Date;
  q?: string;
  resources: string[];
  risks: string[];
  usages: string[];
  riskLevels: string[];
  types: string[];
  sources: string[];
  actions: string[];
  statuses: string[];
}

export interface RawIdentityListQuery {
  from?: string | undefined;
  to?: string | undefined;
  from_last_used_at?: string | undefined;
  to_last_detected_at?: string | undefined;
  q?: string | undefined;
  resources?: string | undefined;
  risks?: string | undefined;
  usages?: string | undefined;
  risk_levels?: string | undefined;
  identity_types?: string | undefined;
  identity_sources?: string | undefined;
  actions?: string | undefined;
  statuses?: string | undefined;
  sort?: string | undefined;
}

export const RISK_TYPE_VALUES: readonly string[] = RISK_RULES.map((rule) => rule.type);

/** A list whose values must come from `allowed`; matched case-insensitively, returned as allowed. */
function vocabularyList(raw: string | undefined, param: string, allowed: readonly string[]): string[] {
  const byLower = new Map(allowed.map((value) => [value.toLowerCase(), value]));
  const values = parseList(raw).map((value) => {
    const known = byLower.get(value.toLowerCase());
    if (known === undefined) {
      throw ApiError.invalidParam(
        param,
        'invalid_value',
        `unknown value "${value}"; allowed: ${allowed.join(', ')}`,
      );
    }
    return known;
  });
  return [...new Set(values)];
}

function clusterIds(raw: string | undefined): string[] {
  const ids = requireClusterIds(parseList(raw), { param: 'identity_sources', code: 'invalid_format' });
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

export function parseIdentityListQuery(
  query: RawIdentityListQuery,
  now: number = Date.now(),
): { filters: IdentityFilters; sort: Sort<IdentitySortField> } {
  const created = parseTimeRange(query.from, query.to, ['from', 'to'], now);
  const filters: IdentityFilters = {
    ...(created.from ? { createdFrom: created.from } : {}),
    ...(created.to ? { createdTo: created.to } : {}),
    ...(query.from_last_used_at
      ? { lastUsedFrom: parseTime(query.from_last_used_at, 'from_last_used_at', now) }
      : {}),
    ...(query.to_last_detected_at
      ? { lastDetectedTo: parseTime(query.to_last_detected_at, 'to_last_detected_at', now) }
      : {}),
    ...(query.q ? { q: query.q } : {}),
    resources: [...new Set(parseList(query.resources))],
    risks: vocabularyList(query.risks, 'risks', RISK_TYPE_VALUES),
    usages: vocabularyList(query.usages, 'usages', USAGE_VALUES),
    riskLevels: vocabularyList(query.risk_levels, 'risk_levels', RISK_LEVEL_VALUES),
    types: vocabularyList(query.identity_types, 'identity_types', IDENTITY_TYPE_VALUES),
    sources: clusterIds(query.identity_sources),
    actions: [...new Set(parseList(query.actions))],
    statuses: vocabularyList(query.statuses, 'statuses', STATUS_VALUES),
  };
  return { filters, sort: parseSort(query.sort, IDENTITY_SORT_FIELDS, DEFAULT_IDENTITY_SORT) };
}
