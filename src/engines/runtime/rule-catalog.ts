/**
 * Every runtime rule once: its default severity, category, ATT&CK mapping, whether a hit alone
 * makes an insight malicious, and what to do about it. rules.ts decides when a rule hits;
 * docs/runtime-events.md lists this table for users.
 */
import type { Severity } from './severity.js';

export interface RuleSpec {
  severity: Severity;
  category: string;
  techniques: string[];
  tactics: string[];
  malicious?: boolean;
  remediation: string;
}

const READ_ONLY_ROOT = 'use readOnlyRootFilesystem: true';
const RESET_BASELINE = 'reset the baseline after a legitimate change.';

export const RULES = {
  reverse_shell: {
    severity: 'critical',
    category: 'command_and_control',
    techniques: ['T1059.004', 'T1071'],
    tactics: ['TA0002', 'TA0011'],
    malicious: true,
    remediation:
      'Isolate the pod (deny-all egress NetworkPolicy) and terminate it; find the entry point (exposed endpoint, vulnerable dependency) before redeploying.',
  },
  crypto_miner: {
    severity: 'critical',
    category: 'impact',
    techniques: ['T1496'],
    tactics: ['TA0040'],
    malicious: true,
    remediation:
      'Terminate the pod, rotate the credentials it could reach and find how the miner got in; set CPU limits.',
  },
  dropped_binary_executed: {
    severity: 'critical',
    category: 'execution',
    techniques: ['T1105'],
    tactics: ['TA0002', 'TA0011'],
    malicious: true,
    remediation: `Terminate the pod and keep the dropped file for analysis; ${READ_ONLY_ROOT} and mount writable paths noexec.`,
  },
  binary_outside_image: {
    severity: 'high',
    category: 'execution',
    techniques: ['T1105'],
    tactics: ['TA0002', 'TA0011'],
    remediation: `Check where the binary came from; mount writable paths noexec and ${READ_ONLY_ROOT}.`,
  },
  shell_spawned: {
    severity: 'high',
    category: 'execution',
    techniques: ['T1059.004'],
    tactics: ['TA0002'],
    remediation:
      'Find what started the shell (kubectl exec, a vulnerable endpoint); restrict pods/exec in RBAC and ship images without a shell (distroless).',
  },
  package_manager: {
    severity: 'high',
    category: 'command_and_control',
    techniques: ['T1105'],
    tactics: ['TA0011'],
    remediation: `Bake dependencies into the image instead of installing them at run time; ${READ_ONLY_ROOT}.`,
  },
  transfer_tool: {
    severity: 'high',
    category: 'command_and_control',
    techniques: ['T1105'],
    tactics: ['TA0011'],
    remediation:
      'Check what was downloaded or sent; remove curl, wget and nc from the image and restrict egress with a NetworkPolicy.',
  },
  network_scanner: {
    severity: 'high',
    category: 'discovery',
    techniques: ['T1046'],
    tactics: ['TA0007'],
    remediation:
      'Treat it as reconnaissance for lateral movement: isolate the pod and restrict its traffic with NetworkPolicies.',
  },
  cluster_client: {
    severity: 'high',
    category: 'execution',
    techniques: ['T1609', 'T1613'],
    tactics: ['TA0002', 'TA0007'],
    remediation: "Remove cluster clients from application images and review the service account's RBAC.",
  },
  escape_tool: {
    severity: 'high',
    category: 'privilege_escalation',
    techniques: ['T1611'],
    tactics: ['TA0004'],
    remediation: 'Drop capabilities (CAP_SYS_ADMIN), disallow privileged pods, hostPID and hostPath mounts.',
  },
  permission_change: {
    severity: 'medium',
    category: 'defense_evasion',
    techniques: ['T1222.002'],
    tactics: ['TA0005'],
    remediation: 'Review the changed files; a read-only root filesystem prevents changes to image files.',
  },
  discovery_command: {
    severity: 'medium',
    category: 'discovery',
    techniques: [], // per command: T1033, T1082, T1057, T1016, T1083
    tactics: ['TA0007'],
    remediation: 'Discovery commands usually follow an interactive shell: find who opened it.',
  },
  new_program: {
    severity: 'medium',
    category: 'execution',
    techniques: [],
    tactics: ['TA0002'],
    remediation: `Confirm the program is expected (a new release changes behaviour); otherwise investigate; ${RESET_BASELINE}`,
  },
  new_arguments: {
    severity: 'low',
    category: 'execution',
    techniques: [],
    tactics: ['TA0002'],
    remediation: `Confirm the new arguments are expected; ${RESET_BASELINE}`,
  },
  service_account_token: {
    severity: 'high', // critical when the reader is itself a process outside the baseline
    category: 'credential_access',
    techniques: ['T1528', 'T1552.001'],
    tactics: ['TA0006'],
    remediation:
      "Set automountServiceAccountToken: false where the Kubernetes API is not needed; recreate the pod to rotate the token and review the service account's RBAC.",
  },
  sensitive_file_read: {
    severity: 'high',
    category: 'credential_access',
    techniques: ['T1552.001'], // T1003.008 for /etc/shadow and /etc/gshadow
    tactics: ['TA0006'],
    remediation:
      'Rotate the credentials the file holds and keep secrets out of the image and the container filesystem.',
  },
  ssh_key_write: {
    severity: 'high',
    category: 'persistence',
    techniques: ['T1098.004'],
    tactics: ['TA0003'],
    remediation: `Remove the added key, redeploy from the image and ${READ_ONLY_ROOT}.`,
  },
  scheduled_task_write: {
    severity: 'high',
    category: 'persistence',
    techniques: ['T1053.003'],
    tactics: ['TA0003'],
    remediation: `Remove the scheduled task, redeploy from the image and ${READ_ONLY_ROOT}.`,
  },
  account_file_write: {
    severity: 'high',
    category: 'persistence',
    techniques: ['T1098', 'T1136.001'],
    tactics: ['TA0003', 'TA0004'],
    remediation: `Redeploy from the image to discard the account changes; run as non-root and ${READ_ONLY_ROOT}.`,
  },
  dynamic_linker_write: {
    severity: 'critical',
    category: 'persistence',
    techniques: ['T1574.006'],
    tactics: ['TA0003', 'TA0005'],
    remediation: `Treat the container as compromised and redeploy from the image; ${READ_ONLY_ROOT}.`,
  },
  system_binary_write: {
    severity: 'high',
    category: 'persistence',
    techniques: ['T1554'],
    tactics: ['TA0003'],
    remediation: `Redeploy from the image to restore the binaries; ${READ_ONLY_ROOT}.`,
  },
  system_path_write: {
    severity: 'high',
    category: 'persistence',
    techniques: [],
    tactics: ['TA0003'],
    remediation: `Redeploy from the image to discard the changes; run as non-root and ${READ_ONLY_ROOT}.`,
  },
  new_file_write: {
    severity: 'low',
    category: 'drift',
    techniques: [],
    tactics: [],
    remediation: `Confirm the file access is expected; ${RESET_BASELINE}`,
  },
  new_file_read: {
    severity: 'negligible',
    category: 'drift',
    techniques: [],
    tactics: [],
    remediation: `Confirm the file access is expected; ${RESET_BASELINE}`,
  },
  untrusted_egress: {
    severity: 'high',
    category: 'command_and_control',
    techniques: ['T1071.001'], // T1571 Non-Standard Port outside 80, 443, 8080, 8443
    tactics: ['TA0011'],
    remediation:
      "Block unexpected egress with a NetworkPolicy; if the destination is legitimate, add it to the account's trusted IP prefixes.",
  },
  kubernetes_api_access: {
    severity: 'medium',
    category: 'discovery',
    techniques: ['T1613'],
    tactics: ['TA0007'],
    remediation:
      'If the workload does not need the Kubernetes API, disable the token automount and deny egress to the API server.',
  },
  new_internal_connection: {
    severity: 'low',
    category: 'drift',
    techniques: [],
    tactics: [],
    remediation: 'Confirm the new destination is expected; NetworkPolicies can restrict east-west traffic.',
  },
  new_trusted_connection: {
    severity: 'negligible',
    category: 'drift',
    techniques: [],
    tactics: [],
    remediation: 'Confirm the new destination is expected.',
  },
  falco_alert: {
    severity: 'medium', // from the alert's priority
    category: 'alert',
    techniques: [], // from the alert's tags
    tactics: [],
    remediation: "Follow the Falco rule's guidance and review the event in its context.",
  },
} satisfies Record<string, RuleSpec>;

export type RuleId = keyof typeof RULES;

/** Rules that make the whole insight malicious when they occur together (a kill chain). */
export const CREDENTIAL_RULES = new Set<string>(['service_account_token', 'sensitive_file_read']);
export const EGRESS_RULES = new Set<string>(['untrusted_egress', 'transfer_tool', 'reverse_shell']);
