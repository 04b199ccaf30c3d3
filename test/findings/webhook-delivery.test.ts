/**
 * From a cluster push to a signed webhook, end to end: a Kubernetes push whose objects break a
 * rule opens finding groups, the evaluation queues one delivery per delivering integration of the
 * tenant in the push's transaction, and the worker POSTs them, signed, to the receiver. A push
 * that changes nothing notifies nothing; a group that closes and comes back is notified again.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { deployment } from '../../src/modules/findings/test-objects.js';
import { createCluster, push } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const SIGNING_SECRET = 'end-to-end-signing-secret';

let t: TestApp;
const receiver = new WebhookReceiver();
before(async () => {
  t = await startTestApp({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: true, INTEGRATIONS_DELIVERY_POLL_MS: 0 });
  await receiver.start();
});
after(async () => {
  await t.close();
  await receiver.close();
});

async function pushOk(tenant: TestTenant, clusterId: string, payload: object) {
  const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, payload);
  assert.equal(res.status, 200, res.text);
}

/** The groups of every request the receiver got since the last call, each request verified. */
function receivedGroups(): { rule_id: string; status: string; source_name: string }[] {
  const requests = receiver.received.splice(0);
  return requests.flatMap((request) => {
    const [, timestamp, mac] =
      /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['x-posture-signature'])) ?? [];
    const expected = createHmac('sha256', SIGNING_SECRET)
      .update(`${timestamp}.${request.body}`)
      .digest('hex');
    assert.equal(mac, expected, 'the signature is over the body received');
    return JSON.parse(request.body).groups;
  });
}

test('a push that opens finding groups is delivered to the tenant webhook, and only new groups are', async () => {
  const tenant = await createTenant(t);
  const other = await createTenant(t);
  for (const owner of [tenant, other]) {
    const res = await t.request({
      method: 'POST',
      url: `/tenants/${owner.tenantId}/integrations/external`,
      token: owner.adminToken,
      body: { name: 'hook', type: 'webhook', config: { url: receiver.url, signing_secret: SIGNING_SECRET } },
    });
    assert.equal(res.status, 201, res.text);
  }
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'hooked');
  const drain = () => t.app.services.integrationDeliveries.drain(5000);

  await pushOk(tenant, cluster.id, deployment({ version: '1', privileged: true }));
  await drain();
  const opened = receivedGroups();
  const groups = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups?filters=status:open`,
    token: tenant.adminToken,
  });
  assert.ok(groups.body.length > 1);
  assert.deepEqual(
    opened.map((g) => g.rule_id).sort(),
    groups.body.map((g: { rule_id: string }) => g.rule_id).sort(),
    'every opened group, once, and nothing for the other tenant',
  );
  assert.ok(opened.every((g) => g.status === 'open' && g.source_name === 'web'));

  await pushOk(tenant, cluster.id, deployment({ version: '2', privileged: true }));
  await drain();
  assert.deepEqual(receivedGroups(), [], 'a push that opens nothing new notifies nothing');

  await pushOk(tenant, cluster.id, deployment({ version: '3', privileged: false }));
  await pushOk(tenant, cluster.id, deployment({ version: '4', privileged: true }));
  await drain();
  assert.deepEqual(
    receivedGroups().map((g) => [g.rule_id, g.status]),
    [['K8S-001', 'open']],
    'the privileged group closed with the fix and is notified again when it reopens',
  );
});
