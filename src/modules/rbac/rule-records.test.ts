/** Rule records: the risk rules a single PolicyRule matches, and their severity at a scope. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RbacObjectRow } from './repository.js';
import { ruleRecord, ruleRisks } from './rule-records.js';
import type { StoredRule } from './sync.js';

const rule = (resources: string[], verbs: string[], extra: Partial<StoredRule> = {}): StoredRule => ({
  api_groups: [''],
  resources,
  verbs,
  resource_names: [],
  non_resource_urls: [],
  sources: [],
  ...extra,
});

const role = (kind: string, name: string): RbacObjectRow => ({
  account_id: 'a',
  cluster_id: 'c',
  uid: `uid-${name}`,
  object_id: '00000000-0000-5000-8000-000000000000',
  kind,
  namespace: kind === 'Role' ? 'shop' : '',
  name,
  resource_version: '7',
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-02T00:00:00Z'),
  role_ref_kind: null,
  role_ref_name: null,
  role_ref_api_group: null,
  subjects: null,
  rules: null,
  components: null,
});

describe('ruleRisks', () => {
  test('a namespaced grant weighs half a cluster-wide one', () => {
    const secrets = rule(['secrets'], ['get']);
    assert.deepEqual(ruleRisks(secrets, role('ClusterRole', 'r'), ''), [{ type: 'secrets_read', score: 8 }]);
    assert.deepEqual(ruleRisks(secrets, role('Role', 'r'), 'shop'), [{ type: 'secrets_read', score: 4 }]);
  });

  test('cluster-scoped rules only count cluster-wide; names restrict', () => {
    const proxy = rule(['nodes/proxy'], ['get']);
    assert.deepEqual(ruleRisks(proxy, role('ClusterRole', 'r'), 'shop'), []);
    assert.deepEqual(
      ruleRisks(proxy, role('ClusterRole', 'r'), '').map((r) => r.type),
      ['nodes_proxy'],
    );
    const named = rule(['secrets'], ['get'], { resource_names: ['tls'] });
    assert.deepEqual(ruleRisks(named, role('ClusterRole', 'r'), ''), [{ type: 'secrets_read', score: 4 }]);
  });

  test('any rule of the cluster-admin ClusterRole rates cluster_admin; broad groups are not a rule risk', () => {
    const pods = rule(['pods'], ['get']);
    assert.deepEqual(
      ruleRisks(pods, role('ClusterRole', 'cluster-admin'), '').map((r) => r.type),
      ['cluster_admin'],
    );
    assert.deepEqual(ruleRisks(pods, role('ClusterRole', 'viewer'), ''), []);
    assert.deepEqual(
      ruleRisks(rule([], ['get'], { non_resource_urls: ['/metrics'] }), role('ClusterRole', 'm'), ''),
      [],
    );
  });
});

describe('ruleRecord', () => {
  test('fields of the description, severity from the worst match, tags per risk and component', () => {
    const record = ruleRecord(
      role('ClusterRole', 'ops'),
      rule(['*'], ['*'], {
        api_groups: ['*'],
        sources: [{ kind: 'ClusterRole', name: 'ops-part', uid: 'uid-part' }],
      }),
      '',
    );
    assert.equal(record.severity, 'critical');
    assert.deepEqual(
      record.tags.map((tag) => `${tag.key}=${tag.value}`),
      [
        'risk_type=cluster_admin',
        'risk_type=wildcard_permissions',
        'risk_type=secrets_read',
        'risk_type=pod_exec',
        'risk_type=pod_attach',
        'risk_type=pod_port_forward',
        'risk_type=workload_create',
        'risk_type=role_escalate_bind',
        'risk_type=impersonate',
        'risk_type=service_account_token_create',
        'risk_type=csr_approve',
        'risk_type=nodes_proxy',
        'risk_type=webhook_config_write',
        'aggregated_from=ops-part',
      ],
    );
    assert.deepEqual(
      [record.category, record.type, record.status, record.version, record.cluster_role_uid, record.role_uid],
      ['rbac', 'resource_rule', 'active', '7', 'uid-ops', ''],
    );
    assert.equal(record.title, '* on *');
    const quiet = ruleRecord(role('Role', 'reader'), rule(['pods'], ['get', 'list']), 'shop');
    assert.deepEqual(
      [quiet.severity, quiet.tags, quiet.role_uid, quiet.namespace],
      ['negligible', [], 'uid-reader', 'shop'],
    );
    assert.equal(
      quiet.id,
      ruleRecord(role('Role', 'reader'), rule(['pods'], ['get', 'list']), 'shop').id,
      'stable id',
    );
    assert.notEqual(
      quiet.id,
      ruleRecord(role('Role', 'reader'), rule(['pods'], ['get', 'list']), 'other').id,
    );
  });
});
