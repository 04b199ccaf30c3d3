/**
 * What the fault suite's client does: make a tenant with the CLI on the server's store, then, over
 * real HTTP, log in, register a cluster, send a push (with a deadline: a hung request is a failure),
 * and read back what was stored.
 */
import assert from 'node:assert/strict';
import { runCli } from '../../src/cli/program.js';
import type { Push } from './pushes.js';
import { FAULTS_SECRET } from './server-process.js';

export interface Tenant {
  accountId: string;
  clusterId: string;
  token: string;
}

/** `posture bootstrap --json` in-process on the store the servers use (DATABASE_URL or DATA_DIR). */
export async function bootstrap(store: Record<string, string>): Promise<{
  account_id: string;
  access_key_id: string;
  secret_key: string;
}> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    ['bootstrap', '--tenant', `faults-${process.pid}`, '--account', 'main', '--json'],
    {
      env: { LOG_LEVEL: 'silent', DATABASE_URL: '', ...store, POSTURE_SECRET: FAULTS_SECRET },
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    },
  );
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout);
}

/** Logs in through `url` with a bootstrapped key and registers a cluster. */
export async function connectTenant(
  url: string,
  boot: { account_id: string; access_key_id: string; secret_key: string },
): Promise<Tenant> {
  const auth = await fetch(`${url}/authentication/authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ access_key_id: boot.access_key_id, secret_key: boot.secret_key }),
  });
  assert.equal(auth.status, 200, await auth.clone().text());
  const { token } = (await auth.json()) as { token: string };
  const cluster = await fetch(`${url}/accounts/${boot.account_id}/clusters`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'faults' }),
  });
  assert.equal(cluster.status, 201, await cluster.clone().text());
  const { id } = (await cluster.json()) as { id: string };
  return { accountId: boot.account_id, clusterId: id, token };
}

export type PushOutcome =
  /** 200: the push is acknowledged; `replayed` when the answer came from its Idempotency-Key */
  | { kind: 'acked'; body: PushAnswer; replayed: boolean }
  /** no answer (connection refused or cut) or 503 unavailable: retry with the same key */
  | { kind: 'retry'; reason: string }
  /** any other answer: a defect */
  | { kind: 'refused'; status: number; text: string };

export interface PushAnswer {
  created: number;
  unchanged: number;
  received: number;
  [field: string]: unknown;
}

export async function sendPush(
  url: string,
  tenant: Tenant,
  push: Push,
  timeoutMs: number,
): Promise<PushOutcome> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${url}/accounts/${tenant.accountId}/clusters/${tenant.clusterId}/ingest/kubernetes`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.token}`,
        'content-type': 'application/json',
        'idempotency-key': push.idempotencyKey,
      },
      body: push.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    if ((error as Error).name === 'TimeoutError') {
      return { kind: 'refused', status: 0, text: `no answer within ${timeoutMs} ms` };
    }
    return { kind: 'retry', reason: cause ?? (error as Error).message };
  }
  if (res.status === 200) {
    return {
      kind: 'acked',
      body: JSON.parse(text),
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  }
  if (res.status === 503 && JSON.parse(text).code === 'unavailable') return { kind: 'retry', reason: '503' };
  return { kind: 'refused', status: res.status, text };
}

// biome-ignore lint/suspicious/noExplicitAny: reads JSON bodies of every shape
async function getJson(url: string, tenant: Tenant, path: string): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    headers: { authorization: `Bearer ${tenant.token}` },
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

export interface StoredRecord {
  id: string;
  uid: string;
  deleted_at: string | null;
  version_overwritten_at: string | null;
}

/** Every resource record of the cluster, every version included, through the API. */
export async function storedRecords(url: string, tenant: Tenant): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  for (let page = 1; ; page++) {
    const body = await getJson(
      url,
      tenant,
      `/accounts/${tenant.accountId}/resources?cluster_id=${tenant.clusterId}&include_history=true&page_size=1000&page=${page}`,
    );
    records.push(...body.entries);
    if (page >= body.page_count) return records;
  }
}

/** The number of inventory containers of the cluster (one per pushed pod). */
export async function containerCount(url: string, tenant: Tenant): Promise<number> {
  const body = await getJson(
    url,
    tenant,
    `/accounts/${tenant.accountId}/inventory_containers?filters=cluster_id:${tenant.clusterId}&limit=1`,
  );
  return body.total_count;
}
