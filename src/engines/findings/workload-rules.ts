/**
 * Workload misconfiguration rules (type k8s_misconfiguration, source_type kubeobject). Each rule
 * reads one pod template and returns its occurrences: one per offending container or volume, or
 * one for the pod as a whole. docs/findings.md lists each rule with must / must-not examples.
 */
import { parseImageReference } from '../../ingest/kubernetes/image-ref.js';
import type { RuleDefinition } from './types.js';
import { asArray, asObject, effectiveSetting, type PodTemplate, type WorkloadContainer } from './workload.js';

export interface Occurrence {
  detailKey: string;
  messages: string[];
  fixAttrs: Record<string, unknown>;
  ruleAttrs: Record<string, unknown>;
}

export interface WorkloadRule extends RuleDefinition {
  check(template: PodTemplate): Occurrence[];
}

const misconfiguration = { type: 'k8s_misconfiguration', family: 'misconfiguration' } as const;

/** Capabilities that give a container the power to break out or to spy on the node. */
export const DANGEROUS_CAPABILITIES = new Set([
  'ALL',
  'SYS_ADMIN',
  'SYS_MODULE',
  'SYS_PTRACE',
  'SYS_RAWIO',
  'SYS_BOOT',
  'NET_ADMIN',
  'NET_RAW',
  'DAC_READ_SEARCH',
  'BPF',
  'PERFMON',
]);

const where = (container: WorkloadContainer) =>
  container.list === 'containers'
    ? `container "${container.name}"`
    : `${container.list.replace(/s$/, '')} "${container.name}"`;

function perContainer(
  template: PodTemplate,
  test: (
    container: WorkloadContainer,
  ) => { message: string; fix: Record<string, unknown>; attrs?: Record<string, unknown> } | undefined,
  lists: readonly WorkloadContainer['list'][] = ['initContainers', 'containers', 'ephemeralContainers'],
): Occurrence[] {
  return template.containers.flatMap((container) => {
    if (!lists.includes(container.list)) return [];
    const hit = test(container);
    if (!hit) return [];
    return [
      {
        detailKey: `container:${container.name}`,
        messages: [`${where(container)} ${hit.message}`],
        fixAttrs: hit.fix,
        ruleAttrs: { container_name: container.name, ...hit.attrs },
      },
    ];
  });
}

function podFlag(
  template: PodTemplate,
  field: 'hostPID' | 'hostNetwork' | 'hostIPC',
  meaning: string,
): Occurrence[] {
  if (template.spec[field] !== true) return [];
  return [
    {
      detailKey: '',
      messages: [`spec.${field} is true: ${meaning}`],
      fixAttrs: { field: `spec.${field}`, value: false },
      ruleAttrs: {},
    },
  ];
}

export const WORKLOAD_RULES: readonly WorkloadRule[] = [
  {
    ...misconfiguration,
    id: 'K8S-001',
    title: 'Privileged container',
    severity: 'critical',
    description: 'A privileged container has every capability and the host devices: root on the node.',
    check: (template) =>
      perContainer(template, (c) =>
        c.securityContext.privileged === true
          ? { message: 'runs privileged', fix: { field: 'securityContext.privileged', value: false } }
          : undefined,
      ),
  },
  {
    ...misconfiguration,
    id: 'K8S-002',
    title: "Shares the host's process namespace (hostPID)",
    severity: 'high',
    description: "hostPID lets the pod see and signal every process of the node, other pods' included.",
    check: (template) => podFlag(template, 'hostPID', 'the pod sees every process of the node'),
  },
  {
    ...misconfiguration,
    id: 'K8S-003',
    title: "Shares the host's network namespace (hostNetwork)",
    severity: 'high',
    description: 'hostNetwork puts the pod on the node network: it can sniff and reach node-local services.',
    check: (template) => podFlag(template, 'hostNetwork', 'the pod uses the node network stack'),
  },
  {
    ...misconfiguration,
    id: 'K8S-004',
    title: "Shares the host's IPC namespace (hostIPC)",
    severity: 'high',
    description: "hostIPC exposes the node's shared memory and message queues to the pod.",
    check: (template) => podFlag(template, 'hostIPC', "the pod shares the node's IPC namespace"),
  },
  {
    ...misconfiguration,
    id: 'K8S-005',
    title: 'Mounts a host path',
    severity: 'high',
    description:
      "A hostPath volume gives the pod the node's files; a writable one is a way out of the container.",
    check: (template) =>
      asArray(template.spec.volumes).flatMap((entry) => {
        const volume = asObject(entry);
        const hostPath = asObject(volume?.hostPath);
        if (!volume || !hostPath || typeof volume.name !== 'string') return [];
        const path = typeof hostPath.path === 'string' ? hostPath.path : '';
        return [
          {
            detailKey: `volume:${volume.name}`,
            messages: [`volume "${volume.name}" mounts the host path ${path || '(unnamed)'}`],
            fixAttrs: { field: `spec.volumes[${volume.name}].hostPath`, value: null },
            ruleAttrs: { volume_name: volume.name, host_path: path },
          },
        ];
      }),
  },
  {
    ...misconfiguration,
    id: 'K8S-006',
    title: 'Container runs as root',
    severity: 'high',
    description: 'runAsUser 0 makes the container process root; a breakout is then root on the node.',
    check: (template) =>
      perContainer(template, (c) =>
        effectiveSetting(template, c, 'runAsUser') === 0
          ? {
              message: 'runs as user 0 (root)',
              fix: { field: 'securityContext.runAsUser', value: 'a non-zero uid' },
            }
          : undefined,
      ),
  },
  {
    ...misconfiguration,
    id: 'K8S-007',
    title: 'runAsNonRoot is not set',
    severity: 'medium',
    description:
      'Without runAsNonRoot (and without a non-zero runAsUser) the image decides the user, and most images run as root.',
    check: (template) =>
      perContainer(template, (c) => {
        const user = effectiveSetting(template, c, 'runAsUser');
        // An explicit uid decides: 0 is K8S-006, any other uid is not root.
        if (typeof user === 'number') return undefined;
        if (effectiveSetting(template, c, 'runAsNonRoot') === true) return undefined;
        return {
          message: 'may run as root: neither runAsNonRoot nor a non-zero runAsUser is set',
          fix: { field: 'securityContext.runAsNonRoot', value: true },
        };
      }),
  },
  {
    ...misconfiguration,
    id: 'K8S-008',
    title: 'Privilege escalation is allowed',
    severity: 'medium',
    description:
      'Unless allowPrivilegeEscalation is false, a process can gain more privileges than its parent (setuid binaries).',
    check: (template) =>
      perContainer(template, (c) =>
        c.securityContext.allowPrivilegeEscalation === false
          ? undefined
          : {
              message: 'allows privilege escalation (allowPrivilegeEscalation is not false)',
              fix: { field: 'securityContext.allowPrivilegeEscalation', value: false },
            },
      ),
  },
  {
    ...misconfiguration,
    id: 'K8S-009',
    title: 'Dangerous capabilities added',
    severity: 'high',
    description:
      'Capabilities such as SYS_ADMIN, NET_ADMIN or SYS_PTRACE are most of root and allow breakouts.',
    check: (template) =>
      perContainer(template, (c) => {
        const added = asArray(asObject(c.securityContext.capabilities)?.add)
          .filter((value): value is string => typeof value === 'string')
          .map((value) => value.toUpperCase().replace(/^CAP_/, ''));
        const dangerous = [...new Set(added.filter((cap) => DANGEROUS_CAPABILITIES.has(cap)))].sort();
        if (dangerous.length === 0) return undefined;
        return {
          message: `adds the capabilities ${dangerous.join(', ')}`,
          fix: { field: 'securityContext.capabilities.add', remove: dangerous },
          attrs: { capabilities: dangerous },
        };
      }),
  },
  {
    ...misconfiguration,
    id: 'K8S-010',
    title: 'No resource limits',
    severity: 'low',
    description: 'A container without CPU and memory limits can starve its node and every pod on it.',
    check: (template) =>
      perContainer(
        template,
        (c) => {
          const limits = asObject(c.resources.limits) ?? {};
          const missing = ['cpu', 'memory'].filter((resource) => limits[resource] === undefined);
          if (missing.length === 0) return undefined;
          return {
            message: `has no ${missing.join(' and ')} limit`,
            fix: { field: 'resources.limits', set: missing },
            attrs: { missing_limits: missing },
          };
        },
        // Ephemeral containers cannot have resources.
        ['initContainers', 'containers'],
      ),
  },
  {
    ...misconfiguration,
    id: 'K8S-011',
    title: 'Image uses the latest tag or no tag',
    severity: 'medium',
    description: 'A moving tag makes what runs unknowable and unreproducible; pin a version or a digest.',
    check: (template) =>
      perContainer(template, (c) => {
        const ref = parseImageReference(c.image);
        if (c.image === '' || ref.digest !== '' || (ref.tag !== '' && ref.tag !== 'latest')) return undefined;
        return {
          message: `uses the image ${c.image} ${ref.tag === 'latest' ? 'tagged latest' : 'without a tag'}`,
          fix: { field: 'image', value: 'a pinned version or digest' },
          attrs: { image: c.image },
        };
      }),
  },
];
