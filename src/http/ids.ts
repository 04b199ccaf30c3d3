import { randomUUID } from 'node:crypto';
import { ApiError, type ValidationCode } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name an object, so lookups answer 404 without a query. */
export const isUuid = (value: string): boolean => UUID.test(value);

export const newId = (): string => randomUUID();

/**
 * Cluster ids a caller filters on. A malformed one cannot match anything, and an empty answer
 * would hide the caller's mistake: it is a 400 naming where the value came from (`param`, and
 * `label` when it sits inside the `filters` string).
 */
/** Where most lists take cluster ids: `filters=cluster_id:...`. */
export const CLUSTER_ID_FILTER = { param: 'filters', code: 'invalid_value', label: 'cluster_id' } as const;

export function requireClusterIds(
  values: readonly string[],
  where: { param: string; code: ValidationCode; label?: string },
): string[] {
  const bad = values.find((value) => !isUuid(value));
  if (bad !== undefined) {
    const prefix = where.label ? `${where.label} ` : '';
    throw ApiError.invalidParam(where.param, where.code, `${prefix}"${bad}" is not a cluster id`);
  }
  return [...values];
}

/** Timestamps leave the API as RFC 3339 UTC with milliseconds. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
