/**
 * Test fixtures for tenant settings, made through the HTTP API as a client would: a configured
 * integration (mock-siem) and a tenant-wide knowledge-base collection. Used by the shared security
 * table (test/security) and this module's tests; structural types keep it free of test imports.
 */
interface Requester {
  request(request: {
    method: 'POST';
    url: string;
    token: string;
    body: unknown;
  }): Promise<{ status: number; text: string; body: { id?: string; name?: string } }>;
}

export async function tenantSettingsFixture(t: Requester, tenant: { tenantId: string; adminToken: string }) {
  const integration = await t.request({
    method: 'POST',
    url: `/tenants/${tenant.tenantId}/integrations/external`,
    token: tenant.adminToken,
    body: { name: 'fixture', type: 'mock-siem', config: { index: 'posture', api_key: 'fixture-key' } },
  });
  if (integration.status !== 201) throw new Error(`integration fixture: ${integration.text}`);
  const collection = await t.request({
    method: 'POST',
    url: `/tenants/${tenant.tenantId}/knowledge_base/collections`,
    token: tenant.adminToken,
    body: { name: 'fixture-collection' },
  });
  if (collection.status !== 201) throw new Error(`collection fixture: ${collection.text}`);
  return {
    tenantId: tenant.tenantId,
    integrationId: integration.body.id as string,
    collectionName: 'fixture-collection',
  };
}
