/** The severity vocabulary shared with findings (DESIGN.md section 6): lowercase, ordered. */
import type { FalcoPriority } from './event-schema.js';

export const SEVERITIES = ['negligible', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const severityRank = (severity: Severity): number => SEVERITIES.indexOf(severity);

export function maxSeverity(severities: Iterable<Severity>): Severity | null {
  let best: Severity | null = null;
  for (const severity of severities)
    if (best === null || severityRank(severity) > severityRank(best)) best = severity;
  return best;
}

const BY_FALCO_PRIORITY: Record<FalcoPriority, Severity> = {
  emergency: 'critical',
  alert: 'critical',
  critical: 'critical',
  error: 'high',
  warning: 'medium',
  notice: 'low',
  informational: 'negligible',
  debug: 'negligible',
};

export const severityOfFalcoPriority = (priority: FalcoPriority): Severity => BY_FALCO_PRIORITY[priority];
