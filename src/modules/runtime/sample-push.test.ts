/**
 * The sample stream (sample/runtime/) through the real endpoint: the documented outcome, read back
 * through every runtime endpoint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createCluster } from '../../../test/ingest/sample.js';
import {
  getJson,
  pushRuntime,
  putSettings,
  SAMPLE_TRUSTED_PREFIXES,
  sampleRuntimeText,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

/** the frontend container of sample/cluster/03-pods.json, where the sample intrusion happens */
const FRONTEND_CONTAINER = '8fa445408d8ea6d6597586c681dc4a23e16944e0aaffcc332685836a0a014815';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('the sample stream, gzip-compressed, in one push', () => {
  let token: string;
  let accountId: string;
  let clusterId: string;
  let pushed: Record<string, unknown>;

  before(async () => {
    const tenant = await createTenant(t);
    token = tenant.adminToken;
    accountId = tenant.accountId;
    clusterId = (await createCluster(t, token, accountId, 'demo')).id;
    await putSettings(t, { token, accountId }, { trusted_ip_prefixes: SAMPLE_TRUSTED_PREFIXES });
    const res = await pushRuntime(t, { token, accountId, clusterId }, gzipSync(sampleRuntimeText()), {
      'content-encoding': 'gzip',
    });
    assert.equal(res.status, 200, res.text);
    pushed = res.body;
  });

  test('the push reports what it stored', () => {
    assert.deepEqual(pushed, {
      cluster_id: clusterId,
      events: 356,
      formats: { native: 355, falco: 1 },
      skipped: [],
      skipped_count: 0,
      workload_containers: 3,
      baselines_captured: 3,
      drift_events: pushed.drift_events,
      insights: 1,
      http_observations: pushed.http_observations,
    });
    assert.ok((pushed.drift_events as number) > 5);
    assert.ok((pushed.http_observations as number) >= 3);
  });

  test('one critical, malicious insight for frontend/frontend, named by its inventory container id', async () => {
    const list = await getJson(t, token, `/accounts/${accountId}/container_runtime_insights`);
    assert.equal(list.total_count, 1);
    const [insight] = list.entries;
    assert.equal(insight.severity, 'critical');
    assert.equal(insight.malicious, true);
    assert.equal(insight.hasDrift, true);
    assert.equal(insight.state, 'drift');
    assert.equal(insight.clusterID, clusterId);
    assert.equal(insight.summary.container_meta.container_id, FRONTEND_CONTAINER);
    assert.equal(insight.summary.container_meta.runtime_name, 'containerd');
    assert.equal(insight.summary.kube_meta.namespace, 'storefront');
    assert.equal(insight.analysis[0].action, 'terminate_pod');
    assert.ok(insight.analysis[0].mitreAttackTechniques.some((t: { id: string }) => t.id === 'T1528'));
    assert.equal(insight.llmAnalysis, null, 'no LLM analyser is configured');
  });

  test('three baselines, each captured an hour after its first event', async () => {
    const page = await getJson(
      t,
      token,
      `/accounts/${accountId}/container_runtime_latest_baseline_fingerprints`,
    );
    assert.equal(page.total_count, 3);
    assert.deepEqual(page.entries.map((e: { container_name: string }) => e.container_name).sort(), [
      'api',
      'frontend',
      'nginx',
    ]);
    for (const entry of page.entries) {
      assert.match(entry.created_at, /^2025-03-03T10:00:0\d\.000Z$/);
      assert.equal(entry.fingerprint.metadata.creationTimestamp, entry.created_at);
      assert.equal(entry.cluster_id, clusterId);
    }
  });

  test('HTTP observations carry the PII labels of the sample', async () => {
    const page = await getJson(
      t,
      token,
      `/accounts/${accountId}/container_runtime_insights/http_requests?filters=has_pii:true`,
    );
    const labels = new Set(page.entries.flatMap((o: { pii_labels: string[] }) => o.pii_labels));
    assert.deepEqual([...labels].sort(), ['credit_card', 'email', 'phone_number']);
    const text = JSON.stringify(page);
    assert.ok(!text.includes('%40') && !text.includes('@example'), 'no matched value is stored');
  });
});
