/**
 * upsertFindings sends each distinct rule-and-source part of its rows once and every finding's
 * own columns with the index of its part (docs/performance.md, "Fix 17c"). An evaluation of two
 * images under two rules stores every finding with its own rule and source columns: a finding
 * joined to another's part would show here as a wrong rule, title, severity or image.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';
import { VULNERABILITY_RULES, vulnerabilityFindings } from '../../engines/findings/index.js';
import { applyEvaluation } from './evaluate.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const image = (n: number) => ({
  imageId: `00000000-0000-4000-8000-00000000000${n}`,
  imageRepo: `ghcr.io/acme/service-${n}`,
  imageTag: '1.0.0',
  imageDigest: `sha256:${String(n).repeat(64)}`,
});

const vulnerability = (n: number, cve: string, knownExploited: boolean) => ({
  ...image(n),
  cveName: cve,
  packageName: `lib${n}`,
  packageVersion: '1.0',
  severity: 'critical',
  fixedInVersion: '',
  knownExploited,
});

test('findings of several rules and sources keep their own rule and source columns', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  const rows = [
    vulnerability(1, 'CVE-2024-0001', false),
    vulnerability(2, 'CVE-2024-0002', true),
    vulnerability(1, 'CVE-2024-0003', true),
    vulnerability(2, 'CVE-2024-0004', false),
    vulnerability(1, 'CVE-2024-0005', false),
  ];
  const drafts = vulnerabilityFindings(cluster.id, rows);
  await t.db.transaction((tx) =>
    applyEvaluation(
      tx,
      {
        accountId: tenant.accountId,
        clusterId: cluster.id,
        family: 'vulnerability',
        sourceKeys: [image(1).imageId, image(2).imageId],
      },
      drafts,
      { tenantId: tenant.tenantId, at: new Date('2024-11-01T00:00:00Z'), listeners: [] },
    ),
  );
  const { rows: stored } = await t.db.query<{
    cve: string;
    rule_id: string;
    rule_title: string;
    severity: string;
    source_id: string;
    source_name: string;
    source_attrs: { image_digest: string };
    source_key: string;
    tags: { family: string };
  }>(
    `select rule_attrs ->> 'cve_name' as cve, rule_id, rule_title, severity, source_id, source_name, source_attrs,
            source_key, tags
       from findings where account_id = $1 order by 1`,
    [tenant.accountId],
  );
  assert.equal(stored.length, rows.length);
  for (const [i, row] of [...rows].sort((a, b) => a.cveName.localeCompare(b.cveName)).entries()) {
    const rule = row.knownExploited ? VULNERABILITY_RULES.knownExploited : VULNERABILITY_RULES.critical;
    const found = stored[i]!;
    assert.equal(found.cve, row.cveName);
    assert.equal(found.rule_id, rule.id, row.cveName);
    assert.equal(found.rule_title, rule.title, row.cveName);
    assert.equal(found.severity, rule.severity, row.cveName);
    assert.equal(found.source_id, row.imageId, row.cveName);
    assert.equal(found.source_name, `${row.imageRepo}:${row.imageTag}`, row.cveName);
    assert.equal(found.source_attrs.image_digest, row.imageDigest, row.cveName);
    assert.equal(found.source_key, row.imageId, row.cveName);
    assert.deepEqual(found.tags, { family: 'vulnerability' });
  }
});
