/** Aggregated ClusterRoles: label selectors, transitivity, cycles, and risks found through them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { selectorMatches } from './aggregation.js';
import { clusterRole, clusterRoleBinding, roleBinding, rule, userSubject } from './fixtures/builders.js';
import { defaultCluster } from './fixtures/default-cluster.js';
import { compute, identityIn, oneRisk, risksFor } from './fixtures/harness.js';
import type { LabelSelector } from './types.js';

const selector = (partial: Partial<LabelSelector>): LabelSelector => ({
  matchLabels: {},
  matchExpressions: [],
  ...partial,
});

describe('selectorMatches', () => {
  const labels = { tier: 'web', team: 'shop' };
  test('matchLabels and every expression must hold; an empty selector selects everything', () => {
    assert.equal(selectorMatches(selector({}), {}), true);
    assert.equal(selectorMatches(selector({ matchLabels: { tier: 'web' } }), labels), true);
    assert.equal(selectorMatches(selector({ matchLabels: { tier: 'db' } }), labels), false);
    const expression = (operator: string, values: string[] = [], key = 'tier') =>
      selectorMatches(selector({ matchExpressions: [{ key, operator, values }] }), labels);
    assert.equal(expression('In', ['web', 'db']), true);
    assert.equal(expression('In', ['db']), false);
    assert.equal(expression('In', ['web'], 'absent'), false);
    assert.equal(expression('NotIn', ['db']), true);
    assert.equal(expression('NotIn', ['web']), false);
    assert.equal(expression('NotIn', ['web'], 'absent'), true);
    assert.equal(expression('Exists'), true);
    assert.equal(expression('Exists', [], 'absent'), false);
    assert.equal(expression('DoesNotExist', [], 'absent'), true);
    assert.equal(expression('DoesNotExist'), false);
    assert.equal(expression('Matches', ['web']), false, 'an operator Kubernetes rejects selects nothing');
  });
});

describe('aggregation', () => {
  const aggregated = (name: string, selectors: Record<string, unknown>[]) =>
    clusterRole(name, [], { aggregationRule: { clusterRoleSelectors: selectors } });

  test('an empty aggregated role bound to a user carries the rules of the roles it selects', () => {
    const objects = [
      aggregated('monitoring', [{ matchLabels: { 'aggregate-to-monitoring': 'true' } }]),
      clusterRole('secret-peek', [rule('', 'secrets', 'get')], {
        labels: { 'aggregate-to-monitoring': 'true' },
      }),
      clusterRole('unrelated', [rule('', 'pods/exec', 'create')], { labels: { other: 'true' } }),
      clusterRoleBinding('mon', 'monitoring', [userSubject('alice')]),
    ];
    const risk = oneRisk(objects, 'user', 'alice', 'secrets_read');
    assert.deepEqual(
      risk.associated_resources.map((resource) => resource.name),
      ['ClusterRole/monitoring', 'ClusterRole/secret-peek', 'ClusterRoleBinding/mon'],
    );
    assert.deepEqual(risksFor(objects, 'user', 'alice', 'pod_exec'), []);
  });

  test('matchExpressions select too, and a RoleBinding to the aggregate keeps the namespace scope', () => {
    const objects = [
      aggregated('ops', [{ matchExpressions: [{ key: 'grants', operator: 'In', values: ['ops', 'all'] }] }]),
      clusterRole('exec', [rule('', 'pods/exec', 'create')], { labels: { grants: 'all' } }),
      roleBinding('shop', 'ops', 'ops', [userSubject('alice')], 'ClusterRole'),
    ];
    const risk = oneRisk(objects, 'user', 'alice', 'pod_exec');
    assert.equal(risk.namespace, 'shop');
    assert.equal(risk.score, 3.5);
  });

  test('aggregation is transitive (admin <- edit <- view in the default roles)', () => {
    const objects = [...defaultCluster(), clusterRoleBinding('a', 'admin', [userSubject('alice')])];
    const alice = identityIn(compute(objects), 'user', 'alice');
    const resources = alice.facets.resources;
    for (const expected of ['configmaps', 'pods/exec', 'roles', 'secrets'])
      assert.ok(resources.includes(expected), expected);
    assert.deepEqual(
      alice.raw_rbac_objects.cluster_roles.map((raw) => (raw.metadata as { name: string }).name),
      [
        'admin',
        'edit',
        'system:aggregate-to-admin',
        'system:aggregate-to-edit',
        'system:aggregate-to-view',
        // what every authenticated user gets (alice inherits system:authenticated's bindings)
        'system:basic-user',
        'system:discovery',
        'system:public-info-viewer',
        'view',
      ],
    );
  });

  test('rules the controller already wrote into the aggregate still count when the components were not pushed', () => {
    const written = clusterRole('monitoring', [rule('', 'secrets', 'list')], {
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
    });
    const objects = [written, clusterRoleBinding('m', 'monitoring', [userSubject('alice')])];
    assert.equal(oneRisk(objects, 'user', 'alice', 'secrets_read').score, 8);
  });

  test('cycles between aggregated roles terminate and give both roles the union', () => {
    const objects = [
      clusterRole('a', [rule('', 'secrets', 'get')], {
        labels: { name: 'a' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { name: 'b' } }] },
      }),
      clusterRole('b', [rule('', 'pods/exec', 'create')], {
        labels: { name: 'b' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { name: 'a' } }] },
      }),
      clusterRoleBinding('to-a', 'a', [userSubject('alice')]),
      clusterRoleBinding('to-b', 'b', [userSubject('bob')]),
    ];
    const result = compute(objects);
    for (const user of ['alice', 'bob']) {
      assert.deepEqual(identityIn(result, 'user', user).facets.resources, ['pods/exec', 'secrets'], user);
    }
  });

  test('a role does not aggregate itself, and roles without aggregationRule aggregate nothing', () => {
    const objects = [
      clusterRole('plain', [rule('', 'configmaps', 'get')], { labels: { pick: 'me' } }),
      clusterRole('labelled', [rule('', 'secrets', 'get')], { labels: { pick: 'me' } }),
      clusterRoleBinding('p', 'plain', [userSubject('alice')]),
    ];
    assert.deepEqual(identityIn(compute(objects), 'user', 'alice').facets.resources, ['configmaps']);
  });
});
