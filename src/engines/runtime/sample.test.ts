import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { applyEvents } from './engine.js';
import { GENERATED_FILES } from './generated-files.js';
import { observeHttpRequests } from './http-observations.js';
import { buildRuntimeInsight, shouldRaiseInsight } from './insight.js';
import { parseRuntimeEvents } from './parse-events.js';
import { analyseWithRules } from './rule-analyser.js';
import { SAMPLE_TRUSTED_PREFIXES } from './sample/shop-stream.js';
import type { WorkloadContainerState } from './state.js';
import { groupByWorkloadContainer } from './workload-key.js';

const lines = readFileSync(GENERATED_FILES[1]!.path, 'utf8').trim().split('\n');
const options = { trustedPrefixes: SAMPLE_TRUSTED_PREFIXES };

/** The sample pushed in chunks of 50 lines, the state stored as JSON between pushes. */
function ingestInChunks(): Map<string, WorkloadContainerState> {
  const states = new Map<string, WorkloadContainerState>();
  for (let i = 0; i < lines.length; i += 50) {
    const parsed = parseRuntimeEvents(lines.slice(i, i + 50).join('\n'));
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.error));
    for (const group of groupByWorkloadContainer(parsed.events, 'cluster-1').values()) {
      const next = applyEvents(states.get(group.id) ?? null, group.key, group.events, options);
      states.set(group.id, JSON.parse(JSON.stringify(next)));
    }
  }
  return states;
}

describe('the sample stream', () => {
  const states = ingestInChunks();

  test('learns three workload containers and captures each baseline after an hour', () => {
    assert.deepEqual([...states.keys()].sort(), [
      'cluster-1/storefront/Deployment/api/api',
      'cluster-1/storefront/Deployment/frontend/frontend',
      'cluster-1/storefront/Deployment/web/nginx',
    ]);
    for (const state of states.values()) {
      assert.ok(
        state.baselineCapturedAt?.startsWith('2025-03-03T10:00:0'),
        state.baselineCapturedAt ?? 'not captured',
      );
    }
  });

  test('normal behaviour after the capture is covered: nginx and api raise nothing', () => {
    for (const id of [
      'cluster-1/storefront/Deployment/web/nginx',
      'cluster-1/storefront/Deployment/api/api',
    ]) {
      const state = states.get(id)!;
      assert.ok(state.ongoing.eventCount > 40);
      assert.equal(state.ongoing.driftEvents, 0, id);
      assert.equal(shouldRaiseInsight(state), false, id);
    }
  });

  test('the intrusion in frontend/frontend is a critical, malicious insight with the expected rules and techniques', () => {
    const state = states.get('cluster-1/storefront/Deployment/frontend/frontend')!;
    const ctx = {
      accountId: 'acc',
      clusterId: 'cluster-1',
      insightId: 'ins',
      analysisId: 'an',
      now: '2025-03-03T11:00:00.000Z',
    };
    const record = analyseWithRules(state, ctx);
    const rules = new Set(Object.values(state.signals).map((s) => s.rule));
    for (const rule of [
      'shell_spawned',
      'discovery_command',
      'service_account_token',
      'transfer_tool',
      'untrusted_egress',
      'permission_change',
      'dropped_binary_executed',
      'system_path_write',
      'falco_alert',
    ]) {
      assert.ok(rules.has(rule), rule);
    }
    assert.equal(state.signals['system_path_write|/etc/profile.d/kx.sh']?.severity, 'high');
    assert.equal(state.signals['untrusted_egress|203.0.113.45:443']?.count, 1);
    assert.equal(state.signals['falco_alert|Drop and execute new binary in container']?.severity, 'critical');
    const techniques = record.mitreAttackTechniques.map((t) => t.id);
    for (const id of [
      'T1059.004',
      'T1528',
      'T1552.001',
      'T1105',
      'T1071.001',
      'T1571',
      'T1033',
      'T1082',
      'T1222.002',
    ]) {
      assert.ok(techniques.includes(id), id);
    }
    assert.deepEqual([record.severity, record.action], ['critical', 'terminate_pod']);

    const insight = buildRuntimeInsight(state, {
      ...ctx,
      baselineId: 'b',
      createdAt: ctx.now,
      updatedAt: ctx.now,
      analysis: [record],
      llmAnalysis: null,
      childrenLimit: 10,
    });
    assert.deepEqual(
      [insight.state, insight.hasDrift, insight.malicious, insight.baselineCaptured, insight.severity],
      ['drift', true, true, true, 'critical'],
    );
    assert.equal(insight.summary.container_meta.container_name, 'frontend');
    assert.ok(
      insight.summary.container_meta.container_id.startsWith('containerd://'),
      'the full id, not Falco short one',
    );
    const [root] = insight.ongoing.containers[0]!.processes;
    const shells = root!.children.filter((c) => c.programs.some((p) => p.comm === 'sh'));
    assert.equal(shells.length, 1, 'both shells share the node > sh position');
    assert.equal(shells[0]!.drift, true);
    assert.deepEqual(shells[0]!.children.map((c) => c.programs[0]!.comm).sort(), [
      '.kx',
      'cat',
      'chmod',
      'curl',
      'id',
      'uname',
    ]);
    // The learned periodic job collapsed into a pattern and stayed covered.
    const job = root!.children.find((c) => c.programs.some((p) => p.comm === 'node'))!;
    assert.deepEqual([job.drift, job.programs[0]!.hasPattern], [false, true]);
  });

  test('HTTP traffic becomes observations; personal data is labelled and never stored', () => {
    const parsed = parseRuntimeEvents(lines.join('\n'));
    assert.ok(parsed.ok);
    const observations = observeHttpRequests(parsed.events, { clusterId: 'cluster-1', ...options });
    const pii = observations.filter((o) => o.has_pii).map((o) => `${o.path} ${o.pii_labels.join(',')}`);
    assert.deepEqual(pii.sort(), [
      '/api/customers/lookup?email={email} email',
      '/api/payments/verify?amount={value}&card={credit_card} credit_card',
      '/api/users/search?phone={phone_number} phone_number',
    ]);
    const text = JSON.stringify(observations);
    for (const secret of ['jane.doe', 'example.com', '4111111111111111', '415-555-0132'])
      assert.ok(!text.includes(secret), secret);
    const payments = observations.find((o) => o.destination_hostname === 'api.payments.example')!;
    assert.deepEqual([payments.trusted_ip, payments.trusted_ip_description], [true, 'Payment provider API']);
    assert.ok(observations.length >= 8 && observations.length <= 10);
  });
});
