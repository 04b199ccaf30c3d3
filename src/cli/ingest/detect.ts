/**
 * Which ingestion endpoint a file belongs to, from its content (never its name): Kubernetes
 * objects (a List, one object, or NDJSON watch events), an image scan report (Trivy, Grype,
 * CycloneDX) or a runtime event stream (Posture NDJSON events or Falco alerts).
 */
import { detectScanFormat } from '../../ingest/vulnerabilities/read-scan-report.js';

export type IngestKind = 'kubernetes' | 'vulnerabilities' | 'runtime';

const WATCH_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isKubernetesObject = (value: Record<string, unknown>) =>
  typeof value.kind === 'string' && typeof value.apiVersion === 'string';

/** Returns the kind, or a sentence saying why none fits. */
export function detectIngestKind(text: string): IngestKind | { problem: string } {
  const trimmed = text.trimStart();
  if (trimmed === '') return { problem: 'the file is empty' };
  const whole = parseOrUndefined(trimmed);
  if (isRecord(whole)) {
    if (isKubernetesObject(whole)) return 'kubernetes';
    if (detectScanFormat(whole)) return 'vulnerabilities';
    if (isRecord(whole.object) && typeof whole.type === 'string') return 'kubernetes'; // one watch event
    return {
      problem: 'a JSON document that is neither Kubernetes objects nor a Trivy, Grype or CycloneDX report',
    };
  }
  // Not one JSON document: NDJSON, judged by its first line.
  const firstLine = trimmed.slice(0, trimmed.indexOf('\n') === -1 ? undefined : trimmed.indexOf('\n'));
  const first = parseOrUndefined(firstLine);
  if (!isRecord(first)) return { problem: 'neither JSON nor NDJSON' };
  if (typeof first.type === 'string' && WATCH_TYPES.has(first.type) && isRecord(first.object))
    return 'kubernetes';
  return 'runtime';
}
