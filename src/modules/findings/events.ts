/**
 * The contract between the findings engine and whoever reacts to new findings (integrations'
 * webhook deliveries). Listeners run inside the evaluation transaction, so a notification is
 * recorded exactly when the group change it describes is committed; they must only write rows
 * (an outbox), never call out over the network.
 */
import type { Executor } from '../../db/database.js';

/** A group as the description shows it, without its findings. */
export interface NotifiedFindingGroup {
  id: string;
  account_id: string;
  cluster_id: string;
  type: string;
  rule_id: string;
  rule_title: string;
  severity: string;
  status: string;
  source_kind: string;
  source_type: string;
  source_name: string;
  source_namespace: string;
  first_seen: string;
  last_seen: string;
}

/** Groups that were created, or reopened after they had closed, by one evaluation. */
export interface FindingGroupsOpened {
  tenantId: string;
  accountId: string;
  groups: readonly NotifiedFindingGroup[];
}

export type FindingGroupsOpenedListener = (tx: Executor, event: FindingGroupsOpened) => Promise<void>;
