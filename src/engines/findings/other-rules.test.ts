/** Identity, vulnerability and runtime rules: must fire / must not fire, and stable fingerprints. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findingFingerprint, groupKey } from './fingerprint.js';
import { type IdentityFacts, identityFindings } from './identity-rules.js';
import { type InsightFacts, runtimeFindings } from './runtime-rules.js';
import { imageName, type RunningVulnerability, vulnerabilityFindings } from './vulnerability-rules.js';

const identity = (riskLevel: string, status = 'open'): IdentityFacts => ({
  id: 'i1',
  name: 'deployer',
  namespace: 'ci',
  type: 'k8s_service_account',
  riskLevel,
  riskScore: 90,
  riskTypes: ['secrets_read', 'cluster_admin'],
  status,
});

test('IDN-001 fires for Critical identities, IDN-002 for High; lower levels and resolved ones do not', () => {
  assert.deepEqual(
    identityFindings('c1', [identity('Critical')]).map((d) => [d.rule.id, d.severity]),
    [['IDN-001', 'critical']],
  );
  assert.deepEqual(
    identityFindings('c1', [identity('High')]).map((d) => d.rule.id),
    ['IDN-002'],
  );
  assert.deepEqual(identityFindings('c1', [identity('Medium'), identity('Critical', 'resolved')]), []);
  assert.match(
    identityFindings('c1', [identity('High')])[0]?.messages[0] ?? '',
    /cluster_admin, secrets_read/,
  );
});

const vulnerability = (severity: string, knownExploited: boolean): RunningVulnerability => ({
  imageId: 'image-1',
  imageRepo: 'docker.io/library/nginx',
  imageTag: '1.27.2',
  imageDigest: 'sha256:ab',
  cveName: 'CVE-2024-0001',
  packageName: 'openssl',
  packageVersion: '3.0.1',
  severity,
  fixedInVersion: '3.0.2',
  knownExploited,
});

test('VULN-001 fires for a known-exploited CVE of any severity, VULN-002 for other critical ones', () => {
  const ids = (row: RunningVulnerability) => vulnerabilityFindings('c1', [row]).map((d) => d.rule.id);
  assert.deepEqual(ids(vulnerability('low', true)), ['VULN-001']);
  assert.deepEqual(ids(vulnerability('critical', true)), ['VULN-001'], 'never both rules for one CVE');
  assert.deepEqual(ids(vulnerability('critical', false)), ['VULN-002']);
  assert.deepEqual(ids(vulnerability('high', false)), []);
  const [draft] = vulnerabilityFindings('c1', [vulnerability('critical', false)]);
  assert.deepEqual(
    [draft?.source.type, draft?.source.kind, draft?.source.id, draft?.source.name, draft?.source.namespace],
    ['image', 'ContainerImage', 'image-1', 'docker.io/library/nginx:1.27.2', ''],
    'the group is the image, not a workload running it',
  );
  assert.equal(draft?.scopeKey, 'image-1', 'owned by its image: a scan of it re-evaluates it alone');
  assert.match(
    draft?.messages[0] ?? '',
    /CVE-2024-0001 \(critical\) in openssl 3\.0\.1 .*fixed in openssl 3\.0\.2/,
  );
});

const insight = (facts: Partial<InsightFacts>): InsightFacts => ({
  insightId: 'in1',
  workloadId: 'w1',
  namespace: 'shop',
  workloadKind: 'Deployment',
  workloadName: 'web',
  containerName: 'nginx',
  containerId: 'abc',
  severity: 'low',
  hasDrift: false,
  malicious: false,
  ...facts,
});

test('RT-001 fires on drift with the insight severity; RT-002 on malicious activity, at least high', () => {
  assert.deepEqual(runtimeFindings('c1', [insight({})]), []);
  assert.deepEqual(
    runtimeFindings('c1', [insight({ hasDrift: true })]).map((d) => [d.rule.id, d.severity]),
    [['RT-001', 'low']],
  );
  assert.deepEqual(
    runtimeFindings('c1', [insight({ malicious: true, severity: 'critical' })]).map((d) => [
      d.rule.id,
      d.severity,
    ]),
    [['RT-002', 'critical']],
  );
  assert.deepEqual(
    runtimeFindings('c1', [insight({ malicious: true })]).map((d) => d.severity),
    ['high'],
  );
});

test('fingerprints and group keys depend on what a finding is about, not on its wording', () => {
  const [a] = vulnerabilityFindings('c1', [vulnerability('critical', false)]);
  const [b] = vulnerabilityFindings('c1', [{ ...vulnerability('critical', false), fixedInVersion: '' }]);
  const [other] = vulnerabilityFindings('c1', [
    { ...vulnerability('critical', false), cveName: 'CVE-2024-0002' },
  ]);
  const [elsewhere] = vulnerabilityFindings('c2', [vulnerability('critical', false)]);
  assert.ok(a && b && other && elsewhere);
  assert.equal(findingFingerprint(a), findingFingerprint(b));
  assert.notEqual(findingFingerprint(a), findingFingerprint(other));
  assert.equal(groupKey(a), groupKey(other), 'two CVEs of one image share a group');
  const [otherImage] = vulnerabilityFindings('c1', [
    { ...vulnerability('critical', false), imageId: 'image-2' },
  ]);
  assert.ok(otherImage);
  assert.notEqual(groupKey(a), groupKey(otherImage), 'images never share a group');
  assert.notEqual(findingFingerprint(a), findingFingerprint(otherImage));
  assert.notEqual(groupKey(a), groupKey(elsewhere), 'clusters never share a group');
  assert.match(findingFingerprint(a), /^[0-9a-f]{64}$/);
});

test('an image is named as containers name it: repository:tag, repository@digest without a tag', () => {
  const named = (imageTag: string, imageDigest: string) =>
    imageName({ imageRepo: 'docker.io/library/nginx', imageTag, imageDigest });
  assert.equal(named('1.27.2', 'sha256:ab'), 'docker.io/library/nginx:1.27.2');
  assert.equal(named('', 'sha256:ab'), 'docker.io/library/nginx@sha256:ab');
  assert.equal(imageName({ imageRepo: '', imageTag: '', imageDigest: 'sha256:ab' }), 'sha256:ab');
});
