/**
 * Graphs of the access-control detail records, in the identity engine's vocabulary
 * (docs/identity-risk.md): the same node ids (identity ids, stable object ids), node types,
 * properties and edge ids, so a node means the same thing in an identity's graph and here.
 *
 *   subject --subject_of--> binding --role_ref--> role --aggregates--> component ClusterRole
 */
import { rbacObjectId, stableId } from '../../engines/rbac/index.js';
import type { RbacObjectRow } from './repository.js';
import type { SubjectIdentity } from './subjects.js';

const NODE_TYPES: Record<string, string> = {
  RoleBinding: 'role_binding',
  ClusterRoleBinding: 'cluster_role_binding',
  Role: 'role',
  ClusterRole: 'cluster_role',
};

const IDENTITY_TYPES: Record<SubjectIdentity['kind'], string> = {
  ServiceAccount: 'k8s_service_account',
  User: 'k8s_user',
  Group: 'k8s_group',
};

interface Node {
  id: string;
  type: string;
  properties: Record<string, unknown>;
}

interface Edge {
  id: string;
  from_id: string;
  to_id: string;
  type: string;
}

/** A reference to an object that may be missing (a binding to a role that does not exist). */
export interface ObjectRef {
  kind: string;
  namespace: string;
  name: string;
  row: RbacObjectRow | undefined;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function createGraph(clusterId: string) {
  const nodes = new Map<string, Node>();
  const edges = new Map<string, Edge>();
  const graph = {
    /** Adds the node of an RBAC object (missing or not) and returns its id. */
    object(ref: ObjectRef): string {
      const id = ref.row?.object_id ?? rbacObjectId(clusterId, ref.kind, ref.namespace, ref.name);
      nodes.set(id, {
        id,
        type: NODE_TYPES[ref.kind] ?? ref.kind,
        properties: {
          kind: ref.kind,
          name: ref.name,
          namespace: ref.namespace,
          uid: ref.row?.uid ?? '',
          missing: ref.row === undefined,
        },
      });
      return id;
    },
    identity(subject: SubjectIdentity): string {
      nodes.set(subject.id, {
        id: subject.id,
        type: IDENTITY_TYPES[subject.kind],
        properties: { kind: subject.kind, name: subject.name, namespace: subject.namespace },
      });
      return subject.id;
    },
    edge(from: string, type: string, to: string) {
      const id = stableId('edge', from, type, to);
      edges.set(id, { id, from_id: from, to_id: to, type });
    },
    build: () => ({ nodes: [...nodes.values()].sort(byId), edges: [...edges.values()].sort(byId) }),
  };
  return graph;
}

export type GraphBuilder = ReturnType<typeof createGraph>;

/** binding -> role -> components, and each subject -> binding. */
export function addBinding(
  graph: GraphBuilder,
  binding: RbacObjectRow,
  role: ObjectRef,
  components: readonly ObjectRef[],
  subjects: readonly SubjectIdentity[],
) {
  const bindingId = graph.object({
    kind: binding.kind,
    namespace: binding.namespace,
    name: binding.name,
    row: binding,
  });
  const roleId = graph.object(role);
  graph.edge(bindingId, 'role_ref', roleId);
  for (const component of components) graph.edge(roleId, 'aggregates', graph.object(component));
  for (const subject of subjects) graph.edge(graph.identity(subject), 'subject_of', bindingId);
}
