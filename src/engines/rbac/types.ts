/**
 * Types of the RBAC identity engine: the Kubernetes objects it reads (normalized from untrusted
 * JSON by objects.ts) and the identities it produces. Output field names follow the API
 * description's Identity shape, so storage can map them one to one; the few extra fields the API
 * does not have are grouped under `facets`.
 */

export type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Kubernetes input, normalized
// ---------------------------------------------------------------------------------------------

export interface OwnerReference {
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
}

export interface ObjectMeta {
  name: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string | null;
  labels: Record<string, string>;
  ownerReferences: OwnerReference[];
}

export interface KubeObject {
  kind: string;
  meta: ObjectMeta;
  /** The object exactly as received, for raw_rbac_objects. */
  raw: Json;
}

/** A Kubernetes PolicyRule; every list holds only the strings of the original. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values: string[];
}

export interface LabelSelector {
  matchLabels: Record<string, string>;
  matchExpressions: LabelSelectorRequirement[];
}

export interface RoleObject extends KubeObject {
  rules: PolicyRule[];
}

export interface ClusterRoleObject extends RoleObject {
  /** `aggregationRule.clusterRoleSelectors`; null when the role is not aggregated. */
  selectors: LabelSelector[] | null;
}

export interface Subject {
  kind: string;
  name: string;
  namespace: string;
  apiGroup: string;
}

export interface RoleRef {
  kind: string;
  name: string;
  apiGroup: string;
}

export interface BindingObject extends KubeObject {
  roleRef: RoleRef;
  subjects: Subject[];
}

export interface PodObject extends KubeObject {
  serviceAccountName: string;
  phase: string;
  startTime: string | null;
  /** Latest `state.terminated.finishedAt` over the pod's containers. */
  finishedAt: string | null;
}

export interface WorkloadObject extends KubeObject {
  /** The service account of the pod template. */
  serviceAccountName: string;
}

/** Everything the engine reads, classified and de-duplicated (one object per kind/namespace/name). */
export interface Inventory {
  serviceAccounts: KubeObject[];
  roles: RoleObject[];
  clusterRoles: ClusterRoleObject[];
  roleBindings: BindingObject[];
  clusterRoleBindings: BindingObject[];
  pods: PodObject[];
  workloads: WorkloadObject[];
  warnings: string[];
}

/** A reference to an RBAC object (or to one a binding names but that does not exist). */
export interface ObjectHandle {
  /** `kind/namespace/name`: what fingerprints hash, stable when the object is recreated. */
  key: string;
  /** Stable id from cluster + kind + namespace + name (see ids.ts); graph node id. */
  id: string;
  kind: string;
  namespace: string;
  name: string;
  /** Kubernetes uid, '' when the object is missing. */
  uid: string;
  creationTimestamp: string | null;
  raw: Json | null;
}

// ---------------------------------------------------------------------------------------------
// Engine output
// ---------------------------------------------------------------------------------------------

export type IdentityType = 'k8s_service_account' | 'k8s_user' | 'k8s_group';

export type RiskLevel = 'Unspecified' | 'Negligible' | 'Low' | 'Medium' | 'High' | 'Critical';

/** Lowercase, as finding severities elsewhere in the API. */
export type Severity = 'negligible' | 'low' | 'medium' | 'high' | 'critical';

export type RiskType =
  | 'cluster_admin'
  | 'wildcard_permissions'
  | 'secrets_read'
  | 'pod_exec'
  | 'pod_attach'
  | 'pod_port_forward'
  | 'workload_create'
  | 'role_escalate_bind'
  | 'impersonate'
  | 'service_account_token_create'
  | 'csr_approve'
  | 'nodes_proxy'
  | 'webhook_config_write'
  | 'broad_group_binding'
  | 'unused_identity';

/** One entry of `rbac_objects.permissions`: a rule and where it applies ('' = cluster-wide). */
export interface Permission {
  api_groups: string[];
  namespace: string;
  resource_names: string[];
  resources: string[];
  verbs: string[];
}

/** An assigned role (the SubjectRef shape without the storage-owned account and update fields). */
export interface AssignedRole {
  id: string;
  uid: string;
  kind: string;
  name: string;
  /** Where the role applies: the RoleBinding's namespace, '' for a ClusterRoleBinding. */
  namespace: string;
  cluster_id: string;
  created_at: string | null;
}

export interface GraphNode {
  id: string;
  type: string;
  properties: Record<string, unknown>;
}

export interface GraphEdge {
  id: string;
  from_id: string;
  to_id: string;
  type: string;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface AssociatedResource {
  /** Kubernetes uid of the binding or role (what #19-#22 look up); the stable id if it is missing. */
  id: string;
  /** `Kind/name` or `Kind/namespace/name`. */
  name: string;
  severity: Severity;
}

/**
 * A detected risk. Storage adds `first_detected_at`, `last_detected_at` and `deleted_at`
 * (lifecycle.ts computes them).
 */
export interface Risk {
  id: string;
  identity_id: string;
  type: RiskType;
  name: string;
  description: string;
  weight: number;
  score: number;
  severity: Severity;
  /** Scope of the risk: '' cluster-wide, else the namespace. */
  namespace: string;
  associated_resources: AssociatedResource[];
  fingerprint: string;
  /** How many bindings (grants) produce this risk. */
  risk_counter: number;
}

export interface RiskTypeSummary {
  type: RiskType;
  count: number;
  weight: number;
  normalized_weight: number;
  score: number;
}

export interface RisksSummary {
  risks: RiskTypeSummary[];
  total_risk_score: number;
  total_weight: number;
}

export interface RawRbacObjects {
  cluster_role_bindings: Json[];
  cluster_roles: Json[];
  role_bindings: Json[];
  roles: Json[];
}

export interface WorkloadRef {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

export type Usage = 'used' | 'unused' | 'unknown';

/**
 * One identity as the engine computes it. Storage adds account_id, tenant_id, created_at,
 * updated_at, deleted_at, status, resolved_at, resolved_reason and rbac_objects.created_at.
 */
export interface ComputedIdentity {
  id: string;
  original_id: string;
  name: string;
  namespace: string;
  type: IdentityType;
  source_id: string;
  source_name: string;
  source_type: string;
  actions: string[];
  risks: Risk[];
  risk_score: number;
  risk_level: RiskLevel;
  risk_types: RiskType[];
  risks_summary: RisksSummary;
  risk_detectors: Record<string, unknown>;
  rightsizeable: boolean;
  rbac_objects: {
    assigned_roles: AssignedRole[];
    permissions: Permission[];
    graph: Graph;
  };
  raw_rbac_objects: RawRbacObjects;
  linked_resources: number;
  last_used_at: string | null;
  /** Not part of the API shape: what storage needs for filters (#15) and the report. */
  facets: {
    usage: Usage;
    /** Distinct resources the identity holds any verb on (`pods`, `pods/exec`, `*`). */
    resources: string[];
    linked_workloads: WorkloadRef[];
    /** kube-system service accounts and `system:` users and groups. */
    system: boolean;
    /** creationTimestamp of the ServiceAccount; null for users and groups. */
    source_created_at: string | null;
  };
}
