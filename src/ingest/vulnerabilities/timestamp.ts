/**
 * Timestamps as scanners and feeds write them, normalized to RFC 3339 UTC with milliseconds.
 * Accepted: `2024-01-15T10:00:00Z`, fractions of any length (Trivy writes nanoseconds), offsets
 * `+01:00` (Grype writes local time) or `+0000` (the EPSS comment line), and a bare date
 * `2024-01-15` (KEV, midnight UTC). Impossible dates (February 30th) are refused, not rolled over.
 *
 * @example
 *   normalizeTimestamp('2024-03-05T00:00:00+0000') // '2024-03-05T00:00:00.000Z'
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:?\d{2}))?$/;

/** `2024-03-01T12:15:07.533Z`: already the normalized form, as Trivy writes NVD's dates. */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function normalizeTimestamp(raw: string): string | undefined {
  // A scan report holds one such date per finding. A valid one reads back unchanged; an
  // impossible one (February 30th, hour 24) rolls over to another text or fails to parse, and
  // is judged by the full reading below.
  if (CANONICAL.test(raw)) {
    const time = Date.parse(raw);
    if (!Number.isNaN(time) && new Date(time).toISOString() === raw) return raw;
  }
  const match = TIMESTAMP.exec(raw.trim());
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const local = new Date(0);
  local.setUTCFullYear(y, mo - 1, d);
  local.setUTCHours(h, mi, s, Number(fraction.padEnd(3, '0').slice(0, 3)));
  // A field out of range makes Date roll over to another day; reading the fields back catches it.
  if (local.getUTCFullYear() !== y || local.getUTCMonth() !== mo - 1 || local.getUTCDate() !== d)
    return undefined;
  if (local.getUTCHours() !== h || local.getUTCMinutes() !== mi || local.getUTCSeconds() !== s)
    return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMins = Number(digits.slice(2));
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return new Date(local.getTime() - offsetMinutes * 60_000).toISOString();
}
