/**
 * Severities as every posture view shows them: a badge whose text is the level (colour only
 * repeats it), and the order from the most severe down, for charts and sorting.
 */

/** Vulnerability, runtime and finding severities, most severe first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'negligible', 'unspecified'] as const;

/** Identity risk levels, most severe first (the API capitalises them). */
export const RISK_LEVELS = ['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unspecified'] as const;

export function SeverityBadge({ value }: { value: string }) {
  const level = value.toLowerCase();
  const known = (SEVERITIES as readonly string[]).includes(level) ? level : 'unspecified';
  return <span className={`badge severity severity-${known}`}>{value}</span>;
}

/** true/false cells read as words, not as a tick a screen reader may skip. */
export function YesNo({ value, yes = 'yes', no = 'no' }: { value: boolean; yes?: string; no?: string }) {
  return value ? <strong className="yes">{yes}</strong> : <span className="muted">{no}</span>;
}
