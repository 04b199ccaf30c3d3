/**
 * Falco's JSON alert output (`json_output: true`) mapped to the runtime event format. The event
 * kind comes from `evt.type` (execve -> process_exec, open* -> file_open, connect -> network_connect)
 * or, when absent, from the fields present; the rule, priority and tags stay on the event as its
 * `alert`. Alerts about the host (container.id `host`) or without Kubernetes metadata cannot be
 * attributed to a workload and are skipped, not refused: a Falco stream always holds some.
 *
 * @example
 *   mapFalcoAlert({ rule: 'Terminal shell in container', priority: 'Notice', time: '...',
 *     output_fields: { 'evt.type': 'execve', 'proc.name': 'sh', 'container.id': '4f1c...', ... } })
 *   // { kind: 'event', event: { type: 'process_exec', ..., alert: { source: 'falco', ... } } }
 */
import { type Static, Type } from 'typebox';
import type { FalcoPriority, NetworkConnectEvent, RuntimeEvent } from './event-schema.js';

/** Falco adds top-level fields over time (uuid, source, hostname): unknown ones are allowed. */
export const FalcoAlertSchema = Type.Object({
  rule: Type.String({ minLength: 1, maxLength: 512 }),
  priority: Type.String({ minLength: 1, maxLength: 32 }),
  time: Type.String({ format: 'date-time' }),
  output_fields: Type.Record(Type.String(), Type.Unknown()),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 64 })),
  output: Type.Optional(Type.String()),
  hostname: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
});
export type FalcoAlert = Static<typeof FalcoAlertSchema>;

export const isFalcoShaped = (value: Record<string, unknown>): boolean =>
  'output_fields' in value && 'rule' in value && !('type' in value);

const PRIORITY_ALIASES: Record<string, FalcoPriority> = {
  emergency: 'emergency',
  alert: 'alert',
  critical: 'critical',
  error: 'error',
  warning: 'warning',
  notice: 'notice',
  informational: 'informational',
  info: 'informational',
  debug: 'debug',
};

/** Exec programs and the usual unknown id Falco itself reports (-1 as an unsigned 32-bit value). */
export const UNKNOWN_ID = 4294967295;
/** The Kubernetes "safe" alphabet of generated name suffixes (ReplicaSet hash, pod suffix). */
const POD_OF_DEPLOYMENT = /^(.+)-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/;
const REPLICASET_OF_DEPLOYMENT = /^(.+)-[bcdfghjklmnpqrstvwxz2456789]{6,10}$/;

export type FalcoMapping = { kind: 'event'; event: RuntimeEvent } | { kind: 'skipped'; reason: string };

type Fields = Record<string, unknown>;

function text(fields: Fields, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string' && value !== '' && value !== '<NA>') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

function integer(fields: Fields, ...names: string[]): number | undefined {
  const value = text(fields, ...names);
  if (value === undefined || !/^\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n <= UNKNOWN_ID ? n : undefined;
}

function workloadOf(fields: Fields, pod: string): { workload_kind: string; workload_name: string } {
  const direct: [string, string[]][] = [
    ['Deployment', ['k8smeta.deployment.name', 'k8s.deployment.name']],
    ['StatefulSet', ['k8smeta.statefulset.name', 'k8s.statefulset.name']],
    ['DaemonSet', ['k8smeta.daemonset.name', 'k8s.daemonset.name']],
    ['CronJob', ['k8smeta.cronjob.name']],
    ['Job', ['k8smeta.job.name']],
  ];
  for (const [kind, names] of direct) {
    const name = text(fields, ...names);
    if (name) return { workload_kind: kind, workload_name: name };
  }
  const replicaSet = text(fields, 'k8smeta.rs.name', 'k8s.rs.name');
  const fromRs = replicaSet?.match(REPLICASET_OF_DEPLOYMENT)?.[1];
  if (fromRs) return { workload_kind: 'Deployment', workload_name: fromRs };
  if (replicaSet) return { workload_kind: 'ReplicaSet', workload_name: replicaSet };
  // Classic Falco output names only the pod: a Deployment's pods are <name>-<rs hash>-<suffix>.
  const fromPod = pod.match(POD_OF_DEPLOYMENT)?.[1];
  return fromPod
    ? { workload_kind: 'Deployment', workload_name: fromPod }
    : { workload_kind: 'Pod', workload_name: pod };
}

function eventKind(fields: Fields): 'process_exec' | 'file_open' | 'network_connect' {
  const type = text(fields, 'evt.type');
  if (type === 'execve' || type === 'execveat') return 'process_exec';
  if (type && /^(open|openat|openat2|creat|open_by_handle_at)$/.test(type)) return 'file_open';
  if (type === 'connect' || type === 'sendto' || type === 'sendmsg') return 'network_connect';
  if (text(fields, 'fd.rip', 'fd.sip') !== undefined) return 'network_connect';
  const fd = text(fields, 'fd.name', 'fs.path.name');
  return fd?.startsWith('/') ? 'file_open' : 'process_exec';
}

function argsOf(fields: Fields): string[] {
  const args = text(fields, 'proc.args');
  if (args !== undefined) return args.split(/\s+/).filter(Boolean);
  // proc.cmdline is "name arg1 arg2": drop the name.
  return (text(fields, 'proc.cmdline') ?? '').split(/\s+/).filter(Boolean).slice(1);
}

function connectionOf(fields: Fields): NetworkConnectEvent['connection'] {
  let address = text(fields, 'fd.rip', 'fd.sip');
  let port = integer(fields, 'fd.rport', 'fd.sport');
  // Older rules print only fd.name: "10.0.0.5:43210->93.184.216.34:443".
  const remote = text(fields, 'fd.name')?.split('->')[1];
  if (remote && (address === undefined || port === undefined)) {
    const at = remote.lastIndexOf(':');
    address ??= remote.slice(0, at).replace(/^\[|\]$/g, '');
    port ??= integer({ p: remote.slice(at + 1) }, 'p');
  }
  const protocol = text(fields, 'fd.l4proto');
  return {
    address: address ?? '',
    port: port ?? 0,
    ...optional('hostname', text(fields, 'fd.rip.name', 'fd.sip.name')),
    ...(protocol === 'tcp' || protocol === 'udp' ? { protocol: protocol as 'tcp' | 'udp' } : {}),
  };
}

const optional = <K extends string>(key: K, value: string | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, string>>;

export function mapFalcoAlert(alert: FalcoAlert): FalcoMapping {
  const fields = alert.output_fields;
  const containerId = text(fields, 'container.full_id', 'container.id');
  if (!containerId || containerId === 'host') return { kind: 'skipped', reason: 'not in a container' };
  const namespace = text(fields, 'k8smeta.ns.name', 'k8s.ns.name');
  const pod = text(fields, 'k8smeta.pod.name', 'k8s.pod.name');
  if (!namespace || !pod) return { kind: 'skipped', reason: 'no Kubernetes namespace and pod' };
  const priority = PRIORITY_ALIASES[alert.priority.toLowerCase()] ?? 'warning';
  const repository = text(fields, 'container.image.repository');
  const tag = text(fields, 'container.image.tag');
  const envelope = {
    timestamp: alert.time,
    container: {
      id: containerId,
      name: text(fields, 'container.name', 'k8s.container.name') ?? 'unknown',
      image_name:
        text(fields, 'container.image') ?? (repository ? `${repository}${tag ? `:${tag}` : ''}` : 'unknown'),
      ...optional('image_digest', text(fields, 'container.image.digest')),
    },
    kubernetes: {
      namespace,
      pod,
      ...optional('node', text(fields, 'k8smeta.node.name') ?? alert.hostname),
      ...workloadOf(fields, pod),
    },
    alert: {
      source: 'falco',
      rule: alert.rule,
      priority,
      tags: alert.tags ?? [],
      ...optional('output', alert.output?.slice(0, 8192)),
    },
  };
  const process = {
    pid: integer(fields, 'proc.pid') ?? 0,
    ppid: integer(fields, 'proc.ppid') ?? 0,
    comm: text(fields, 'proc.name') ?? 'unknown',
    ...optional('exe', text(fields, 'proc.exepath')),
    args: argsOf(fields),
    uid: integer(fields, 'user.uid') ?? UNKNOWN_ID,
    gid: integer(fields, 'group.gid') ?? UNKNOWN_ID,
  };
  switch (eventKind(fields)) {
    case 'process_exec':
      return { kind: 'event', event: { type: 'process_exec', ...envelope, process } };
    case 'file_open': {
      const flags: string[] = text(fields, 'evt.arg.flags')?.match(/O_[A-Z_]+/g) ?? [];
      if (flags.length === 0 && fields['evt.is_open_write'] === true) flags.push('O_WRONLY');
      const path = text(fields, 'fd.name', 'fs.path.name', 'evt.arg.name', 'evt.arg.path') ?? '';
      return { kind: 'event', event: { type: 'file_open', ...envelope, process, file: { path, flags } } };
    }
    case 'network_connect':
      return {
        kind: 'event',
        event: { type: 'network_connect', ...envelope, process, connection: connectionOf(fields) },
      };
  }
}
