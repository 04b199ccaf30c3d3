/** rbac_objects.graph, assigned_roles and raw_rbac_objects of an identity. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  clusterRole,
  clusterRoleBinding,
  groupSubject,
  roleBinding,
  rule,
  saSubject,
  serviceAccount,
} from './fixtures/builders.js';
import { CLUSTER_ID, compute, identityIn } from './fixtures/harness.js';
import { identityId, rbacObjectId } from './ids.js';
import type { Graph } from './types.js';

/** Edges as `fromName -type-> toName`, sorted, for readable assertions. */
function edges(graph: Graph): string[] {
  const names = new Map(graph.nodes.map((node) => [node.id, String(node.properties.name)]));
  return graph.edges
    .map((edge) => `${names.get(edge.from_id)} -${edge.type}-> ${names.get(edge.to_id)}`)
    .sort();
}

const objects = [
  serviceAccount('shop', 'api'),
  clusterRole('mon', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mon: 'true' } }] } }),
  clusterRole('mon-pods', [rule('', 'pods', 'get')], { labels: { mon: 'true' } }),
  roleBinding('shop', 'api-mon', 'mon', [saSubject('shop', 'api')], 'ClusterRole'),
  clusterRole('peek', [rule('', 'configmaps', 'get')]),
  clusterRoleBinding('all-sas', 'peek', [groupSubject('system:serviceaccounts')]),
];

test('identity -> binding -> role, through groups (member_of) and into aggregated components', () => {
  const api = identityIn(compute(objects), 'sa', 'shop/api');
  const graph = api.rbac_objects.graph;
  assert.deepEqual(edges(graph), [
    'all-sas -role_ref-> peek',
    'api -member_of-> system:serviceaccounts',
    'api -subject_of-> api-mon',
    'api-mon -role_ref-> mon',
    'mon -aggregates-> mon-pods',
    'system:serviceaccounts -subject_of-> all-sas',
  ]);
  const nodeTypes = Object.fromEntries(graph.nodes.map((node) => [node.properties.name, node.type]));
  assert.deepEqual(nodeTypes, {
    api: 'k8s_service_account',
    'system:serviceaccounts': 'k8s_group',
    'api-mon': 'role_binding',
    'all-sas': 'cluster_role_binding',
    mon: 'cluster_role',
    'mon-pods': 'cluster_role',
    peek: 'cluster_role',
  });
  const ids = graph.nodes.map((node) => node.id);
  assert.ok(ids.includes(api.id));
  assert.ok(
    ids.includes(identityId(CLUSTER_ID, 'Group', '', 'system:serviceaccounts')),
    'group node id is the group identity id',
  );
  assert.ok(ids.includes(rbacObjectId(CLUSTER_ID, 'RoleBinding', 'shop', 'api-mon')));
  assert.deepEqual([...ids].sort(), ids, 'nodes sorted by id');
  assert.equal(new Set(graph.edges.map((edge) => edge.id)).size, graph.edges.length);
});

test('assigned roles carry where they apply; raw objects are the objects as pushed', () => {
  const api = identityIn(compute(objects), 'sa', 'shop/api');
  assert.deepEqual(
    api.rbac_objects.assigned_roles.map((role) => [
      role.kind,
      role.name,
      role.namespace,
      role.uid,
      role.cluster_id,
    ]),
    [
      ['ClusterRole', 'peek', '', 'uid-clusterrole--peek', CLUSTER_ID],
      ['ClusterRole', 'mon', 'shop', 'uid-clusterrole--mon', CLUSTER_ID],
    ],
  );
  const raw = api.raw_rbac_objects;
  const names = (list: Record<string, unknown>[]) =>
    list.map((object) => (object.metadata as { name: string }).name);
  assert.deepEqual(
    [names(raw.cluster_role_bindings), names(raw.cluster_roles), names(raw.role_bindings), names(raw.roles)],
    [['all-sas'], ['mon', 'mon-pods', 'peek'], ['api-mon'], []],
  );
  assert.equal(raw.role_bindings[0], objects[3], 'the very object received');
});

test('an identity with no bindings has a graph of itself alone', () => {
  const lonely = identityIn(compute([serviceAccount('shop', 'lonely')]), 'sa', 'shop/lonely');
  assert.deepEqual(lonely.rbac_objects.graph.edges, []);
  assert.deepEqual(
    lonely.rbac_objects.graph.nodes.map((node) => node.id),
    [lonely.id],
  );
});
