/** Latest baseline fingerprints (#7). */
import { Type } from 'typebox';
import { PageList, pageQuery, Timestamp } from '../../http/schemas.js';
import { childrenLimitQuery, FingerprintSchema } from './fingerprint-schemas.js';

export const BaselineEntrySchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  cluster_id: Type.String(),
  namespace: Type.String(),
  workload_kind: Type.String(),
  workload_name: Type.String(),
  container_name: Type.String(),
  image_name: Type.String(),
  notes: Type.String({ description: 'how the baseline was learned: window, events, time span' }),
  created_at: Timestamp,
  created_by: Type.String({
    description:
      "the user whose push closed the learning window; 'system:learning-window' when the server's sweep closed it",
  }),
  fingerprint: FingerprintSchema,
});

export const BASELINE_FILTER_KEYS = [
  'cluster_id',
  'namespace',
  'workload_kind',
  'workload_name',
  'container_name',
  'container_id',
  'image_name',
] as const;

export const BASELINE_SORT_FIELDS = [
  'created_at',
  'image_name',
  'namespace',
  'workload_name',
  'container_name',
] as const;

export const BASELINE_SEARCH_FIELDS = [
  'image_name',
  'namespace',
  'workload_name',
  'container_name',
  'notes',
] as const;

export const BaselineListQuery = Type.Object({
  filters: Type.Optional(
    Type.String({ description: `key:value,... with keys ${BASELINE_FILTER_KEYS.join(', ')} (exact match)` }),
  ),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: `substring of ${BASELINE_SEARCH_FIELDS.join(', ')}` }),
  ),
  ...pageQuery(50),
  sort: Type.Optional(
    Type.String({
      description: `field:asc|desc, field one of ${BASELINE_SORT_FIELDS.join(', ')}; default created_at:desc`,
    }),
  ),
  children_limit: Type.Optional(childrenLimitQuery),
});

export const BaselineList = PageList(BaselineEntrySchema);
