/**
 * The identity risk rules (DESIGN.md section 7, in the spirit of KubiScan and rbac-police).
 * docs/identity-risk.md documents each one; change both together.
 *
 * A permission rule looks at each grant an identity holds. Every part of the rule returns, for a
 * PolicyRule, the share of the danger it carries (0 = no match, 1 = unrestricted; resourceNames
 * lower it, see matching.ts); all parts must match within the same scope. Detection (detection.ts)
 * multiplies by the scope factor (cluster-wide 1, one namespace NAMESPACE_SCOPE_FACTOR).
 */
import {
  beyondDefaults,
  isFullWildcard,
  podExec,
  podStream,
  type RuleCheck,
  targets,
  WORKLOAD_CREATE,
  wildcard,
} from './rule-checks.js';
import type { RiskType } from './types.js';

export type { RuleCheck } from './rule-checks.js';

/** A namespaced grant reaches one namespace of many: it counts for this share of a cluster-wide one. */
export const NAMESPACE_SCOPE_FACTOR = 0.5;
/** `system:authenticated` is every authenticated caller, not anyone on the network. */
export const AUTHENTICATED_GROUP_FACTOR = 0.7;
/** An unused service account that nothing grants anything to is clutter more than exposure. */
export const UNUSED_WITHOUT_GRANTS_FACTOR = 0.25;

interface BaseRiskRule {
  type: RiskType;
  name: string;
  description: string;
  /** 1..10; the worst single risk (cluster-admin) weighs 10. */
  weight: number;
}

export interface PermissionRiskRule extends BaseRiskRule {
  kind: 'permission';
  parts: readonly RuleCheck[];
  /** A binding to this ClusterRole counts fully whatever the role holds (or even if it is missing). */
  boundClusterRole?: string;
  /** Share of the danger for the identity itself; 0 = the rule does not apply. Default 1. */
  subjectFactor?: (identity: { kind: string; name: string }) => number;
  /** Only bindings naming the identity count, not those it inherits through its groups. */
  directOnly?: boolean;
}

export interface UsageRiskRule extends BaseRiskRule {
  kind: 'usage';
}

export type RiskRule = PermissionRiskRule | UsageRiskRule;

const CORE = '';
const RBAC = 'rbac.authorization.k8s.io';

export const RISK_RULES: readonly RiskRule[] = [
  {
    kind: 'permission',
    type: 'cluster_admin',
    name: 'Cluster administrator',
    description:
      'Bound to the cluster-admin ClusterRole, or holds every verb on every resource of every API group: full control of the cluster.',
    weight: 10,
    boundClusterRole: 'cluster-admin',
    parts: [(rule) => (isFullWildcard(rule) ? 1 : 0)],
  },
  {
    kind: 'permission',
    type: 'wildcard_permissions',
    name: 'Wildcard verbs or resources',
    description:
      'Holds a rule with `*` as verb or resource: it grants every present and future verb or resource, including ones added by CRDs later.',
    weight: 6,
    parts: [wildcard],
  },
  {
    kind: 'permission',
    type: 'secrets_read',
    name: 'Reads secrets',
    description:
      'Can get, list or watch Secrets: credentials, TLS keys and service account tokens of the workloads in reach.',
    weight: 8,
    parts: [targets({ apiGroup: CORE, resource: 'secrets', verbs: ['get', 'list', 'watch'] })],
  },
  {
    kind: 'permission',
    type: 'pod_exec',
    name: 'Executes commands in pods',
    description:
      'Can run commands in containers (pods/exec, or an ephemeral debug container): their files, secrets and service account tokens.',
    weight: 7,
    parts: [podExec],
  },
  {
    kind: 'permission',
    type: 'pod_attach',
    name: 'Attaches to running containers',
    description: "Can attach to a container's console (pods/attach) and interact with its main process.",
    weight: 6,
    parts: [podStream('attach')],
  },
  {
    kind: 'permission',
    type: 'pod_port_forward',
    name: 'Port-forwards into pods',
    description: 'Can open tunnels to pod ports (pods/portforward), bypassing services and network policies.',
    weight: 5,
    parts: [podStream('portforward')],
  },
  {
    kind: 'permission',
    type: 'workload_create',
    name: 'Creates pods or workloads',
    description:
      'Can create pods or controllers that create them (deployments, daemonsets, statefulsets, replicasets, jobs, cronjobs, replicationcontrollers): it can run any image as any service account of the namespace and mount its secrets.',
    weight: 6,
    parts: [targets(...WORKLOAD_CREATE)],
  },
  {
    kind: 'permission',
    type: 'role_escalate_bind',
    name: 'Escalates or binds roles',
    description:
      'Holds `escalate` or `bind` on roles or clusterroles: it can grant itself or others permissions it does not have.',
    weight: 8,
    parts: [
      targets(
        { apiGroup: RBAC, resource: 'roles', verbs: ['escalate', 'bind'], sensitiveNames: ['cluster-admin'] },
        // Binding a ClusterRole inside a namespace is a namespaced request; editing it is not.
        { apiGroup: RBAC, resource: 'clusterroles', verbs: ['bind'], sensitiveNames: ['cluster-admin'] },
        {
          apiGroup: RBAC,
          resource: 'clusterroles',
          verbs: ['escalate'],
          clusterScoped: true,
          sensitiveNames: ['cluster-admin'],
        },
      ),
    ],
  },
  {
    kind: 'permission',
    type: 'impersonate',
    name: 'Impersonates users, groups or service accounts',
    description: 'Can act as another user, group or service account, with all of its permissions.',
    weight: 9,
    parts: [
      targets(
        {
          apiGroup: CORE,
          resource: 'users',
          verbs: ['impersonate'],
          clusterScoped: true,
          sensitiveNames: ['system:admin'],
        },
        {
          apiGroup: CORE,
          resource: 'groups',
          verbs: ['impersonate'],
          clusterScoped: true,
          sensitiveNames: ['system:masters'],
        },
        { apiGroup: CORE, resource: 'serviceaccounts', verbs: ['impersonate'] },
      ),
    ],
  },
  {
    kind: 'permission',
    type: 'service_account_token_create',
    name: 'Creates service account tokens',
    description:
      'Can mint tokens for service accounts (serviceaccounts/token) and act with their permissions.',
    weight: 7,
    parts: [targets({ apiGroup: CORE, resource: 'serviceaccounts/token', verbs: ['create'] })],
  },
  {
    kind: 'permission',
    type: 'csr_approve',
    name: 'Approves certificate signing requests',
    description:
      'Can approve CSRs (update certificatesigningrequests/approval and approve a signer): it can issue client certificates, for instance for system:masters.',
    weight: 7,
    parts: [
      targets({
        apiGroup: 'certificates.k8s.io',
        resource: 'certificatesigningrequests/approval',
        verbs: ['update', 'patch'],
        clusterScoped: true,
      }),
      targets({
        apiGroup: 'certificates.k8s.io',
        resource: 'signers',
        verbs: ['approve'],
        clusterScoped: true,
        sensitiveNames: ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/*'],
      }),
    ],
  },
  {
    kind: 'permission',
    type: 'nodes_proxy',
    name: 'Proxies to the kubelet API',
    description:
      "Holds nodes/proxy: direct access to kubelets' API, which runs commands in any pod of the node and leaves no API server audit trail.",
    weight: 8,
    parts: [
      targets({
        apiGroup: CORE,
        resource: 'nodes/proxy',
        verbs: ['get', 'create', 'update', 'patch', 'delete'],
        clusterScoped: true,
      }),
    ],
  },
  {
    kind: 'permission',
    type: 'webhook_config_write',
    name: 'Writes admission webhook configurations',
    description:
      'Can create, update or patch mutating or validating webhook configurations: it can intercept or rewrite every object sent to the API server, or switch policy off.',
    weight: 8,
    parts: [
      targets(
        ...['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'].map((resource) => ({
          apiGroup: 'admissionregistration.k8s.io',
          resource,
          verbs: ['create', 'update', 'patch'],
          clusterScoped: true,
        })),
      ),
    ],
  },
  {
    kind: 'permission',
    type: 'broad_group_binding',
    name: 'Permissions granted to anonymous or all authenticated users',
    description:
      "A binding gives system:anonymous, system:unauthenticated or system:authenticated more than Kubernetes' discovery defaults: anyone (or anyone with any credential) gets it.",
    weight: 9,
    directOnly: true,
    subjectFactor: ({ kind, name }) => {
      if (
        (kind === 'User' && name === 'system:anonymous') ||
        (kind === 'Group' && name === 'system:unauthenticated')
      ) {
        return 1;
      }
      return kind === 'Group' && name === 'system:authenticated' ? AUTHENTICATED_GROUP_FACTOR : 0;
    },
    parts: [(rule) => (beyondDefaults(rule) ? 1 : 0)],
  },
  {
    kind: 'usage',
    type: 'unused_identity',
    name: 'Unused service account',
    description:
      'No workload runs as this service account: its permissions serve nobody, and its tokens are a credential with no owner.',
    weight: 2,
  },
];

export const RISK_RULES_BY_TYPE: ReadonlyMap<RiskType, RiskRule> = new Map(
  RISK_RULES.map((rule) => [rule.type, rule]),
);

/** Bumped whenever a rule, weight or factor changes; identities carry it in `risk_detectors`. */
export const RULESET_VERSION = '1';
