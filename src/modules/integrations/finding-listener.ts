/**
 * The findings engine's listener (src/modules/findings/events.ts): inside the evaluation
 * transaction, one outbox row per delivering integration of the tenant (the generic webhook and the
 * `mock-` variants) for the groups that were opened or reopened. Nothing is sent here: the
 * delivery worker sends committed rows, so a rolled-back evaluation notifies no one.
 *
 * @example
 *   createFindingsService({ ..., listeners: [enqueueFindingGroupDeliveries] })
 */
import { newId } from '../../http/ids.js';
import type { FindingGroupsOpenedListener, NotifiedFindingGroup } from '../findings/events.js';
import { DELIVERING_TYPES, SEVERITIES } from './catalogue.js';
import { insertDelivery } from './delivery-repository.js';
import { listIntegrationsOfTypes } from './repository.js';

export const FINDING_GROUPS_OPENED = 'finding_groups.opened';

const rank = (severity: unknown) => SEVERITIES.indexOf(String(severity).toLowerCase() as never);

function atOrAbove(groups: readonly NotifiedFindingGroup[], minimum: unknown) {
  if (typeof minimum !== 'string') return groups;
  return groups.filter((group) => rank(group.severity) >= rank(minimum));
}

export const enqueueFindingGroupDeliveries: FindingGroupsOpenedListener = async (tx, event) => {
  if (event.groups.length === 0) return;
  const targets = await listIntegrationsOfTypes(tx, event.tenantId, DELIVERING_TYPES);
  for (const integration of targets) {
    const groups = atOrAbove(event.groups, integration.config.min_severity);
    if (groups.length === 0) continue;
    const id = newId();
    await insertDelivery(tx, {
      tenantId: event.tenantId,
      id,
      integrationId: integration.id,
      accountId: event.accountId,
      event: FINDING_GROUPS_OPENED,
      // The delivery id travels in the body too: receivers dedupe retried deliveries with it.
      payload: {
        event: FINDING_GROUPS_OPENED,
        delivery_id: id,
        tenant_id: event.tenantId,
        account_id: event.accountId,
        groups,
      },
    });
  }
};
