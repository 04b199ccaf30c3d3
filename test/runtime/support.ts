/**
 * Helpers for the runtime module's HTTP tests: pushes through the real ingestion endpoint, the
 * sample stream, settings, and event builders that name a cluster's inventory containers.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RuntimeEvent } from '../../src/engines/runtime/index.js';
import { SAMPLE_TRUSTED_PREFIXES } from '../../src/engines/runtime/sample/shop-stream.js';
import type { TestApp, TestResponse } from '../support/harness.js';

export const SAMPLE_RUNTIME_FILE = new URL('../../sample/runtime/shop-events.ndjson', import.meta.url);
export const sampleRuntimeText = (): string => readFileSync(SAMPLE_RUNTIME_FILE, 'utf8');
export { SAMPLE_TRUSTED_PREFIXES };

export const ndjson = (events: readonly unknown[]): string =>
  events.map((event) => JSON.stringify(event)).join('\n');

export interface RuntimeTarget {
  token: string;
  accountId: string;
  clusterId: string;
}

export function pushRuntime(
  t: TestApp,
  target: RuntimeTarget,
  payload: string | Buffer | readonly unknown[],
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return t.request({
    method: 'POST',
    url: `/accounts/${target.accountId}/clusters/${target.clusterId}/ingest/runtime`,
    token: target.token,
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : ndjson(payload),
    headers: { 'content-type': 'application/x-ndjson', ...headers },
  });
}

/** Pushes and asserts 200; returns the push result. */
export async function pushOk(
  t: TestApp,
  target: RuntimeTarget,
  payload: string | Buffer | readonly unknown[],
) {
  const res = await pushRuntime(t, target, payload);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export async function putSettings(
  t: TestApp,
  target: Omit<RuntimeTarget, 'clusterId'>,
  settings: {
    learning_window_seconds?: number;
    learning_window_max_events?: number | null;
    trusted_ip_prefixes?: { cidr: string; name: string; description?: string }[];
  },
) {
  const res = await t.request({
    method: 'PUT',
    url: `/accounts/${target.accountId}/runtime_settings`,
    token: target.token,
    body: {
      learning_window_seconds: 3600,
      learning_window_max_events: null,
      trusted_ip_prefixes: [],
      ...settings,
    },
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export async function getJson(t: TestApp, token: string, url: string) {
  const res = await t.request({ method: 'GET', url, token });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Event builders for one workload container; times are seconds after T0. */
export const T0 = Date.parse('2025-06-01T08:00:00.000Z');
export const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();

export interface WorkloadRef {
  containerId: string;
  container: string;
  namespace: string;
  pod: string;
  /** the Deployment; without one the pod is its own workload */
  workload?: string;
  image?: string;
}

export const WEB: WorkloadRef = {
  containerId: `containerd://${'a1'.repeat(32)}`,
  container: 'app',
  namespace: 'shop',
  pod: 'web-7c9d8f6b5d-k2x8p',
  workload: 'web',
};

function envelope(w: WorkloadRef, time: string) {
  return {
    timestamp: time,
    container: { id: w.containerId, name: w.container, image_name: w.image ?? 'ghcr.io/shop/web:1.0.0' },
    kubernetes: {
      cluster: 'test',
      namespace: w.namespace,
      pod: w.pod,
      node: 'node-a',
      ...(w.workload ? { workload_kind: 'Deployment', workload_name: w.workload } : {}),
    },
  };
}

export function exec(
  w: WorkloadRef,
  seconds: number,
  process: { pid: number; ppid: number; comm: string; args?: string[]; exe?: string },
): RuntimeEvent {
  return {
    type: 'process_exec',
    ...envelope(w, at(seconds)),
    process: {
      pid: process.pid,
      ppid: process.ppid,
      comm: process.comm,
      exe: process.exe ?? `/usr/bin/${process.comm}`,
      args: process.args ?? [],
      uid: 1000,
      gid: 1000,
    },
  };
}

export function fileOpen(
  w: WorkloadRef,
  seconds: number,
  pid: number,
  comm: string,
  path: string,
  flags = ['O_RDONLY'],
) {
  return {
    type: 'file_open',
    ...envelope(w, at(seconds)),
    process: { pid, comm },
    file: { path, flags },
  } as RuntimeEvent;
}

export function connect(
  w: WorkloadRef,
  seconds: number,
  pid: number,
  comm: string,
  address: string,
  port: number,
) {
  return {
    type: 'network_connect',
    ...envelope(w, at(seconds)),
    process: { pid, comm },
    connection: { address, port },
  } as RuntimeEvent;
}

export function httpRequest(
  w: WorkloadRef,
  seconds: number,
  request: {
    method?: string;
    scheme?: 'http' | 'https';
    path: string;
    destination?: Record<string, unknown>;
  },
): RuntimeEvent {
  return {
    type: 'http_request',
    ...envelope(w, at(seconds)),
    http: {
      method: request.method ?? 'GET',
      scheme: request.scheme ?? 'http',
      path: request.path,
      status: 200,
      source: { address: '10.244.1.17', port: 43122 },
      destination: request.destination ?? {
        address: '10.96.12.40',
        port: 8000,
        workload_kind: 'Deployment',
        workload_name: 'api',
        namespace: 'shop',
      },
    },
  } as RuntimeEvent;
}
