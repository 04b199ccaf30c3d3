/**
 * The identity's access graph (`rbac_objects.graph`, the description's Graph shape): how each
 * grant reaches it.
 *
 *   identity --subject_of--> binding --role_ref--> role --aggregates--> component ClusterRole
 *   identity --member_of--> group --subject_of--> binding ...   (grants inherited through a group)
 *
 * Node ids are the stable ids of identities (ids.ts identityId) and RBAC objects (rbacObjectId),
 * so a node means the same thing in every identity's graph; edge ids derive from their ends.
 */
import type { GrantRef, IdentityDraft } from './identities.js';
import { stableId } from './ids.js';
import { compareStrings } from './order.js';
import type { Graph, GraphEdge, GraphNode, ObjectHandle } from './types.js';

export const NODE_TYPES: Record<string, string> = {
  RoleBinding: 'role_binding',
  ClusterRoleBinding: 'cluster_role_binding',
  Role: 'role',
  ClusterRole: 'cluster_role',
};

export type EdgeType = 'member_of' | 'subject_of' | 'role_ref' | 'aggregates';

const identityNode = (identity: IdentityDraft): GraphNode => ({
  id: identity.id,
  type: identity.type,
  properties: { kind: identity.kind, name: identity.name, namespace: identity.namespace },
});

const objectNode = (handle: ObjectHandle): GraphNode => ({
  id: handle.id,
  type: NODE_TYPES[handle.kind] ?? handle.kind,
  properties: {
    kind: handle.kind,
    name: handle.name,
    namespace: handle.namespace,
    uid: handle.uid,
    missing: handle.raw === null,
  },
});

const byId = (a: { id: string }, b: { id: string }) => compareStrings(a.id, b.id);

function memo<K, V>(cache: Map<K, V>, key: K, build: (key: K) => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = build(key);
    cache.set(key, value);
  }
  return value;
}

/**
 * Graph builder for one computation. Nodes and edges repeat across identities (every service
 * account reaches the same default bindings), so each is built once and shared: read-only.
 */
export function createGraphBuilder() {
  const objectNodes = new Map<ObjectHandle, GraphNode>();
  const identityNodes = new Map<IdentityDraft, GraphNode>();
  const edgeCache = new Map<string, GraphEdge>();
  const objectNodeOf = (handle: ObjectHandle) => memo(objectNodes, handle, objectNode);
  const identityNodeOf = (identity: IdentityDraft) => memo(identityNodes, identity, identityNode);
  const edgeOf = (from: string, type: EdgeType, to: string): GraphEdge => {
    const key = `${from}|${type}|${to}`;
    let found = edgeCache.get(key);
    if (found === undefined) {
      found = { id: stableId('edge', from, type, to), from_id: from, to_id: to, type };
      edgeCache.set(key, found);
    }
    return found;
  };

  return (identity: IdentityDraft, refs: readonly GrantRef[]): Graph => {
    const nodes = new Set<GraphNode>([identityNodeOf(identity)]);
    const edges = new Set<GraphEdge>();
    for (const { grant, via } of refs) {
      let subject = identity.id;
      if (via !== null) {
        nodes.add(identityNodeOf(via));
        edges.add(edgeOf(identity.id, 'member_of', via.id));
        subject = via.id;
      }
      nodes.add(objectNodeOf(grant.binding));
      nodes.add(objectNodeOf(grant.role));
      edges.add(edgeOf(subject, 'subject_of', grant.binding.id));
      edges.add(edgeOf(grant.binding.id, 'role_ref', grant.role.id));
      for (const component of grant.components) {
        nodes.add(objectNodeOf(component));
        edges.add(edgeOf(grant.role.id, 'aggregates', component.id));
      }
    }
    return { nodes: [...nodes].sort(byId), edges: [...edges].sort(byId) };
  };
}

export type GraphBuilder = ReturnType<typeof createGraphBuilder>;
