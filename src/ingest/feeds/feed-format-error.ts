/**
 * Why a feed file was refused: which feed was recognised (or none), where (a CSV line number or
 * a JSON field path) and what is wrong, e.g.
 * `recognised FIRST EPSS CSV, but line 17: epss is "1.7", expected a number from 0 to 1`.
 */
export type FeedFormat = 'epss' | 'kev';

export const FEED_LABELS: Record<FeedFormat, string> = {
  epss: 'FIRST EPSS CSV',
  kev: 'CISA KEV JSON',
};

export class FeedFormatError extends Error {
  constructor(
    readonly format: FeedFormat | null,
    /** What is wrong, with its place: `line 17: ...` or `vulnerabilities[3].cveID is missing`. */
    readonly detail: string,
    /** The 1-based line of a CSV problem. */
    readonly line: number | null = null,
    /** The path of a JSON problem. */
    readonly field: string | null = null,
  ) {
    super(format ? `recognised ${FEED_LABELS[format]}, but ${detail}` : detail);
    this.name = 'FeedFormatError';
  }
}
