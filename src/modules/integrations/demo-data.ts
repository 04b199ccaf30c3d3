/**
 * Tenant settings of the demo tenant, made through the HTTP API with the demo key: a mock-webhook
 * integration (configured before the sample cluster is pushed, so the finding groups the push opens
 * show up in its delivery log without any network call) and two knowledge-base collections.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

type Inject = Pick<FastifyInstance, 'inject'>;

export async function configureDemoTenantSettings(
  app: Inject,
  demo: { token: string; tenantId: string; accountId: string },
): Promise<void> {
  const requests = [
    {
      url: `/tenants/${demo.tenantId}/integrations/external`,
      payload: {
        name: 'demo-mock-webhook',
        type: 'mock-webhook',
        // A fresh random signing secret: the demo never shows it, and no two demos share one.
        config: { signing_secret: randomBytes(24).toString('base64url'), min_severity: 'medium' },
      },
    },
    { url: `/tenants/${demo.tenantId}/knowledge_base/collections`, payload: { name: 'runbooks' } },
    {
      url: `/tenants/${demo.tenantId}/accounts/${demo.accountId}/knowledge_base/collections`,
      payload: { name: 'demo-cluster-notes' },
    },
  ];
  for (const request of requests) {
    const res = await app.inject({
      method: 'POST',
      url: request.url,
      headers: { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json' },
      payload: request.payload,
    });
    if (res.statusCode !== 201)
      throw new Error(`demo data: POST ${request.url} answered ${res.statusCode}: ${res.body}`);
  }
}
