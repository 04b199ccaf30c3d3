/**
 * Test fixture for the shared security table (test/security): a finding group of the tenant's
 * account, read through the HTTP API. The security cluster's pod (payments/debug-shell of the
 * sample) is privileged, so its push alone opens groups. Structural types keep this file free of
 * test imports.
 */
interface Requester {
  request(request: {
    method: 'GET';
    url: string;
    token: string;
  }): Promise<{ status: number; text: string; body: { id?: string }[] }>;
}

export async function findingGroupFixture(t: Requester, tenant: { accountId: string; adminToken: string }) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups?filters=rule_id:K8S-001`,
    token: tenant.adminToken,
  });
  const id = res.status === 200 ? res.body[0]?.id : undefined;
  if (!id)
    throw new Error(`finding group fixture: no K8S-001 group (${res.status} ${res.text.slice(0, 200)})`);
  return { findingGroupId: id };
}
