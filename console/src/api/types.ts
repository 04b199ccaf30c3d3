/**
 * API objects as the console reads them, derived from the server's own TypeBox schemas so a
 * changed field fails the console's typecheck instead of its users.
 */
import type { Static } from 'typebox';
import type { AccessKeySchema, CreatedAccessKeySchema } from '../../../src/modules/access-keys/schemas.js';
import type { AccountSchema } from '../../../src/modules/accounts/schemas.js';
import type { ClusterActionSchema } from '../../../src/modules/cluster-actions/schemas.js';
import type { ClusterSchema } from '../../../src/modules/clusters/schemas.js';
import type {
  ConsoleCaller as ConsoleCallerSchema,
  ConsoleSessionResponse,
} from '../../../src/modules/console/session-schemas.js';
import type {
  FilterOptionsSchema,
  IdentitiesReportSchema,
  IdentitySchema,
  RiskSchema,
} from '../../../src/modules/identities/schemas.js';
import type { InventoryContainerSchema } from '../../../src/modules/inventory-containers/schemas.js';
import type { RoleRecordSchema } from '../../../src/modules/rbac/schemas.js';
import type { RegistrySchema } from '../../../src/modules/registries/schemas.js';
import type { ResourceRecordSchema } from '../../../src/modules/resources/schemas.js';
import type { BaselineEntrySchema } from '../../../src/modules/runtime/baseline-schemas.js';
import type {
  FingerprintProcessSchema,
  FingerprintSchema,
} from '../../../src/modules/runtime/fingerprint-schemas.js';
import type { HttpObservationSchema } from '../../../src/modules/runtime/http-schemas.js';
import type {
  AnalysisRecordSchema,
  RuntimeInsightSchema,
  RuntimeInsightSummarySchema,
} from '../../../src/modules/runtime/insight-schemas.js';
import type { MemberSchema, RoleAssignmentSchema } from '../../../src/modules/users/schemas.js';
import type { CveRowSchema } from '../../../src/modules/vulnerabilities/cve-report-schemas.js';
import type {
  InventoryPackageSchema,
  PackageFacetSchema,
} from '../../../src/modules/vulnerabilities/package-schemas.js';

export type Account = Static<typeof AccountSchema>;
export type AccessKey = Static<typeof AccessKeySchema>;
export type CreatedAccessKey = Static<typeof CreatedAccessKeySchema>;
export type Cluster = Static<typeof ClusterSchema>;
export type ClusterAction = Static<typeof ClusterActionSchema>;
export type ConsoleSession = Static<typeof ConsoleSessionResponse>;
export type ConsoleCaller = Static<typeof ConsoleCallerSchema>;
export type InventoryContainer = Static<typeof InventoryContainerSchema>;
export type Member = Static<typeof MemberSchema>;
export type Registry = Static<typeof RegistrySchema>;
export type ResourceRecord = Static<typeof ResourceRecordSchema>;
export type RoleAssignment = Static<typeof RoleAssignmentSchema>;

export type InventoryPackage = Static<typeof InventoryPackageSchema>;
export type PackageFacet = Static<typeof PackageFacetSchema>;
export type CveRow = Static<typeof CveRowSchema>;

export type Identity = Static<typeof IdentitySchema>;
export type IdentityRisk = Static<typeof RiskSchema>;
export type IdentityFilterOptions = Static<typeof FilterOptionsSchema>;
export type IdentitiesReport = Static<typeof IdentitiesReportSchema>;
export type RbacGraph = Identity['rbac_objects']['graph'];
export type RoleRecord = Static<typeof RoleRecordSchema>;

/** A process of a fingerprint; the schema refers to itself by id, so the recursion is spelled here. */
export type FingerprintProcess = Omit<Static<typeof FingerprintProcessSchema>, 'children'> & {
  children: FingerprintProcess[];
};
type FingerprintShape = Static<typeof FingerprintSchema>;
export type Fingerprint = Omit<FingerprintShape, 'containers'> & {
  containers: (Omit<FingerprintShape['containers'][number], 'processes'> & {
    processes: FingerprintProcess[];
  })[];
};
export type AnalysisRecord = Static<typeof AnalysisRecordSchema>;
export type RuntimeInsightSummary = Static<typeof RuntimeInsightSummarySchema>;
export type RuntimeInsight = Omit<Static<typeof RuntimeInsightSchema>, 'baseline' | 'ongoing'> & {
  baseline: Fingerprint;
  ongoing: Fingerprint;
};
export type BaselineEntry = Omit<Static<typeof BaselineEntrySchema>, 'fingerprint'> & {
  fingerprint: Fingerprint;
};
export type HttpObservation = Static<typeof HttpObservationSchema>;

/** The three list envelopes of the API. */
export interface OffsetList<T> {
  entries: T[];
  has_more: boolean;
  total_count: number;
}

export interface PageList<T> {
  entries: T[];
  page: number;
  page_count: number;
  page_size: number;
  total_count: number;
}

/** The tenant offset list (integrations, knowledge base). */
export interface TenantOffsetList<T> {
  current_offset: number;
  has_more: boolean;
  total_count: number;
  entries: T[];
}

/*
 * Findings and integrations (issue 7) are written from the API description's shapes because their
 * server schemas are being built alongside the console: once they land, derive these with Static<>
 * like the rest. The views are offered only when /openapi.json has the operations.
 */
export interface Finding {
  id: string;
  account_id: string;
  cluster_id: string;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  event_timestamp: string;
  fingerprint: string;
  rule_id: string;
  rule_title: string;
  severity: string;
  severity_int: number;
  type: string;
  source_kind: string;
  source_name: string;
  source_namespace: string;
  source_type: string;
  source_id: string;
  messages: string[];
  fix_attrs: Record<string, unknown>;
  rule_attrs: Record<string, unknown>;
  source_attrs: Record<string, unknown>;
  tags: Record<string, unknown>;
}

export const FINDING_GROUP_STATUSES = ['open', 'closed', 'ignored'] as const;

export interface FindingGroup {
  id: string;
  group_id: string;
  account_id: string;
  cluster_id: string;
  type: string;
  rule_id: string;
  rule_title: string;
  severity: string;
  status: string;
  status_changed_at: string;
  /** the user who set the status; null when the evaluation did */
  status_changed_by: string | null;
  source_kind: string;
  source_name: string;
  source_namespace: string;
  source_type: string;
  first_seen: string;
  last_seen: string;
  event_timestamp: string;
  rule_attrs: Record<string, unknown>;
  source_attrs: Record<string, unknown>;
  findings?: Finding[];
}

export interface IntegrationConfigField {
  title: string;
  key: string;
  type: string;
  enum_values: string[];
  description: string;
  required: boolean;
  /** stored encrypted; read back redacted */
  secret: boolean;
}

export interface ConfiguredIntegration {
  id: string;
  name: string;
  type: string;
  config: Record<string, string | number | boolean>;
}

export interface IntegrationProvider {
  name: string;
  type: string;
  auth_method: string;
  categories: string[];
  configured: ConfiguredIntegration[];
  config: IntegrationConfigField[];
}
