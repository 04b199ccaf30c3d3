/** Event builders for the runtime engine's tests: one workload container, minute offsets. */
import type { RuntimeEvent } from './event-schema.js';
import type { WorkloadKey } from './state.js';

export const T0 = '2025-01-01T00:00:00.000Z';
export const at = (seconds: number): string => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const envelope = (time: string, pod = 'web-7c9d8f6b5d-k2x8p') => ({
  timestamp: time,
  container: { id: `containerd://${'ab'.repeat(32)}`, name: 'app', image_name: 'ghcr.io/shop/web:1.0.0' },
  kubernetes: {
    cluster: 'test',
    namespace: 'shop',
    pod,
    node: 'node-a',
    workload_kind: 'Deployment',
    workload_name: 'web',
  },
});

export const KEY: WorkloadKey = {
  cluster: 'c1',
  namespace: 'shop',
  workloadKind: 'Deployment',
  workloadName: 'web',
  containerName: 'app',
};

export function exec(
  time: string,
  pid: number,
  ppid: number,
  comm: string,
  args: string[] = [],
  exe = `/usr/bin/${comm}`,
): RuntimeEvent {
  return {
    type: 'process_exec',
    ...envelope(time),
    process: { pid, ppid, comm, exe, args, uid: 1000, gid: 1000 },
  };
}

export function open(
  time: string,
  pid: number,
  comm: string,
  path: string,
  flags = ['O_RDONLY'],
): RuntimeEvent {
  return { type: 'file_open', ...envelope(time), process: { pid, comm }, file: { path, flags } };
}

export function connect(
  time: string,
  pid: number,
  comm: string,
  address: string,
  port: number,
  extra = {},
): RuntimeEvent {
  return {
    type: 'network_connect',
    ...envelope(time),
    process: { pid, comm },
    connection: { address, port, ...extra },
  };
}

export function httpRequest(time: string, path: string, extra: Record<string, unknown> = {}): RuntimeEvent {
  return {
    type: 'http_request',
    ...envelope(time),
    http: {
      method: 'GET',
      scheme: 'http',
      path,
      status: 200,
      source: { address: '10.244.1.17' },
      destination: {
        address: '10.96.12.40',
        port: 8000,
        workload_kind: 'Deployment',
        workload_name: 'api',
        namespace: 'shop',
      },
      ...extra,
    },
  } as RuntimeEvent;
}

export const ndjson = (lines: unknown[]): string => lines.map((line) => JSON.stringify(line)).join('\n');
