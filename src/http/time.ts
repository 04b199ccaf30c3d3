/**
 * Time parameters: RFC 3339 (`2026-01-02T03:04:05Z`, offsets and fractions allowed) or relative to
 * now: `now`, `now-15m`, `now-2h`, `now-7d`, `now-1w` (units s m h d w). Precision is the
 * millisecond: further fraction digits are dropped. Every instant must fall within the years
 * 0001..9999, what both RFC 3339 and PostgreSQL can hold.
 *
 * @example
 *   parseTime('now-15m', 'from', Date.parse('2026-01-01T00:15:00Z')) // 2026-01-01T00:00:00.000Z
 */
import { ApiError } from './errors.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const RELATIVE = /^now(?:-(\d{1,9})([smhdw]))?$/;
const RFC3339 =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})[Tt ](?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})(?:\.(?<fraction>\d{1,9}))?(?:[Zz]|(?<sign>[+-])(?<offsetHour>\d{2}):(?<offsetMinute>\d{2}))$/;

export const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

const FORMAT_MESSAGE = 'must be RFC 3339 (2026-01-02T03:04:05Z) or relative such as now-15m';

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The instant of an RFC 3339 timestamp, or undefined when it is not one. Date.parse alone is too
 * lenient: it rolls 2026-02-30 over to March and reads 24:00 as the next day.
 */
function parseRfc3339(raw: string): number | undefined {
  const parts = RFC3339.exec(raw)?.groups;
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = [
    parts.year,
    parts.month,
    parts.day,
    parts.hour,
    parts.minute,
    parts.second,
  ].map(Number) as [number, number, number, number, number, number];
  const offsetMinutes = Number(parts.offsetHour ?? 0) * 60 + Number(parts.offsetMinute ?? 0);
  const valid =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 60 && // a leap second reads as the first instant of the next minute
    Number(parts.offsetHour ?? 0) <= 23 &&
    Number(parts.offsetMinute ?? 0) <= 59;
  if (!valid) return undefined;
  // setUTCFullYear, because Date.UTC maps the years 0..99 to 1900..1999.
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute, second, Number((parts.fraction ?? '').padEnd(3, '0').slice(0, 3)));
  const sign = parts.sign === '-' ? -1 : 1;
  return instant.getTime() - sign * offsetMinutes * 60_000;
}

export function parseTime(raw: string, param: string, now: number = Date.now()): Date {
  const relative = RELATIVE.exec(raw);
  let time: number | undefined;
  if (relative) {
    const [, amount, unit] = relative;
    time = now - (amount && unit ? Number(amount) * (UNIT_MS[unit] ?? 0) : 0);
  } else {
    time = parseRfc3339(raw);
  }
  if (time === undefined) throw ApiError.invalidParam(param, 'invalid_format', FORMAT_MESSAGE);
  if (!(time >= EARLIEST_TIME && time <= LATEST_TIME)) {
    throw ApiError.invalidParam(param, 'out_of_range', 'must fall within the years 0001 to 9999');
  }
  return new Date(time);
}

/** Parses optional `from`/`to` bounds (both inclusive) and refuses a range that ends before it starts. */
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
