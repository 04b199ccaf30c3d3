import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeTimestamp } from './timestamp.js';

describe('normalizeTimestamp', () => {
  test('the shapes scanners and feeds write, to UTC with milliseconds', () => {
    const cases: Array<[string, string]> = [
      ['2024-04-15T09:12:44.318027166Z', '2024-04-15T09:12:44.318Z'], // Trivy: nanoseconds
      ['2024-05-20T10:03:11.488417+02:00', '2024-05-20T08:03:11.488Z'], // Grype: local time
      ['2024-07-01T00:00:00+0000', '2024-07-01T00:00:00.000Z'], // EPSS comment line
      ['2019-11-28T01:15:00+00:00', '2019-11-28T01:15:00.000Z'], // CycloneDX
      ['2021-12-10', '2021-12-10T00:00:00.000Z'], // KEV
      ['2024-02-29T23:30:00-01:30', '2024-03-01T01:00:00.000Z'],
      ['2024-03-01T12:15:07.533Z', '2024-03-01T12:15:07.533Z'], // already normalized (NVD dates)
      ['2024-02-29T00:00:00.000Z', '2024-02-29T00:00:00.000Z'],
    ];
    for (const [raw, expected] of cases) assert.equal(normalizeTimestamp(raw), expected, raw);
  });

  test('impossible dates and other text are refused, not rolled over', () => {
    for (const raw of [
      '2024-02-30',
      '2023-02-29T00:00:00Z',
      '2024-13-01',
      '2024-01-01T24:00:00Z',
      // the normalized form's shape, impossible all the same
      '2024-02-30T00:00:00.000Z',
      '2023-02-29T12:00:00.000Z',
      '2024-01-01T24:00:00.000Z',
      '2024-01-01T23:59:60.000Z',
      '2024-01-01T10:60:00Z',
      '2024-01-01T10:00:00+25:00',
      'yesterday',
      '20/05/2024',
      '',
    ]) {
      assert.equal(normalizeTimestamp(raw), undefined, raw);
    }
  });
});
