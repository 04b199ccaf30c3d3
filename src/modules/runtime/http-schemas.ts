/** HTTP request observations (#5). */
import { Type } from 'typebox';
import { PII_LABELS } from '../../engines/runtime/index.js';
import { OffsetList, OffsetQuery, Timestamp } from '../../http/schemas.js';

export const HttpObservationSchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  cluster_id: Type.String(),
  app_protocol: Type.String({ description: 'http, http2, http3 or grpc' }),
  method: Type.String(),
  scheme: Type.String(),
  path: Type.String({
    description:
      'the request target as a template: ids become {id}, dates {date}, query values {value}, ' +
      'personal data the placeholder of its label ({email}); the matched values are never stored',
  }),
  source_workload_kind: Type.String(),
  source_workload_name: Type.String(),
  source_workload_namespace: Type.String(),
  destination_addr: Type.String({ description: 'the latest destination address seen' }),
  destination_port: Type.Integer(),
  destination_hostname: Type.String(),
  destination_service_name: Type.String(),
  destination_service_namespace: Type.String(),
  destination_workload_kind: Type.String(),
  destination_workload_name: Type.String(),
  destination_workload_namespace: Type.String(),
  has_pii: Type.Boolean(),
  pii_labels: Type.Array(Type.Enum([...PII_LABELS])),
  trusted_ip: Type.Boolean({ description: "the destination is in one of the account's trusted IP prefixes" }),
  trusted_ip_prefix: Type.String(),
  trusted_ip_description: Type.String(),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  request_count: Type.Integer({ description: 'requests aggregated into this observation' }),
});

export const HTTP_FILTER_KEYS = [
  'method',
  'path',
  'scheme',
  'cluster_id',
  'source_workload_name',
  'source_workload_namespace',
  'destination_workload_name',
  'destination_workload_namespace',
  'has_pii',
] as const;

export const HTTP_SEARCH_FIELDS = [
  'path',
  'method',
  'destination_hostname',
  'destination_service_name',
  'source_workload_name',
  'source_workload_namespace',
  'destination_workload_name',
  'destination_workload_namespace',
] as const;

export const HttpObservationListQuery = Type.Object({
  cluster_ids: Type.Optional(Type.String({ description: 'comma-joined cluster ids' })),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: `substring of ${HTTP_SEARCH_FIELDS.join(', ')}` }),
  ),
  filters: Type.Optional(
    Type.String({
      description: `key:value,... with keys ${HTTP_FILTER_KEYS.join(', ')} (exact match; has_pii takes true or false)`,
    }),
  ),
  ...OffsetQuery,
});

export const HttpObservationList = OffsetList(HttpObservationSchema);
