/**
 * Severity: one closed vocabulary for every scanner, mapped explicitly from each scanner's own
 * words. A word outside a scanner's vocabulary is an error, not a silent `unspecified`: a scanner
 * that grew a new level must be looked at, not counted in the wrong column.
 *
 * @example
 *   mapSeverity('trivy', 'CRITICAL') // 'critical'
 *   mapSeverity('grype', 'Negligible') // 'negligible'
 *   mapSeverity('cyclonedx', 'info') // 'negligible'
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'negligible', 'unspecified'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Keys are the scanners' words, compared case-insensitively. */
export const SEVERITY_VOCABULARIES = {
  trivy: { CRITICAL: 'critical', HIGH: 'high', MEDIUM: 'medium', LOW: 'low', UNKNOWN: 'unspecified' },
  grype: {
    Critical: 'critical',
    High: 'high',
    Medium: 'medium',
    Low: 'low',
    Negligible: 'negligible',
    Unknown: 'unspecified',
  },
  // CycloneDX `ratings[].severity`. `info` and `none` mean "assessed, no real impact" (CVSS 0.0
  // is "None"): that is what negligible counts. `unknown` means not assessed: unspecified.
  cyclonedx: {
    critical: 'critical',
    high: 'high',
    medium: 'medium',
    low: 'low',
    info: 'negligible',
    none: 'negligible',
    unknown: 'unspecified',
  },
} as const satisfies Record<string, Record<string, Severity>>;

export type SeverityVocabulary = keyof typeof SEVERITY_VOCABULARIES;

const LOOKUP = new Map(
  Object.entries(SEVERITY_VOCABULARIES).map(([scanner, words]) => [
    scanner,
    new Map(Object.entries(words).map(([word, severity]) => [word.toLowerCase(), severity as Severity])),
  ]),
);

/** The severity of a scanner's word, or undefined when the word is not in its vocabulary. */
export function mapSeverity(vocabulary: SeverityVocabulary, word: string): Severity | undefined {
  return LOOKUP.get(vocabulary)?.get(word.trim().toLowerCase());
}

/** The scanner's words, for error messages. */
export function vocabularyWords(vocabulary: SeverityVocabulary): string[] {
  return Object.keys(SEVERITY_VOCABULARIES[vocabulary]);
}

/**
 * The CVSS v3/v4 qualitative rating of a base score (FIRST, CVSS v3.1 specification section 5):
 * 0.0 None (negligible here), 0.1-3.9 Low, 4.0-6.9 Medium, 7.0-8.9 High, 9.0-10.0 Critical.
 */
export function severityFromCvss(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'negligible';
}

/** Higher is more severe; `unspecified` ranks below `negligible` (nothing is known). */
export function severityRank(severity: Severity): number {
  return SEVERITIES.length - 1 - SEVERITIES.indexOf(severity);
}

export function mostSevere(a: Severity, b: Severity): Severity {
  return severityRank(b) > severityRank(a) ? b : a;
}
