import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  mapSeverity,
  mostSevere,
  SEVERITIES,
  SEVERITY_VOCABULARIES,
  severityFromCvss,
  severityRank,
  vocabularyWords,
} from './severity.js';

describe('severity mapping', () => {
  test('Trivy: CRITICAL/HIGH/MEDIUM/LOW map to their level, UNKNOWN to unspecified', () => {
    assert.deepEqual(
      ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'].map((word) => mapSeverity('trivy', word)),
      ['critical', 'high', 'medium', 'low', 'unspecified'],
    );
  });

  test('Grype: Negligible is its own level, Unknown is unspecified', () => {
    assert.deepEqual(
      ['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unknown'].map((word) =>
        mapSeverity('grype', word),
      ),
      ['critical', 'high', 'medium', 'low', 'negligible', 'unspecified'],
    );
  });

  test('CycloneDX: info and none are negligible, unknown is unspecified', () => {
    assert.deepEqual(
      ['critical', 'high', 'medium', 'low', 'info', 'none', 'unknown'].map((word) =>
        mapSeverity('cyclonedx', word),
      ),
      ['critical', 'high', 'medium', 'low', 'negligible', 'negligible', 'unspecified'],
    );
  });

  test('words are compared without regard to case or surrounding space', () => {
    assert.equal(mapSeverity('trivy', 'critical'), 'critical');
    assert.equal(mapSeverity('grype', ' NEGLIGIBLE '), 'negligible');
    assert.equal(mapSeverity('cyclonedx', 'High'), 'high');
  });

  test('a word outside the scanner vocabulary has no mapping (the readers refuse it)', () => {
    assert.equal(mapSeverity('trivy', 'NEGLIGIBLE'), undefined);
    assert.equal(mapSeverity('trivy', 'SEVERE'), undefined);
    assert.equal(mapSeverity('grype', 'info'), undefined);
    assert.equal(mapSeverity('cyclonedx', ''), undefined);
  });

  test('every vocabulary maps only to the six levels of the model, and each level is reachable', () => {
    const reached = new Set<string>();
    for (const scanner of Object.keys(SEVERITY_VOCABULARIES) as Array<keyof typeof SEVERITY_VOCABULARIES>) {
      for (const word of vocabularyWords(scanner)) {
        const severity = mapSeverity(scanner, word);
        assert.ok(severity && (SEVERITIES as readonly string[]).includes(severity), `${scanner} ${word}`);
        reached.add(severity);
      }
    }
    assert.deepEqual([...reached].sort(), [...SEVERITIES].sort());
  });
});

describe('CVSS qualitative scale', () => {
  test('boundaries follow CVSS v3.1: 0 none, 0.1 low, 4.0 medium, 7.0 high, 9.0 critical', () => {
    const cases: Array<[number, string]> = [
      [0, 'negligible'],
      [0.1, 'low'],
      [3.9, 'low'],
      [4, 'medium'],
      [6.9, 'medium'],
      [7, 'high'],
      [8.9, 'high'],
      [9, 'critical'],
      [10, 'critical'],
    ];
    for (const [score, severity] of cases) assert.equal(severityFromCvss(score), severity, String(score));
  });
});

describe('severity order', () => {
  test('critical > high > medium > low > negligible > unspecified', () => {
    const ranks = SEVERITIES.map(severityRank);
    assert.deepEqual(
      ranks,
      [...ranks].sort((a, b) => b - a),
    );
    assert.equal(new Set(ranks).size, SEVERITIES.length);
    assert.equal(mostSevere('low', 'high'), 'high');
    assert.equal(mostSevere('unspecified', 'negligible'), 'negligible');
    assert.equal(mostSevere('critical', 'medium'), 'critical');
  });
});
