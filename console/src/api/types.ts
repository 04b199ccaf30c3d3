/**
 * API objects as the console reads them, derived from the server's own TypeBox schemas so a
 * changed field fails the console's typecheck instead of its users.
 */
import type { Static } from 'typebox';
import type { AccessKeySchema, CreatedAccessKeySchema } from '../../../src/modules/access-keys/schemas.js';
import type { AccountSchema } from '../../../src/modules/accounts/schemas.js';
import type { ClusterActionSchema } from '../../../src/modules/cluster-actions/schemas.js';
import type { ClusterSchema } from '../../../src/modules/clusters/schemas.js';
import type { ConsoleSessionResponse } from '../../../src/modules/console/session-schemas.js';
import type { InventoryContainerSchema } from '../../../src/modules/inventory-containers/schemas.js';
import type { RegistrySchema } from '../../../src/modules/registries/schemas.js';
import type { ResourceRecordSchema } from '../../../src/modules/resources/schemas.js';
import type { MemberSchema, RoleAssignmentSchema } from '../../../src/modules/users/schemas.js';

export type Account = Static<typeof AccountSchema>;
export type AccessKey = Static<typeof AccessKeySchema>;
export type CreatedAccessKey = Static<typeof CreatedAccessKeySchema>;
export type Cluster = Static<typeof ClusterSchema>;
export type ClusterAction = Static<typeof ClusterActionSchema>;
export type ConsoleSession = Static<typeof ConsoleSessionResponse>;
export type InventoryContainer = Static<typeof InventoryContainerSchema>;
export type Member = Static<typeof MemberSchema>;
export type Registry = Static<typeof RegistrySchema>;
export type ResourceRecord = Static<typeof ResourceRecordSchema>;
export type RoleAssignment = Static<typeof RoleAssignmentSchema>;

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
