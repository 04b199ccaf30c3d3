/**
 * Time parameters: RFC 3339 (`2026-01-02T03:04:05Z`, offsets and fractions allowed) or relative to
 * now: `now`, `now-15m`, `now-2h`, `now-7d`, `now-1w` (units s m h d w).
 *
 * @example
 *   parseTime('now-15m', 'from', Date.parse('2026-01-01T00:15:00Z')) // 2026-01-01T00:00:00.000Z
 */
import { ApiError } from './errors.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const RELATIVE = /^now(?:-(\d{1,9})([smhdw]))?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function parseTime(raw: string, param: string, now: number = Date.now()): Date {
  const relative = RELATIVE.exec(raw);
  if (relative) {
    const [, amount, unit] = relative;
    const offset = amount && unit ? Number(amount) * (UNIT_MS[unit] ?? 0) : 0;
    return new Date(now - offset);
  }
  if (RFC3339.test(raw)) {
    const time = Date.parse(raw.replace(' ', 'T'));
    if (!Number.isNaN(time)) return new Date(time);
  }
  throw ApiError.invalidParam(param, 'invalid_format', 'must be RFC 3339 or relative such as now-15m');
}

/** Parses optional `from`/`to` bounds and refuses an empty range. */
export function parseTimeRange(
  from: string | undefined,
  to: string | undefined,
  names: [string, string] = ['from', 'to'],
  now: number = Date.now(),
): { from?: Date; to?: Date } {
  const range = {
    ...(from ? { from: parseTime(from, names[0], now) } : {}),
    ...(to ? { to: parseTime(to, names[1], now) } : {}),
  };
  if (range.from && range.to && range.from > range.to) {
    throw ApiError.invalidParam(names[0], 'out_of_range', `must not be after ${names[1]}`);
  }
  return range;
}
