/**
 * A tenant account filled with real data through the real ingestion endpoints: the sample cluster
 * of sample/cluster/, the scans of sample/scans/ and the runtime stream of sample/runtime/, as the
 * demo tenant gets them (src/demo/demo-tenant.ts).
 *
 * Every UUID and every 64-hex id of the sample files (object uids, container ids, digests) is
 * replaced by a fresh one per account, consistently across the files, so that two accounts holding
 * "the same" cluster still share no id: finding one account's id in another's answer is a leak,
 * never a coincidence.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SAMPLE_TRUSTED_PREFIXES } from '../../src/engines/runtime/sample/shop-stream.js';
import { SAMPLE_SCAN_FILES } from '../../src/modules/vulnerabilities/demo-data.js';
import type { TestApp } from '../support/harness.js';

const SAMPLE = new URL('../../sample/', import.meta.url);
const CLUSTER_FILES = [
  '01-cluster.json',
  '02-workloads.json',
  '03-pods.json',
  '04-rbac.json',
  'rbac-extra.json',
  '05-watch-events.ndjson',
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const HEX64 = /\b[0-9a-f]{64}\b/g;

/** Rewrites ids of a sample text through `mapping` (filled on first sight of an id). */
export function remapSampleIds(text: string, mapping: Map<string, string>): string {
  const mapped = (id: string, fresh: () => string) => {
    let value = mapping.get(id);
    if (!value) {
      value = fresh();
      mapping.set(id, value);
    }
    return value;
  };
  return text
    .replace(UUID, (id) => mapped(id, randomUUID))
    .replace(HEX64, (id) => mapped(id, () => randomBytes(32).toString('hex')));
}

export interface PopulatedAccount {
  accountId: string;
  clusterId: string;
  clusterName: string;
  registryId: string;
  /** sample id -> this account's id: every value is an id only this account holds */
  remapped: Map<string, string>;
}

async function ok(res: Promise<{ status: number; text: string }>, what: string) {
  const answer = await res;
  assert.ok(answer.status < 300, `${what}: ${answer.status} ${answer.text.slice(0, 500)}`);
  return answer as { status: number; text: string; body: never };
}

/** Pushes the whole sample (cluster, scans, runtime) into a new cluster of the account. */
export async function populateAccount(
  t: TestApp,
  token: string,
  accountId: string,
  clusterName: string,
): Promise<PopulatedAccount> {
  const remapped = new Map<string, string>();
  const account = `/accounts/${accountId}`;
  const cluster = await ok(
    t.request({ method: 'POST', url: `${account}/clusters`, token, body: { name: clusterName } }),
    'create cluster',
  );
  const clusterId: string = (cluster.body as { id: string }).id;
  const ingest = `${account}/clusters/${clusterId}/ingest`;
  const sample = (path: string) => remapSampleIds(readFileSync(new URL(path, SAMPLE), 'utf8'), remapped);
  for (const file of CLUSTER_FILES) {
    await ok(
      t.request({
        method: 'POST',
        url: `${ingest}/kubernetes`,
        token,
        payload: sample(`cluster/${file}`),
        headers: { 'content-type': 'application/json' },
      }),
      file,
    );
  }
  for (const file of SAMPLE_SCAN_FILES) {
    await ok(
      t.request({
        method: 'POST',
        url: `${ingest}/vulnerabilities`,
        token,
        payload: sample(`scans/${file}`),
        headers: { 'content-type': 'application/json' },
      }),
      file,
    );
  }
  await ok(
    t.request({
      method: 'PUT',
      url: `${account}/runtime_settings`,
      token,
      body: {
        learning_window_seconds: 3600,
        learning_window_max_events: null,
        trusted_ip_prefixes: SAMPLE_TRUSTED_PREFIXES,
      },
    }),
    'runtime settings',
  );
  await ok(
    t.request({
      method: 'POST',
      url: `${ingest}/runtime`,
      token,
      payload: sample('runtime/shop-events.ndjson'),
      headers: { 'content-type': 'application/x-ndjson' },
    }),
    'runtime stream',
  );
  const registry = await ok(
    t.request({
      method: 'POST',
      url: `${account}/registries`,
      token,
      body: { type: 'generic', repository_name: `registry.example.com/${clusterName}` },
    }),
    'registry',
  );
  await ok(
    t.request({
      method: 'POST',
      url: `${account}/clusters/${clusterId}/actions`,
      token,
      body: { action_type: 'terminate_pod', target_namespace: 'payments', target_pod_name: 'debug-shell' },
    }),
    'action',
  );
  return { accountId, clusterId, clusterName, registryId: (registry.body as { id: string }).id, remapped };
}
