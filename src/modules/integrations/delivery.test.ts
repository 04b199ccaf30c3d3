import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { type ReceivedRequest, WebhookReceiver } from '../../../test/support/webhook-receiver.js';
import type { FindingGroupsOpened, NotifiedFindingGroup } from '../findings/events.js';
import { enqueueFindingGroupDeliveries } from './finding-listener.js';

const SIGNING_SECRET = 'signing-secret-for-delivery-tests';
const BACKOFF_MS = 40;

let t: TestApp;
const receiver = new WebhookReceiver();
before(async () => {
  t = await startTestApp({
    INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: true,
    INTEGRATIONS_DELIVERY_BACKOFF_MS: BACKOFF_MS,
    INTEGRATIONS_DELIVERY_MAX_ATTEMPTS: 3,
    INTEGRATIONS_DELIVERY_TIMEOUT_MS: 2000,
    INTEGRATIONS_DELIVERY_POLL_MS: 0, // the tests drain the queue themselves
  });
  await receiver.start();
});
after(async () => {
  await t.close();
  await receiver.close();
});

const group = (severity: string, id = crypto.randomUUID()): NotifiedFindingGroup => ({
  id,
  account_id: '',
  cluster_id: crypto.randomUUID(),
  type: 'k8s_misconfiguration',
  rule_id: 'privileged-container',
  rule_title: 'Privileged container',
  severity,
  status: 'open',
  source_kind: 'Deployment',
  source_type: 'kubeobject',
  source_name: 'web',
  source_namespace: 'shop',
  first_seen: '2026-01-01T00:00:00.000Z',
  last_seen: '2026-01-01T00:00:00.000Z',
});

/** What the findings engine does: call the listener inside its transaction. */
async function open(tenant: TestTenant, groups: NotifiedFindingGroup[]) {
  const event: FindingGroupsOpened = {
    tenantId: tenant.tenantId,
    accountId: tenant.accountId,
    groups: groups.map((g) => ({ ...g, account_id: tenant.accountId })),
  };
  await t.db.transaction((tx) => enqueueFindingGroupDeliveries(tx, event));
  return event;
}

async function configure(tenant: TestTenant, type: string, config: Record<string, unknown>, name = type) {
  const res = await t.request({
    method: 'POST',
    url: `/tenants/${tenant.tenantId}/integrations/external`,
    token: tenant.adminToken,
    body: { name, type, config },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id as string;
}

const deliveries = async (tenant: TestTenant, id: string) => {
  const res = await t.request({
    method: 'GET',
    url: `/tenants/${tenant.tenantId}/integrations/external/${id}/deliveries`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

function verifySignature(header: string | string[] | undefined, body: string) {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  assert.ok(match, `signature header: ${header}`);
  const expected = createHmac('sha256', SIGNING_SECRET).update(`${match[1]}.${body}`).digest();
  assert.ok(timingSafeEqual(expected, Buffer.from(match[2] as string, 'hex')), 'signature matches the body');
}

const drain = () => t.app.services.integrationDeliveries.drain(5000);

describe('webhook deliveries', () => {
  test('a signed POST per delivering integration; a 500 is retried after the backoff, then delivered', async () => {
    const tenant = await createTenant(t);
    const hook = await configure(tenant, 'webhook', { url: receiver.url, signing_secret: SIGNING_SECRET });
    const mock = await configure(tenant, 'mock-webhook', { signing_secret: SIGNING_SECRET });
    const jira = await configure(tenant, 'jira', {
      url: receiver.url,
      email: 'a@example.com',
      api_token: 'jira-token-123',
      project_key: 'SEC',
    });
    receiver.received = [];
    receiver.script = [500];
    const event = await open(tenant, [group('high'), group('low')]);
    await drain();

    assert.equal(receiver.received.length, 2, 'one failed attempt, one retry; nothing for mock or jira');
    const [first, second] = receiver.received as [ReceivedRequest, ReceivedRequest];
    assert.ok(second.at - first.at >= BACKOFF_MS, `retried after the backoff (${second.at - first.at} ms)`);
    for (const request of receiver.received) {
      verifySignature(request.headers['x-posture-signature'], request.body);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['x-posture-event'], 'finding_groups.opened');
    }
    assert.equal(
      first.headers['x-posture-delivery'],
      second.headers['x-posture-delivery'],
      'same delivery retried',
    );
    const body = JSON.parse(second.body);
    assert.deepEqual(
      { ...body, delivery_id: undefined },
      {
        event: 'finding_groups.opened',
        delivery_id: undefined,
        tenant_id: tenant.tenantId,
        account_id: tenant.accountId,
        groups: event.groups,
      },
    );
    assert.equal(body.delivery_id, first.headers['x-posture-delivery']);

    const log = await deliveries(tenant, hook);
    assert.equal(log.total_count, 1);
    assert.deepEqual(
      (({ status, attempts, response_status, last_error, next_attempt_at }) => ({
        status,
        attempts,
        response_status,
        last_error,
        next_attempt_at,
      }))(log.entries[0]),
      {
        status: 'delivered',
        attempts: 2,
        response_status: 200,
        last_error: 'receiver answered 500',
        next_attempt_at: null,
      },
    );

    // The mock variant records its delivery in the log, signed, without a network call.
    const recorded = await deliveries(tenant, mock);
    assert.equal(recorded.total_count, 1);
    assert.equal(recorded.entries[0].status, 'delivered');
    assert.equal(recorded.entries[0].response_status, null);
    assert.deepEqual(recorded.entries[0].payload.groups, event.groups);
    const { rows } = await t.db.query<{ signature: string; payload: object }>(
      'select signature, payload from integration_deliveries where tenant_id = $1 and integration_id = $2',
      [tenant.tenantId, mock],
    );
    verifySignature(rows[0]?.signature, JSON.stringify(rows[0]?.payload));
    assert.equal((await deliveries(tenant, jira)).total_count, 0, 'jira does not deliver');
  });

  test('min_severity filters groups; other tenants are not notified; nothing for an empty event', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const high = await configure(tenant, 'mock-siem', {
      index: 'posture',
      api_key: 'siem-key-1',
      min_severity: 'high',
    });
    const all = await configure(tenant, 'mock-ticketing', { project_key: 'SEC', api_token: 'ticket-token' });
    const otherHook = await configure(other, 'mock-webhook', { signing_secret: SIGNING_SECRET });
    await open(tenant, [group('low'), group('medium')]);
    await open(tenant, [group('critical'), group('negligible')]);
    await open(tenant, []);
    await drain();
    const highLog = await deliveries(tenant, high);
    assert.equal(highLog.total_count, 1);
    assert.deepEqual(
      highLog.entries[0].payload.groups.map((g: { severity: string }) => g.severity),
      ['critical'],
    );
    assert.equal((await deliveries(tenant, all)).total_count, 2);
    assert.equal((await deliveries(other, otherHook)).total_count, 0);
  });

  test('a 4xx fails at once; repeated 5xx fail after the maximum attempts; both logged', async () => {
    const tenant = await createTenant(t);
    const hook = await configure(tenant, 'webhook', { url: receiver.url, signing_secret: SIGNING_SECRET });
    receiver.received = [];
    receiver.script = [404];
    await open(tenant, [group('high')]);
    await drain();
    receiver.script = [503, 503, 503];
    await open(tenant, [group('critical')]);
    await drain();
    assert.equal(receiver.received.length, 4);
    const log = await deliveries(tenant, hook);
    const summary = log.entries.map((e: { status: string; attempts: number; response_status: number }) => [
      e.status,
      e.attempts,
      e.response_status,
    ]);
    assert.deepEqual(summary, [
      ['failed', 3, 503],
      ['failed', 1, 404],
    ]);
  });

  test('the URL is checked again at send time: a link-local address is never called', async () => {
    const tenant = await createTenant(t);
    const hook = await configure(tenant, 'webhook', { url: receiver.url, signing_secret: SIGNING_SECRET });
    const refused = await t.request({
      method: 'PUT',
      url: `/tenants/${tenant.tenantId}/integrations/external/${hook}`,
      token: tenant.adminToken,
      body: { name: 'hook', config: { url: 'http://169.254.169.254/latest', signing_secret: '********' } },
    });
    assert.equal(refused.status, 400, 'refused at config time, even with private networks allowed');
    // A row written before a policy change (or a name that now resolves elsewhere) is refused when sent.
    await t.db.query(
      `update integrations set config = jsonb_set(config, '{url}', '"http://169.254.169.254/latest"') where id = $1`,
      [hook],
    );
    receiver.received = [];
    await open(tenant, [group('high')]);
    await drain();
    assert.equal(receiver.received.length, 0);
    const [entry] = (await deliveries(tenant, hook)).entries;
    assert.equal(entry.status, 'failed');
    assert.equal(entry.attempts, 1);
    assert.match(entry.last_error, /link-local/);
  });

  test('the app runs the worker from ready to close', async () => {
    const app = await startTestApp({
      INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: true,
      INTEGRATIONS_DELIVERY_POLL_MS: 20,
    });
    try {
      const tenant = await createTenant(app);
      const res = await app.request({
        method: 'POST',
        url: `/tenants/${tenant.tenantId}/integrations/external`,
        token: tenant.adminToken,
        body: {
          name: 'hook',
          type: 'webhook',
          config: { url: receiver.url, signing_secret: SIGNING_SECRET },
        },
      });
      assert.equal(res.status, 201, res.text);
      receiver.received = [];
      await app.db.transaction((tx) =>
        enqueueFindingGroupDeliveries(tx, {
          tenantId: tenant.tenantId,
          accountId: tenant.accountId,
          groups: [group('high')],
        }),
      );
      const deadline = Date.now() + 5000;
      while (receiver.received.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(receiver.received.length, 1, 'delivered by the background worker');
    } finally {
      await app.close();
    }
  });
});
