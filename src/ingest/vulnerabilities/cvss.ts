/**
 * Choosing one CVSS score among the several a scanner lists. Readers first narrow to the most
 * trusted source that has a score (the one the scanner took its severity from, then NVD); among
 * that source's scores the newest CVSS version wins (4.0 over 3.1 over 3.0 over 2.0), because a
 * newer version's score is what current advisories publish; among equals, the first listed.
 */
import type { Cvss } from './model.js';

/** `3.1` from `CVSS:3.1/AV:N/...`; null for a vector without prefix (CVSS v2 vectors have none). */
export function cvssVersionFromVector(vector: string | null): string | null {
  const match = vector ? /^CVSS:(\d+\.\d+)\//.exec(vector) : null;
  return match?.[1] ?? null;
}

/** `3.1` from `3.1`, `CVSSv31`, `CVSSv3`, `CVSSv2`, `CVSSv4`, `v3`; null when no version shows. */
export function normalizeCvssVersion(value: string | null): string | null {
  if (!value) return null;
  const match = /(\d)(?:\.?(\d))?/.exec(value);
  if (!match) return null;
  return `${match[1]}.${match[2] ?? '0'}`;
}

export function preferredCvss(candidates: Cvss[]): Cvss | null {
  let best: Cvss | null = null;
  for (const candidate of candidates) {
    if (!best || Number(candidate.version ?? 0) > Number(best.version ?? 0)) best = candidate;
  }
  return best;
}
