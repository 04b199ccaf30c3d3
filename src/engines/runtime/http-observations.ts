/**
 * HTTP request observations (#5): `http_request` events aggregated per source workload,
 * destination, method and path template, with first/last seen, personal-data labels and the
 * trusted IP prefix the destination falls in. The aggregation key is deterministic, so storage
 * upserts each observation by `key` and merges with `mergeHttpObservations`.
 *
 * @example
 *   for (const observation of observeHttpRequests(events, { clusterId, trustedPrefixes })) upsert(observation);
 */
import { createHash } from 'node:crypto';
import type { HttpRequestEvent, RuntimeEvent } from './event-schema.js';
import { createPrefixMatcher, type TrustedPrefix } from './ip.js';
import { templateRequestTarget } from './path-template.js';
import { PII_LABELS, type PiiLabel } from './pii.js';

export interface HttpObservation {
  /** sha256 of the aggregation key: unique per cluster, source, destination, method and path */
  key: string;
  cluster_id: string;
  app_protocol: string;
  method: string;
  scheme: string;
  path: string;
  source_workload_kind: string;
  source_workload_name: string;
  source_workload_namespace: string;
  destination_addr: string;
  destination_port: number;
  destination_hostname: string;
  destination_service_name: string;
  destination_service_namespace: string;
  destination_workload_kind: string;
  destination_workload_name: string;
  destination_workload_namespace: string;
  has_pii: boolean;
  pii_labels: PiiLabel[];
  trusted_ip: boolean;
  trusted_ip_prefix: string;
  trusted_ip_description: string;
  first_seen_at: string;
  last_seen_at: string;
  request_count: number;
}

export interface ObserveOptions {
  clusterId: string;
  trustedPrefixes?: readonly TrustedPrefix[];
}

function appProtocol(event: HttpRequestEvent): string {
  const contentType = event.http.headers?.['content-type'] ?? '';
  if (contentType.startsWith('application/grpc')) return 'grpc';
  const version = (event.http.protocol ?? '').toUpperCase();
  if (version.startsWith('HTTP/2') || version === 'H2') return 'http2';
  if (version.startsWith('HTTP/3') || version === 'H3') return 'http3';
  return 'http';
}

function peers(event: HttpRequestEvent) {
  const { http, kubernetes } = event;
  const own = {
    kind: kubernetes.workload_kind ?? 'Pod',
    name: kubernetes.workload_name ?? kubernetes.pod,
    namespace: kubernetes.namespace,
  };
  const inbound = http.direction === 'inbound';
  const side = (peer: HttpRequestEvent['http']['source'], isOwn: boolean) => ({
    kind: peer.workload_kind ?? (isOwn ? own.kind : ''),
    name: peer.workload_name ?? (isOwn ? own.name : ''),
    namespace: peer.namespace ?? (isOwn ? own.namespace : ''),
  });
  return { source: side(http.source, !inbound), destination: side(http.destination, inbound) };
}

/** The observation of one event, before aggregation. */
function observe(
  event: HttpRequestEvent,
  options: ObserveOptions,
  match: ReturnType<typeof createPrefixMatcher>,
) {
  const { http } = event;
  const { source, destination } = peers(event);
  const template = templateRequestTarget(http.path);
  const trusted = match.match(http.destination.address);
  const hostname = http.destination.hostname ?? http.host ?? '';
  const observation: HttpObservation = {
    key: '',
    cluster_id: options.clusterId,
    app_protocol: appProtocol(event),
    method: http.method,
    scheme: http.scheme,
    path: template.path,
    source_workload_kind: source.kind,
    source_workload_name: source.name,
    source_workload_namespace: source.namespace,
    destination_addr: http.destination.address,
    destination_port: http.destination.port,
    destination_hostname: hostname,
    destination_service_name: http.destination.service_name ?? '',
    destination_service_namespace: http.destination.service_namespace ?? '',
    destination_workload_kind: destination.kind,
    destination_workload_name: destination.name,
    destination_workload_namespace: destination.namespace,
    has_pii: template.piiLabels.length > 0,
    pii_labels: template.piiLabels,
    trusted_ip: trusted !== null,
    trusted_ip_prefix: trusted?.cidr ?? '',
    trusted_ip_description: trusted ? (trusted.description ?? trusted.name) : '',
    first_seen_at: event.timestamp,
    last_seen_at: event.timestamp,
    request_count: 1,
  };
  // The destination is its workload when known, else its service, else its hostname, else its
  // address: pod addresses change, names do not.
  const destinationId = destination.name
    ? `workload:${destination.namespace}/${destination.kind}/${destination.name}`
    : observation.destination_service_name
      ? `service:${observation.destination_service_namespace}/${observation.destination_service_name}`
      : hostname
        ? `host:${hostname}`
        : `addr:${http.destination.address}`;
  const parts = [
    options.clusterId,
    `${source.namespace}/${source.kind}/${source.name}`,
    `${destinationId}:${http.destination.port}`,
    http.scheme,
    http.method,
    template.path,
  ];
  observation.key = parts.join('\u0000'); // hashed once per aggregate, in observeHttpRequests
  return observation;
}

/** RFC 3339 UTC timestamps of one format order as text (Math.min would turn them into NaN). */
const earliest = (x: string, y: string): string => [x, y].sort()[0]!;

/** Merges two observations of the same key: seen range widened, labels united, the latest address kept. */
export function mergeHttpObservations(a: HttpObservation, b: HttpObservation): HttpObservation {
  const [older, newer] = a.last_seen_at <= b.last_seen_at ? [a, b] : [b, a];
  const labels = new Set([...a.pii_labels, ...b.pii_labels]);
  return {
    ...newer,
    first_seen_at: earliest(a.first_seen_at, b.first_seen_at),
    last_seen_at: newer.last_seen_at,
    has_pii: a.has_pii || b.has_pii,
    pii_labels: PII_LABELS.filter((label) => labels.has(label)),
    request_count: older.request_count + newer.request_count,
  };
}

export function observeHttpRequests(
  events: readonly RuntimeEvent[],
  options: ObserveOptions,
): HttpObservation[] {
  const match = createPrefixMatcher(options.trustedPrefixes ?? []);
  const byKey = new Map<string, HttpObservation>();
  for (const event of events) {
    if (event.type !== 'http_request') continue;
    const observation = observe(event, options, match);
    const existing = byKey.get(observation.key);
    byKey.set(observation.key, existing ? mergeHttpObservations(existing, observation) : observation);
  }
  return [...byKey.values()].map((o) => ({ ...o, key: createHash('sha256').update(o.key).digest('hex') }));
}
