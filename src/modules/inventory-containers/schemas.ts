import { Type } from 'typebox';
import { OffsetList, OffsetQuery, Timestamp } from '../../http/schemas.js';

export const CONTAINER_FILTER_KEYS = [
  'cluster_id',
  'cluster_name',
  'container_id',
  'name',
  'image_digest',
  'image_name',
  'image_repo',
  'image_tag',
  'owner_id',
  'owner_kind',
  'owner_name',
  'owner_namespace',
  'owner_uid',
  'pod_name',
  'pod_uid',
] as const;

export const CONTAINER_SORT_FIELDS = [
  'name',
  'cluster_name',
  'container_id',
  'image_digest',
  'image_name',
  'image_repo',
  'image_tag',
  'owner_kind',
  'owner_name',
  'owner_namespace',
  'created_at',
] as const;

export const CONTAINER_SEARCH_FIELDS = [
  'name',
  'image_repo',
  'image_tag',
  'owner_name',
  'owner_namespace',
  'pod_name',
  'container_id',
  'cluster_name',
] as const;

export const InventoryContainerSchema = Type.Object({
  id: Type.String(),
  cluster_id: Type.String(),
  cluster_name: Type.String(),
  container_id: Type.String({ description: "the runtime's container id, without its containerd:// prefix" }),
  created_at: Timestamp,
  name: Type.String({ description: 'container name' }),
  image_repo: Type.String({ description: 'registry host and repository, e.g. docker.io/library/nginx' }),
  image_name: Type.String({ description: 'last component of the repository, e.g. nginx' }),
  image_tag: Type.String({ description: "'' when the image names no tag" }),
  image_digest: Type.String({ description: "sha256:...; '' when unknown" }),
  owner_id: Type.String({ description: "record id of the owner's latest version; '' when not ingested" }),
  owner_kind: Type.String(),
  owner_name: Type.String(),
  owner_namespace: Type.String(),
  owner_resource_version: Type.String(),
  owner_uid: Type.String(),
  pod_name: Type.String(),
  pod_namespace: Type.String(),
  pod_uid: Type.String(),
});

export const ContainerListQuery = Type.Object({
  sort: Type.Optional(
    Type.String({
      description: `field:asc|desc, field one of ${CONTAINER_SORT_FIELDS.join(', ')}; default name:asc. Sorted by a field other than name, container_id and created_at, the containers of one value are in name order; ties are broken by id`,
    }),
  ),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: `substring of ${CONTAINER_SEARCH_FIELDS.join(', ')}` }),
  ),
  ...OffsetQuery,
  filters: Type.Optional(
    Type.String({ description: `key:value,... with keys ${CONTAINER_FILTER_KEYS.join(', ')} (exact match)` }),
  ),
});

export const ContainerList = OffsetList(InventoryContainerSchema);
