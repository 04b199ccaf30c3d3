import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ApiError, type ValidationDetail } from './errors.js';
import { EARLIEST_TIME, LATEST_TIME, parseTime, parseTimeRange } from './time.js';

const SECOND = 1000;
const UNITS = {
  s: SECOND,
  m: 60 * SECOND,
  h: 3600 * SECOND,
  d: 24 * 3600 * SECOND,
  w: 7 * 24 * 3600 * SECOND,
};
const unit = fc.constantFrom(...(Object.keys(UNITS) as (keyof typeof UNITS)[]));
const NOW = Date.parse('2026-05-17T10:20:30.456Z');
/** Instants whose local time in any offset still has a four-digit year. */
const instant = fc.integer({
  min: Date.parse('0002-01-01T00:00:00Z'),
  max: Date.parse('9998-12-31T23:59:59.999Z'),
});

function rejection(parse: () => unknown): ValidationDetail {
  try {
    parse();
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.validationDetails.length, 1);
    return error.validationDetails[0] as ValidationDetail;
  }
  assert.fail('expected a 400');
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `time` written as RFC 3339 in the given offset, with the given fraction digits after the milliseconds. */
function rfc3339(time: number, offsetMinutes: number, extraDigits: string, separator: string, zulu: string) {
  const local = new Date(time + offsetMinutes * 60_000);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const clock = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const fraction = `.${pad(local.getUTCMilliseconds(), 3)}${extraDigits}`;
  const magnitude = Math.abs(offsetMinutes);
  const zone =
    offsetMinutes === 0 && zulu
      ? zulu
      : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(magnitude / 60))}:${pad(magnitude % 60)}`;
  return `${date}${separator}${clock}${fraction}${zone}`;
}

describe('parseTime', () => {
  test('now-<n><unit> is now minus n units, for every unit', () => {
    const amount = fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 999_999_999 }));
    fc.assert(
      fc.property(amount, unit, instant, (n, u, now) => {
        const expected = now - n * UNITS[u];
        if (expected >= EARLIEST_TIME) {
          assert.equal(parseTime(`now-${n}${u}`, 'from', now).getTime(), expected);
        } else {
          const detail = rejection(() => parseTime(`now-${n}${u}`, 'from', now));
          assert.deepEqual([detail.field, detail.code], ['from', 'out_of_range']);
        }
      }),
    );
  });

  test('now is the given instant; the examples of the description hold', () => {
    assert.equal(parseTime('now', 'to', NOW).getTime(), NOW);
    assert.equal(parseTime('now-15m', 'from', NOW).toISOString(), '2026-05-17T10:05:30.456Z');
    assert.equal(parseTime('now-2h', 'from', NOW).toISOString(), '2026-05-17T08:20:30.456Z');
    assert.equal(parseTime('now-7d', 'from', NOW).toISOString(), '2026-05-10T10:20:30.456Z');
    assert.equal(parseTime('now-1w', 'from', NOW).toISOString(), '2026-05-10T10:20:30.456Z');
    assert.equal(parseTime('now-0s', 'from', NOW).getTime(), NOW);
  });

  test('RFC 3339 in any offset, with any fraction, parses to the same instant', () => {
    const offset = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    const extraDigits = fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 6 });
    fc.assert(
      fc.property(
        instant,
        offset,
        extraDigits,
        fc.constantFrom('T', 't', ' '),
        fc.constantFrom('Z', 'z', ''),
        (time, minutes, digits, separator, zulu) => {
          const text = rfc3339(time, minutes, digits, separator, zulu);
          assert.equal(parseTime(text, 'from').getTime(), time, text);
        },
      ),
    );
  });

  test('RFC 3339 examples: fractions, offsets, leap day, leap second, the edges of the range', () => {
    const cases: [string, string][] = [
      ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
      ['2026-01-02T03:04:05.5Z', '2026-01-02T03:04:05.500Z'],
      ['2026-01-02T03:04:05.12Z', '2026-01-02T03:04:05.120Z'],
      ['2026-01-02T03:04:05.123456789Z', '2026-01-02T03:04:05.123Z'],
      ['2026-01-02T03:04:05+05:30', '2026-01-01T21:34:05.000Z'],
      ['2026-01-01T00:30:00-01:00', '2026-01-01T01:30:00.000Z'],
      ['2026-01-02T03:04:05-00:00', '2026-01-02T03:04:05.000Z'],
      ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
      ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
      ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
      ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
      ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ];
    for (const [text, iso] of cases) assert.equal(parseTime(text, 'from').toISOString(), iso, text);
  });

  test('anything else is a 400 naming the parameter', () => {
    const garbage = [
      '',
      'yesterday',
      'NOW',
      'now-',
      'now-15',
      'now-15x',
      'now-15M',
      'now+15m',
      'now - 15m',
      'now-1.5h',
      'now-1234567890s',
      '1767225600',
      '2026-01-01',
      '2026-01-01T00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00+0100',
      '2026-01-01T00:00:00+01',
      '2026-01-01T00:00:00.Z',
      '2026-01-01T00:00:00.1234567890Z',
      ' 2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00Z ',
      '2026-1-01T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:61Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00+01:60',
      '２０２６-01-01T00:00:00Z',
    ];
    for (const text of garbage) {
      const detail = rejection(() => parseTime(text, 'to_last_detected_at'));
      assert.deepEqual(
        [detail.field, detail.param, detail.code],
        ['to_last_detected_at', 'query', 'invalid_format'],
        text,
      );
    }
  });

  test('whatever the text, the answer is an instant within range or a 400 naming the parameter', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          const time = parseTime(text, 'from', NOW).getTime();
          assert.ok(time >= EARLIEST_TIME && time <= LATEST_TIME, text);
        } catch (error) {
          assert.ok(error instanceof ApiError && error.validationDetails[0]?.field === 'from', String(error));
        }
      }),
    );
  });

  test('instants outside the years 0001..9999 are a 400 out_of_range, never an invalid date', () => {
    for (const text of [
      '0000-12-31T23:59:59Z',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:30:00-01:00',
      'now-999999999w',
    ]) {
      const detail = rejection(() => parseTime(text, 'from', NOW));
      assert.deepEqual([detail.field, detail.code], ['from', 'out_of_range'], text);
    }
  });
});

describe('parseTimeRange', () => {
  test('absent or empty bounds are not given', () => {
    assert.deepEqual(parseTimeRange(undefined, undefined), {});
    assert.deepEqual(parseTimeRange('', ''), {});
    assert.deepEqual(parseTimeRange('now-1h', undefined, undefined, NOW), { from: new Date(NOW - UNITS.h) });
    assert.deepEqual(parseTimeRange(undefined, 'now', undefined, NOW), { to: new Date(NOW) });
  });

  test('from after to is refused; from equal to to is a valid instant range', () => {
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        const from = new Date(a).toISOString();
        const to = new Date(b).toISOString();
        if (a <= b) {
          assert.deepEqual(parseTimeRange(from, to), { from: new Date(a), to: new Date(b) });
        } else {
          const detail = rejection(() => parseTimeRange(from, to));
          assert.deepEqual([detail.field, detail.code], ['from', 'out_of_range']);
          assert.match(detail.message, /\bto\b/);
        }
      }),
    );
  });

  test('details name the endpoint parameters', () => {
    const names: [string, string] = ['from_last_used_at', 'to_last_detected_at'];
    assert.equal(rejection(() => parseTimeRange('now', 'now-1d', names, NOW)).field, 'from_last_used_at');
    assert.equal(rejection(() => parseTimeRange('now', 'soon', names, NOW)).field, 'to_last_detected_at');
    assert.equal(rejection(() => parseTimeRange('then', 'now', names, NOW)).field, 'from_last_used_at');
  });
});
