/**
 * An identity's access graph as a nested list, read from the identity outwards: the groups it is
 * a member of, the bindings naming it (or its groups), the role each binding grants, the
 * ClusterRoles an aggregated role takes rules from. A role's rules load when its entry is opened
 * (GET .../resources/rbac/roles/{uid} or clusterroles/{uid}), so a large graph costs one call per
 * role actually looked at. Nested lists keep it readable by keyboard and screen reader, with no
 * layout engine.
 */
import { useState } from 'react';
import type { Account, RbacGraph, RoleRecord } from '../api/types.js';
import { useApi } from '../hooks/use-api.js';
import { accountPath } from '../paths.js';
import { ErrorMessage } from './error-message.js';
import { SeverityBadge } from './severity.js';
import { Loading } from './status.js';

type GraphNode = RbacGraph['nodes'][number];

const EDGE_LABELS: Record<string, string> = {
  member_of: 'member of',
  subject_of: 'bound by',
  role_ref: 'grants',
  aggregates: 'aggregates',
};

/** `properties` is free-form in the schema; the graph engine writes kind, name, namespace, uid, missing. */
const properties = (node: GraphNode) => node.properties as Record<string, unknown>;

const prop = (node: GraphNode, key: string) => {
  const value = properties(node)[key];
  return typeof value === 'string' ? value : '';
};

function nodeLabel(node: GraphNode): string {
  const kind = prop(node, 'kind') || node.type;
  const namespace = prop(node, 'namespace');
  return `${kind} ${namespace ? `${namespace}/` : ''}${prop(node, 'name') || node.id}`;
}

function RoleRules({ account, node }: { account: Account; node: GraphNode }) {
  const segment = node.type === 'cluster_role' ? 'clusterroles' : 'roles';
  const uid = prop(node, 'uid');
  const { data, error, loading } = useApi<RoleRecord>(
    accountPath(account, `/resources/rbac/${segment}/${encodeURIComponent(uid)}`),
  );
  if (error) return <ErrorMessage error={error} title="The rules could not be loaded" />;
  if (loading || !data) return <Loading what="Loading rules" />;
  if (data.rules.length === 0) return <p className="empty">No rule.</p>;
  return (
    <ul className="rule-list" aria-label={`Rules of ${nodeLabel(node)}`}>
      {data.rules.map((rule) => (
        <li key={rule.id}>
          <SeverityBadge value={rule.severity} /> <code>{rule.title}</code>
          {rule.namespace && <span className="muted"> in {rule.namespace}</span>}
        </li>
      ))}
    </ul>
  );
}

function RoleEntry({ account, node }: { account: Account; node: GraphNode }) {
  const [open, setOpen] = useState(false);
  const missing = properties(node).missing === true;
  if (missing || !prop(node, 'uid')) {
    return <span className="muted">(the role does not exist in the cluster)</span>;
  }
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Rules</summary>
      {open && <RoleRules account={account} node={node} />}
    </details>
  );
}

function Branch({
  account,
  graph,
  node,
  edgeType,
  path,
}: {
  account: Account;
  graph: RbacGraph;
  node: GraphNode;
  edgeType: string | null;
  path: Set<string>;
}) {
  const onPath = new Set(path).add(node.id);
  const outgoing = graph.edges.filter((edge) => edge.from_id === node.id && !onPath.has(edge.to_id));
  const isRole = node.type === 'role' || node.type === 'cluster_role';
  return (
    <li className={`graph-node graph-${node.type}`}>
      {edgeType && <span className="graph-edge">{EDGE_LABELS[edgeType] ?? edgeType} </span>}
      <strong>{nodeLabel(node)}</strong>
      {isRole && <RoleEntry account={account} node={node} />}
      {outgoing.length > 0 && (
        <ul className="graph-tree">
          {outgoing.map((edge) => {
            const target = graph.nodes.find((n) => n.id === edge.to_id);
            return target ? (
              <Branch
                key={edge.id}
                account={account}
                graph={graph}
                node={target}
                edgeType={edge.type}
                path={onPath}
              />
            ) : null;
          })}
        </ul>
      )}
    </li>
  );
}

export function RbacGraphView({
  account,
  graph,
  rootId,
}: {
  account: Account;
  graph: RbacGraph;
  rootId: string;
}) {
  const root = graph.nodes.find((node) => node.id === rootId);
  if (!root) return <p className="empty">No binding reaches this identity.</p>;
  return (
    <ul className="graph-tree graph-root" aria-label="Access graph">
      <Branch account={account} graph={graph} node={root} edgeType={null} path={new Set()} />
    </ul>
  );
}
