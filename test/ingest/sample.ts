/**
 * The sample cluster dump (sample/cluster/) and helpers to push it, for tests of every area that
 * builds on Kubernetes ingestion.
 *
 * @example
 *   const cluster = await createCluster(t, tenant.adminToken, tenant.accountId);
 *   await pushSampleCluster(t, tenant.adminToken, tenant.accountId, cluster.id);
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { TestApp } from '../support/harness.js';

const SAMPLE_DIR = new URL('../../sample/cluster/', import.meta.url);

/** The sample files in push order: cluster objects, workloads, pods, RBAC, then later watch events. */
export const SAMPLE_FILES = [
  '01-cluster.json',
  '02-workloads.json',
  '03-pods.json',
  '04-rbac.json',
  '05-watch-events.ndjson',
] as const;
export type SampleFile = (typeof SAMPLE_FILES)[number];

export function sampleText(file: SampleFile): string {
  return readFileSync(new URL(file, SAMPLE_DIR), 'utf8');
}

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects of every kind
export type KubeJson = any;

/** The items of a sample List file. */
export function sampleItems(file: Exclude<SampleFile, '05-watch-events.ndjson'>): KubeJson[] {
  return JSON.parse(sampleText(file)).items;
}

export function sampleObject(kind: string, namespace: string | undefined, name: string): KubeJson {
  for (const file of SAMPLE_FILES.slice(0, 4) as Exclude<SampleFile, '05-watch-events.ndjson'>[]) {
    const found = sampleItems(file).find(
      (item) => item.kind === kind && item.metadata.name === name && item.metadata.namespace === namespace,
    );
    if (found) return structuredClone(found);
  }
  throw new Error(`no ${kind} ${namespace ?? ''}/${name} in the sample`);
}

export const list = (items: KubeJson[]) => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items });

export async function createCluster(
  t: TestApp,
  token: string,
  accountId: string,
  name = `cluster-${Date.now()}`,
) {
  const res = await t.request({
    method: 'POST',
    url: `/accounts/${accountId}/clusters`,
    token,
    body: { name },
  });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; name: string; account_id: string };
}

export interface PushOptions {
  query?: string;
  headers?: Record<string, string>;
}

export async function push(
  t: TestApp,
  token: string,
  accountId: string,
  clusterId: string,
  payload: string | Buffer | object,
  options: PushOptions = {},
) {
  return t.request({
    method: 'POST',
    url: `/accounts/${accountId}/clusters/${clusterId}/ingest/kubernetes${options.query ?? ''}`,
    token,
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json', ...options.headers },
  });
}

/** Pushes the four List files (not the watch events) and checks each was accepted. */
export async function pushSampleCluster(t: TestApp, token: string, accountId: string, clusterId: string) {
  for (const file of SAMPLE_FILES.slice(0, 4)) {
    const res = await push(t, token, accountId, clusterId, sampleText(file as SampleFile));
    assert.equal(res.status, 200, `${file}: ${res.text}`);
  }
}

/**
 * A new version of the sample's storefront `api` pod (`resourceVersion`): its first container runs
 * `registry.example.com/storefront/api:9.9.9`, its second is replaced by a new `proxy` (envoy,
 * container id `feedfacefeedface`). One row updated, one deleted, one inserted.
 */
export function rolledOut(pod: KubeJson, resourceVersion: string): KubeJson {
  const next = structuredClone(pod);
  next.metadata.resourceVersion = resourceVersion;
  next.spec.containers = [
    { ...next.spec.containers[0], image: 'registry.example.com/storefront/api:9.9.9' },
    { name: 'proxy', image: 'docker.io/envoyproxy/envoy:v1.30.0' },
  ];
  next.status.containerStatuses = [
    { ...next.status.containerStatuses[0], image: 'registry.example.com/storefront/api:9.9.9', imageID: '' },
    {
      name: 'proxy',
      image: 'docker.io/envoyproxy/envoy:v1.30.0',
      imageID: '',
      containerID: 'containerd://feedfacefeedface',
      state: { running: { startedAt: '2026-11-20T10:00:00Z' } },
    },
  ];
  return next;
}
